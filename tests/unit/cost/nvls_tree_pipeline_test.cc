// Specification of the NVLS-tree pipeline across NVLink domains: NCCL's NVLS-tree chunk rule (enqueue.cc),
// and a step that pays the NVLS transfer and the heads' network leg one after the other.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/nvls_tree_pipeline.h"

namespace simtrain {
namespace {

constexpr double kKiB = 1024, kMiB = 1024 * 1024;
// Sums and products of round figures: equal to rounding.
constexpr double kRel = 1e-12;

}  // namespace

TEST_CASE("NVLS-tree chunks on 32 channels x 32 heads: 32 KiB below 64 MiB, 64 KiB below 512 MiB, then 128") {
  // 1024 concurrent chunks: 64 KiB below 4 loops of 128 KiB (512 MiB), then 32 KiB below one loop of the
  // 64 KiB chunk (64 MiB).
  CHECK(cost::nvls_tree_chunk_bytes(1 * kMiB, 32, 32, 2) == 32 * kKiB);
  CHECK(cost::nvls_tree_chunk_bytes(64 * kMiB - 1, 32, 32, 2) == 32 * kKiB);
  CHECK(cost::nvls_tree_chunk_bytes(64 * kMiB, 32, 32, 2) == 64 * kKiB);
  CHECK(cost::nvls_tree_chunk_bytes(512 * kMiB - 1, 32, 32, 2) == 64 * kKiB);
  CHECK(cost::nvls_tree_chunk_bytes(512 * kMiB, 32, 32, 2) == 128 * kKiB);
  // From 4 domains on NCCL caps the chunk at 64 KiB (NCCL_NVLSTREE_MAX_CHUNKSIZE's default).
  CHECK(cost::nvls_tree_chunk_bytes(8192 * kMiB, 32, 32, 4) == 64 * kKiB);
  CHECK(cost::nvls_tree_chunk_bytes(32 * kMiB, 32, 32, 4) == 32 * kKiB);
}

TEST_CASE("an NVLS-tree step pays the NVLS transfer, then the heads' network leg, and its fixed costs") {
  cost::NvlsTreeFigures tree;
  tree.nvls = {500e9, 16e-6, 3e-6, 64, 32};  // 64 GPUs: 32 heads
  tree.nodes = 2;
  tree.head_network_Bps = 40e9;
  tree.network_step_latency_s = 40e-6;
  tree.node_volume = 1;
  const double step_fixed = 3e-6 + 40e-6, heads_Bps = 32 * 40e9;
  // 8 MiB: below one loop (1024 x 32 KiB = 32 MiB), one step of the whole buffer, three stages.
  const double small = 8 * kMiB;
  CHECK(cost::nvls_tree_all_reduce_s(small, tree) ==
        simtrain::testing::Approx(3 * (step_fixed + small / 500e9 + small / heads_Bps)).epsilon(kRel));
  // 1 GiB: 128 KiB chunks, loops of 128 MiB, 8 steps plus the fill.
  const double loop = 128 * kMiB;
  CHECK(cost::nvls_tree_all_reduce_s(1024 * kMiB, tree) ==
        simtrain::testing::Approx((8 + 2) * (step_fixed + loop / 500e9 + loop / heads_Bps)).epsilon(kRel));
  // On 3 nodes the busiest node moves 1.5 buffers (the double binary tree's): the network leg grows by half.
  tree.nodes = 3;
  tree.node_volume = 1.5;
  CHECK(cost::nvls_tree_all_reduce_s(small, tree) ==
        simtrain::testing::Approx(3 * (step_fixed + small / 500e9 + 1.5 * small / heads_Bps)).epsilon(kRel));
}

}  // namespace simtrain
