// Implements ofi_tuner_regions.h over the region tables of ofi_tuner_geometry.h.
#include "simulator/cost/ofi_tuner_regions.h"

#include <map>
#include <vector>

#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost {
namespace {

using ofi_tuner::Region;

// The regions one plugin build uses for one collective over communicators of `per_node` GPUs on every node
// (empty where it has none), built once.
const std::vector<Region>& regions(NcclTunerPlugin plugin, trace::CollectiveKind kind, int per_node) {
  static const std::map<NcclTunerPlugin, ofi_tuner::PluginTables> plugins = {
      {NcclTunerPlugin::AwsOfiNcclP5, ofi_tuner::p5_tables()},
      {NcclTunerPlugin::AwsOfiNcclP5en, ofi_tuner::p5en_tables()},
      {NcclTunerPlugin::AwsOfiNcclP6B200, ofi_tuner::p6_b200_tables()}};
  static const std::vector<Region> none;
  const auto found = plugins.find(plugin);
  if (found == plugins.end()) return none;
  const auto shape = found->second.find(per_node);
  if (shape == found->second.end()) return none;
  switch (kind) {
    case trace::CollectiveKind::AllReduce:
      return shape->second.all_reduce;
    case trace::CollectiveKind::AllGather:
      return shape->second.all_gather;
    case trace::CollectiveKind::ReduceScatter:
      return shape->second.reduce_scatter;
    default:
      return none;
  }
}

}  // namespace

std::optional<TunerPluginChoice> tuner_plugin_choice(NcclTunerPlugin plugin, trace::CollectiveKind kind,
                                                     double bytes, int ranks, int nodes, bool nvls) {
  // The plugin leaves communicators of 2 nodes or fewer to NCCL ("the regions are not well defined"), and
  // those whose nodes hold unequal numbers of ranks.
  if (nodes <= 2 || ranks % nodes != 0) return std::nullopt;
  for (const Region& region : regions(plugin, kind, ranks / nodes)) {
    // A pair NCCL cannot run here is passed over, as NCCL marks it in the cost table the plugin reads.
    if (region.algorithm == NcclAlgorithm::NVLSTree && !nvls) continue;
    if (region.holds(bytes, ranks)) return TunerPluginChoice{region.algorithm, region.protocol};
  }
  return std::nullopt;
}

}  // namespace simtrain::cost
