// aws-ofi-nccl's tuner regions for AWS p5 and p5e (8 H100 or H200, EFA v2 32 x 100 Gb/s) over 8 GPUs per
// node: all-reduces only (its all-gather and reduce-scatter regions are for 1 GPU per node). The vertices
// are the plugin's (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5_p5e: the same from v1.16.3 to
// 2daf7d3), in its units.
#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost::ofi_tuner {
namespace {

std::vector<Region> all_reduce() {
  const Point tree_ll128 = extended({402653184, 2048}, {402653184, 4096});
  const Point nvls_tree_simple = extended({8053063680, 160}, {9663676416, 192});
  return {
      Region(NcclAlgorithm::Tree, NcclProtocol::LL128,
             {{0, 16},
              {31457280, 16},
              {37748736, 32},
              {117440512, 64},
              {301989888, 128},
              {301989888, 256},
              {335544320, 512},
              {536870912, 1024},
              {402653184, 2048},
              {402653184, 4096},
              tree_ll128,
              {0, tree_ll128.ranks}}),
      // Two nodes' worth of ranks: NVLS-tree from 30 MiB on (a region of one edge).
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {{31457281, 16}, {kMaxBytes, 16}, {31457281, 16}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {{31457280, 17},
              {1073741824, 17},
              {2147483648, 64},
              {2147483648, 128},
              {1342177280, 160},
              {2147483648, 256},
              {1074790400, 256},
              {444596224, 160},
              {301989888, 128},
              {117440512, 64},
              {37748736, 32}}),
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {{2147483648, 128},
              {6442450944, 128},
              {8053063680, 160},
              {9663676416, 192},
              nvls_tree_simple,
              tree_ll128,
              {402653184, 4096},
              {402653184, 2048},
              {536870912, 1024},
              {335544320, 512},
              {301989888, 256},
              {310378496, 160},
              {444596224, 160},
              {1074790400, 256},
              {2684354560, 256},
              {2147483648, 224},
              {1342177280, 160}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {{1073741824, 17},
              {nvls_tree_simple.bytes, 17},
              nvls_tree_simple,
              {9663676416, 192},
              {8053063680, 160},
              {2684354560, 64},
              {1610612736, 32}}),
  };
}

}  // namespace

RegionTables p5_tables() { return {all_reduce(), {}, {}}; }

}  // namespace simtrain::cost::ofi_tuner
