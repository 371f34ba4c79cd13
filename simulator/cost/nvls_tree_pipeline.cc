// Implements nvls_tree_pipeline.h.
#include "simulator/cost/nvls_tree_pipeline.h"

#include <algorithm>

namespace simtrain::cost {
namespace {

constexpr double kKiB = 1024;
constexpr int kPipelineStages = 3;  // scatter, reduce-network-broadcast, gather: nvls_pipeline.h's three

}  // namespace

double nvls_tree_chunk_bytes(double bytes, int channels, int heads, int nodes) {
  const double concurrent = static_cast<double>(channels) * heads;
  double chunk = nodes >= 4 ? 64 * kKiB : 128 * kKiB;
  if (bytes < 4 * concurrent * chunk && chunk > 64 * kKiB) chunk = 64 * kKiB;
  if (bytes < 1 * concurrent * chunk && chunk > 32 * kKiB) chunk = 32 * kKiB;
  return chunk;
}

double nvls_tree_all_reduce_s(double bytes, const NvlsTreeFigures& tree) {
  const NvlsFigures& nvls = tree.nvls;
  const int heads = nvls_heads(nvls.gpus);
  const double loop = static_cast<double>(nvls.channels) * heads *
                      nvls_tree_chunk_bytes(bytes, nvls.channels, heads, tree.nodes);
  const double steps = std::max(1.0, bytes / loop);
  const double moved = std::min(bytes, loop);
  const double step_s = nvls.step_latency_s + tree.network_step_latency_s + moved / nvls.bandwidth_Bps +
                        tree.node_volume * moved / (heads * tree.head_network_Bps);
  return (steps + kPipelineStages - 1) * step_s;
}

}  // namespace simtrain::cost
