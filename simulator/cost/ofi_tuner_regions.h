// aws-ofi-nccl's tuner plugin, which AWS's EFA systems load with the network plugin (NCCL_TUNER_PLUGIN, or
// the network plugin's own tuner from aws-ofi-nccl 1.13 on). For the instance types it knows, it takes NCCL's
// choice of algorithm and protocol out of NCCL's hands by regions of the plane (message size, ranks): each
// region a polygon in log2 coordinates naming one (algorithm, protocol) pair, the first region holding the
// point wins, and a point outside every region, a communicator of 2 nodes or fewer, or a collective the
// platform has no regions for is left to NCCL's tuner (aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp, read at
// v1.16.3 and at its August 2026 head, 2daf7d3). simtrain carries (ofi_tuner_geometry.h) p5/p5e's regions
// for all-reduces over 8 GPUs per node (those the AWS p5 tables of validation/reference/nccl/multinode/ ran)
// and over 2, and p5en's and p6-b200's for all-reduces, all-gathers and reduce-scatters over 8.
#pragma once

#include <optional>

#include "simulator/cost/nccl_choice.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// What the plugin's region sets for one collective.
struct TunerPluginChoice {
  NcclAlgorithm algorithm;
  NcclProtocol protocol;
};

// The plugin's choice for a collective of `bytes` (the buffer as NCCL sizes it: an all-reduce's buffer, an
// all-gather's or reduce-scatter's whole output) over `ranks` GPUs on `nodes` nodes, passing over NVLS-tree's
// regions where the nodes have no NVLS (`nvls`); nullopt where NCCL's own tuner decides.
std::optional<TunerPluginChoice> tuner_plugin_choice(NcclTunerPlugin plugin, trace::CollectiveKind kind,
                                                     double bytes, int ranks, int nodes, bool nvls);

}  // namespace simtrain::cost
