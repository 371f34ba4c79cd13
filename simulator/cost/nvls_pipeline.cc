// Implements nvls_pipeline.h.
#include "simulator/cost/nvls_pipeline.h"

#include <algorithm>

namespace simtrain::cost {
namespace {

constexpr double kKiB = 1024;
constexpr int kPipelineStages = 3;
constexpr int kMaxNvlsArity = 32;  // NCCL_MAX_NVLS_ARITY (device.h)

}  // namespace

int nvls_heads(int gpus) { return std::min(gpus, kMaxNvlsArity); }

double nvls_chunk_bytes(double bytes, int gpus, int channels) {
  const double concurrent = static_cast<double>(channels) * nvls_heads(gpus);
  double chunk = 128 * kKiB;
  if (bytes < 64 * concurrent * chunk) chunk = 64 * kKiB;
  if (bytes < 8 * concurrent * chunk) chunk = 32 * kKiB;
  if (bytes < 2 * concurrent * chunk) chunk = 16 * kKiB;
  return chunk;
}

double nvls_all_reduce_s(double bytes, const NvlsFigures& nvls) {
  if (nvls.step_latency_s <= 0) return nvls.latency_s + bytes / nvls.bandwidth_Bps;
  const double loop = static_cast<double>(nvls.channels) * nvls_heads(nvls.gpus) *
                      nvls_chunk_bytes(bytes, nvls.gpus, nvls.channels);
  const double steps = std::max(1.0, bytes / loop);
  const double step_s = nvls.step_latency_s + std::min(bytes, loop) / nvls.bandwidth_Bps;
  return nvls.latency_s + (steps + kPipelineStages - 1) * step_s;
}

}  // namespace simtrain::cost
