// aws-ofi-nccl's tuner regions for AWS p5 and p5e (8 H100 or H200, EFA v2 32 x 100 Gb/s): all-reduces over
// 8 and 2 GPUs per node. The vertices are the plugin's
// (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5_p5e at 2daf7d3; the 8-GPU all-reduce's the same
// from v1.16.3), in its units.
#include "simulator/cost/ofi_tuner_geometry.h"

namespace simtrain::cost::ofi_tuner {
namespace {

std::vector<Region> all_reduce_8_per_node() {
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

std::vector<Region> all_reduce_2_per_node() {
  const Point tree_ll128 = extended({88160256, 128}, {178163712, 256});
  const Point tree_simple_1 = extended({787480576, 128}, {1073741824, 256});
  const Point tree_simple_2 = extended({257114112, 128}, {269484032, 256});
  const Point nvls_tree_simple = extended({787480576, 128}, {1073741824, 256});
  return {
      Region(NcclAlgorithm::Tree, NcclProtocol::LL128,
             {{0, 4},
              {1314816, 4},
              {1051648, 8},
              {1051648, 12},
              {2367488, 16},
              {5525504, 32},
              {9473024, 64},
              {88160256, 128},
              {178163712, 256},
              tree_ll128,
              {0, tree_ll128.ranks}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::LL128,
             {{1314816, 4},
              {19736576, 4},
              {41842688, 8},
              {296747008, 64},
              {257114112, 128},
              {269484032, 256},
              {178163712, 256},
              {88160256, 128},
              {9473024, 64},
              {5525504, 32},
              {2367488, 16},
              {1051648, 12},
              {1051648, 8},
              {1314816, 4}}),
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {{19736576, 4}, {81844224, 4}, {275775488, 8}, {275775488, 48}, {296747008, 64}, {41842688, 8}}),
      Region(NcclAlgorithm::Tree, NcclProtocol::LL128, {{81844224, 4}, {269484032, 4}, {81844224, 4}}),
      Region(NcclAlgorithm::Tree, NcclProtocol::Simple, {{269484032, 4}, {kMaxBytes, 4}, {269484032, 4}}),
      Region(NcclAlgorithm::Ring, NcclProtocol::Simple,
             {{81844224, 5},
              {kMaxBytes, 5},
              {kMaxBytes, 32},
              {1073741824, 40},
              {1073741824, 128},
              {787480576, 128},
              {296747008, 64},
              {275775488, 48},
              {275775488, 8},
              {81844224, 5}}),
      Region(NcclAlgorithm::Tree, NcclProtocol::Simple,
             {{296747008, 64},
              {787480576, 128},
              {1073741824, 256},
              tree_simple_1,
              tree_simple_2,
              {269484032, 256},
              {257114112, 128}}),
      Region(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
             {nvls_tree_simple,
              {1073741824, 256},
              {787480576, 128},
              {1073741824, 128},
              {1073741824, 40},
              {kMaxBytes, 32}}),
  };
}

}  // namespace

PluginTables p5_tables() {
  return {{8, {all_reduce_8_per_node(), {}, {}}}, {2, {all_reduce_2_per_node(), {}, {}}}};
}

}  // namespace simtrain::cost::ofi_tuner
