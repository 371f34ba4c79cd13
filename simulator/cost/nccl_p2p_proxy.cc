// Implements nccl_p2p_proxy.h.
#include "simulator/cost/nccl_p2p_proxy.h"

#include <algorithm>

namespace simtrain::cost {
namespace {

constexpr double kNcclSteps = 8;  // NCCL_STEPS: a connection's buffer holds 8 steps

}  // namespace

bool nccl_doubles_p2p_chunk(std::string_view gpu) { return gpu.starts_with("gb"); }

double nccl_p2p_net_chunk_bytes(bool arm_blackwell_host, double param_bytes, double buffer_bytes) {
  const double chunk = (arm_blackwell_host ? 2 : 1) * (param_bytes > 0 ? param_bytes : kNcclP2pNetChunkBytes);
  return std::min(chunk, buffer_bytes / kNcclSteps);
}

double nccl_p2p_proxy_chunk_s(double chunk_s) { return chunk_s > 0 ? chunk_s : kNcclP2pProxyChunkDefault_s; }

double nccl_p2p_proxy_line_share(double chunk_s, double chunk_bytes, double gpu_line_Bps) {
  if (gpu_line_Bps <= 0) return 0;
  return chunk_bytes / nccl_p2p_proxy_chunk_s(chunk_s) / gpu_line_Bps;
}

}  // namespace simtrain::cost
