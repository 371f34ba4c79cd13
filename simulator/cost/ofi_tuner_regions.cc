// Implements ofi_tuner_regions.h over the region tables of ofi_tuner_geometry.h.
#include "simulator/cost/ofi_tuner_regions.h"

#include <map>
#include <vector>

#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost {
namespace {

using ofi_tuner::Region;

// The regions one plugin build uses for one collective over 8 GPUs per node (empty where it has none), built
// once.
const std::vector<Region>& regions(NcclTunerPlugin plugin, trace::CollectiveKind kind) {
  using Kind = trace::CollectiveKind;
  using Tables = std::map<Kind, std::vector<Region>>;
  const auto tables = [](auto regions_of) {
    Tables by_kind;
    for (const Kind kind : {Kind::AllReduce, Kind::AllGather, Kind::ReduceScatter})
      by_kind[kind] = regions_of(kind);
    return by_kind;
  };
  static const std::map<NcclTunerPlugin, Tables> plugins = {
      {NcclTunerPlugin::AwsOfiNcclP5, tables(ofi_tuner::p5_regions)},
      {NcclTunerPlugin::AwsOfiNcclP5en, tables(ofi_tuner::p5en_regions)},
      {NcclTunerPlugin::AwsOfiNcclP6B200, tables(ofi_tuner::p6_b200_regions)}};
  static const std::vector<Region> none;
  const auto found = plugins.find(plugin);
  if (found == plugins.end()) return none;
  const auto by_kind = found->second.find(kind);
  return by_kind == found->second.end() ? none : by_kind->second;
}

}  // namespace

std::optional<TunerPluginChoice> tuner_plugin_choice(NcclTunerPlugin plugin, trace::CollectiveKind kind,
                                                     double bytes, int ranks, int nodes, bool nvls) {
  // The plugin leaves communicators of 2 nodes or fewer to NCCL ("the regions are not well defined"); the
  // regions simtrain carries are those of 8 GPUs per node.
  if (nodes <= 2 || ranks != 8 * nodes) return std::nullopt;
  for (const Region& region : regions(plugin, kind)) {
    // A pair NCCL cannot run here is passed over, as NCCL marks it in the cost table the plugin reads.
    if (region.algorithm == NcclAlgorithm::NVLSTree && !nvls) continue;
    if (region.holds(bytes, ranks)) return TunerPluginChoice{region.algorithm, region.protocol};
  }
  return std::nullopt;
}

}  // namespace simtrain::cost
