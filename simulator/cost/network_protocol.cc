// Implements network_protocol.h.
#include "simulator/cost/network_protocol.h"

#include <algorithm>
#include <cmath>

namespace simtrain::cost {
namespace {

constexpr int kNcclSteps = 8;       // NCCL_STEPS: slots of a channel's buffer
constexpr int kLLThreads = 512;     // NCCL_LL_MAX_NTHREADS
constexpr double kLLThreshold = 8;  // NCCL_LL_THREAD_THRESHOLD, bytes per thread
constexpr double kTreeLLShare = 1 / 3.8;
constexpr double kRingLLShare = 1 / 4.0;

double simple_latency_s(const NetworkShape& shape, const NetworkTransport& transport) {
  const double step = transport.buffer_bytes / kNcclSteps;
  const double per_channel = shape.node_volume / transport.channels;
  double chunks = 0;
  if (shape.algorithm == NcclAlgorithm::Tree) {
    chunks = std::ceil(
        shape.bytes / (transport.channels * nccl_tree_chunk_bytes(shape.bytes, transport.channels,
                                                                  shape.tree_depth, transport.buffer_bytes)));
  } else {
    chunks = std::max<double>(shape.network_steps, std::ceil(per_channel / step));
  }
  return (chunks + 1) * transport.chunk_latency_s;
}

}  // namespace

double nccl_tree_chunk_bytes(double bytes, int channels, int depth, double buffer_bytes) {
  double chunk = buffer_bytes / kNcclSteps;
  auto chunks_per_channel = [&] { return std::floor(bytes / (channels * chunk)); };
  while (chunks_per_channel() < depth * 8 && chunk > 128 * 1024) chunk /= 2;
  while (chunks_per_channel() < depth * 4 && chunk > 64 * 1024) chunk /= 2;
  while (chunks_per_channel() < depth && chunk > 32 * 1024) chunk /= 2;
  return chunk;
}

int nccl_ll_channels(double bytes, int channels, NcclAlgorithm algorithm, int ranks) {
  const double threshold = kLLThreshold * (algorithm == NcclAlgorithm::Ring ? ranks : 1);
  int active = channels;
  while (active > 1 && bytes < active * kLLThreads * threshold) --active;
  return active;
}

NetworkPhase network_phase(const NetworkShape& shape, const NetworkTransport& transport,
                           std::optional<NcclProtocol> forced) {
  if (!transport.has_costs() || transport.channels <= 0) return {};
  const NetworkPhase simple{NcclProtocol::Simple, simple_latency_s(shape, transport), 1};
  if (transport.channel_latency_s <= 0) return simple;
  const NetworkPhase ll{NcclProtocol::LL,
                        shape.network_steps *
                            nccl_ll_channels(shape.bytes, transport.channels, shape.algorithm, shape.ranks) *
                            transport.channel_latency_s,
                        shape.algorithm == NcclAlgorithm::Tree ? kTreeLLShare : kRingLLShare};
  if (forced == NcclProtocol::LL) return ll;
  if (forced == NcclProtocol::Simple) return simple;
  auto time_s = [&](const NetworkPhase& p) {
    return p.latency_s + shape.node_volume / (shape.node_bandwidth_Bps * p.bandwidth_fraction);
  };
  return time_s(ll) < time_s(simple) ? ll : simple;
}

}  // namespace simtrain::cost
