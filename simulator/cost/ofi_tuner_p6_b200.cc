// aws-ofi-nccl's tuner regions for AWS p6-b200 (8 B200, EFA v4 8 x 400 Gb/s): all-reduces, all-gathers and
// reduce-scatters over 8 GPUs per node. The vertices are the plugin's
// (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p6, at 2daf7d3), in its units.
#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost::ofi_tuner {
namespace {

std::vector<Region> all_reduce_8_per_node() {
  const Point tree_ll = extended({393216, 16}, {393216, 1024});
  const Point tree_ll128 = extended({96993280, 1024}, {106430464, 2048});
  const Point nvls_tree_simple = extended({10737418240, 512}, {34359738368, 1500});
  return {
      Region(NcclAlgorithm::Tree, NcclProtocol::LL, {{0, 16}, {393216, 16}, tree_ll, {0, kMaxRanks}}),
      Region(NcclAlgorithm::Tree, NcclProtocol::LL128,
             {tree_ll,
              {393216, 16},
              {4718592, 16},
              {18350080, 32},
              {40370176, 64},
              {57147392, 128},
              {72876032, 256},
              {96993280, 1024},
              {106430464, 2048},
              tree_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {{90701824, 128}, {50855936, 64}, {18350080, 32}, {133693440, 32}, {120061952, 64}}),
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {tree_ll128,
              {106430464, 2048},
              {96993280, 1024},
              {72876032, 256},
              {57147392, 128},
              {40370176, 64},
              {18350080, 32},
              {50855936, 64},
              {90701824, 128},
              {120061952, 64},
              {133693440, 32},
              {18350080, 32},
              {4718592, 16},
              {kMaxBytes, 16},
              {435159040, 32},
              {1072693248, 64},
              {10737418240, 512},
              {34359738368, 1500},
              nvls_tree_simple}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {nvls_tree_simple, {10737418240, 512}, {1072693248, 64}, {435159040, 32}, {kMaxBytes, 16}}),
  };
}

std::vector<Region> all_gather_8_per_node() {
  const Point ring_ll = extended({74973184, 1024}, {213385216, 2048});
  const Point ring_ll128 = extended({8321499136, 512}, {32212254720, 2048});
  return {
      Region(NcclAlgorithm::Ring, NcclProtocol::LL,
             {{0, 16},
              {786432, 16},
              {1572864, 32},
              {2621440, 64},
              {4718592, 128},
              {17301504, 256},
              {74973184, 1024},
              {213385216, 2048},
              ring_ll,
              {0, kMaxRanks}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {ring_ll,
              {213385216, 2048},
              {74973184, 1024},
              {17301504, 256},
              {4718592, 128},
              {2621440, 64},
              {1572864, 32},
              {786432, 16},
              {198705152, 16},
              {456130560, 32},
              {871366656, 64},
              {8321499136, 512},
              {32212254720, 2048},
              ring_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {ring_ll128,
              {32212254720, 2048},
              {8321499136, 512},
              {871366656, 64},
              {456130560, 32},
              {198705152, 16},
              {kMaxBytes, 16}}),
  };
}

std::vector<Region> reduce_scatter_8_per_node() {
  const Point ring_ll = extended({73924608, 1024}, {209190912, 2048});
  const Point ring_ll128 = extended({4294967296, 256}, {8589934592, 512});
  return {
      Region(NcclAlgorithm::Ring, NcclProtocol::LL,
             {{0, 16},
              {786432, 16},
              {1572864, 32},
              {2621440, 64},
              {4718592, 128},
              {17301504, 256},
              {35127296, 512},
              {73924608, 1024},
              {209190912, 2048},
              ring_ll,
              {0, kMaxRanks}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {ring_ll,
              {209190912, 2048},
              {73924608, 1024},
              {35127296, 512},
              {17301504, 256},
              {4718592, 128},
              {2621440, 64},
              {1572864, 32},
              {786432, 16},
              {219676672, 16},
              {508559360, 32},
              {592445440, 64},
              {4294967296, 256},
              {8589934592, 512},
              ring_ll128}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {ring_ll128,
              {8589934592, 512},
              {4294967296, 256},
              {592445440, 64},
              {508559360, 32},
              {219676672, 16},
              {kMaxBytes, 16}}),
  };
}

}  // namespace

PluginTables p6_b200_tables() {
  return {{8, {all_reduce_8_per_node(), all_gather_8_per_node(), reduce_scatter_8_per_node()}}};
}

}  // namespace simtrain::cost::ofi_tuner
