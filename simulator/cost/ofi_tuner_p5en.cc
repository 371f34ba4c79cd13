// aws-ofi-nccl's tuner regions for AWS p5en (8 H200, EFA v3 16 x 200 Gb/s): all-reduces, all-gathers and
// reduce-scatters over 8 GPUs per node. The vertices are the plugin's
// (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5en, at 2daf7d3), in its units.
#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost::ofi_tuner {
namespace {

std::vector<Region> all_reduce_8_per_node() {
  const Point tree_ll = extended({196608, 192}, {196608, 1024});
  const Point tree_ll128 = extended({129499136, 127}, {218103808, 1024});
  const Point nvls_tree_simple = extended({7516192768, 256}, {17179869184, 448});
  return {
      Region(NcclAlgorithm::Tree, NcclProtocol::LL,
             {{0, 16}, {196608, 16}, {196608, 1024}, tree_ll, {0, kMaxRanks}}),
      Region(NcclAlgorithm::Tree, NcclProtocol::LL128,
             {tree_ll,
              {196608, 1024},
              {196608, 16},
              {13107200, 16},
              {129499136, 127},
              {218103808, 1024},
              tree_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {{129499136, 127},
              {13107200, 16},
              {29884416, 16},
              {293601280, 32},
              {589299712, 64},
              {549453824, 128}}),
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {tree_ll128,
              {218103808, 1024},
              {129499136, 127},
              {549453824, 128},
              {589299712, 64},
              {293601280, 32},
              {29884416, 16},
              {kMaxBytes, 16},
              {509607936, 32},
              {7516192768, 256},
              {17179869184, 448},
              nvls_tree_simple}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {nvls_tree_simple, {17179869184, 448}, {7516192768, 256}, {509607936, 32}, {kMaxBytes, 16}}),
  };
}

std::vector<Region> all_gather_8_per_node() {
  const Point ring_ll = extended({28305408, 768}, {33554432, 1024});
  const Point ring_ll128 = extended({7247754240, 384}, {17179865088, 896});
  return {
      Region(NcclAlgorithm::Ring, NcclProtocol::LL,
             {{0, 16},
              {786432, 16},
              {4718592, 128},
              {13630464, 384},
              {19922944, 512},
              {28305408, 768},
              {33554432, 1024},
              ring_ll,
              {0, kMaxRanks}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {ring_ll,
              {33554432, 1024},
              {28305408, 768},
              {19922944, 512},
              {13630464, 384},
              {4718592, 128},
              {786432, 16},
              {236978176, 16},
              {956301312, 64},
              {7247754240, 384},
              {17179865088, 896},
              ring_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {ring_ll128,
              {17179865088, 896},
              {7247754240, 384},
              {956301312, 64},
              {494927872, 32},
              {236978176, 16},
              {kMaxBytes, 16}}),
  };
}

std::vector<Region> reduce_scatter_8_per_node() {
  const Point ring_ll = extended({7340032, 256}, {18874368, 512});
  const Point ring_ll128 = extended({7247757312, 256}, {17179869184, 640});
  return {
      Region(
          NcclAlgorithm::Ring, NcclProtocol::LL,
          {{0, 16}, {786432, 16}, {4718592, 128}, {7340032, 256}, {18874368, 512}, ring_ll, {0, kMaxRanks}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {ring_ll,
              {18874368, 512},
              {7340032, 256},
              {4718592, 128},
              {786432, 16},
              {291504128, 16},
              {589299712, 32},
              {2415919104, 128},
              {7247757312, 256},
              {17179869184, 640},
              ring_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {ring_ll128,
              {17179869184, 640},
              {7247757312, 256},
              {2415919104, 128},
              {589299712, 32},
              {291504128, 16},
              {kMaxBytes, 16}}),
  };
}

}  // namespace

PluginTables p5en_tables() {
  return {{8, {all_reduce_8_per_node(), all_gather_8_per_node(), reduce_scatter_8_per_node()}}};
}

}  // namespace simtrain::cost::ofi_tuner
