// Specification of collectives across NVLink nodes priced with NCCL's tuner terms: the tree and the ring by
// size, the ring's channel turns, NVLS-tree, PAT over one GPU per node, and CollNet where the switches
// reduce.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/collective_algorithm.h"
#include "simulator/cost/nccl_tuner.h"
#include "simulator/cost/nvls_pipeline.h"
#include "tests/unit/cost/collective_layouts.h"

namespace simtrain {

using namespace collective_layouts;

TEST_CASE(
    "with NCCL's tuner terms, small all-reduces across nodes take the tree under LL, large ones the "
    "ring under Simple, each paying NCCL's latency once") {
  const MultiNode c{ranks(8 * 4), 4};  // 8 nodes of 4 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(0);
  const auto small = cost::plan_collective(CollectiveKind::AllReduce, 4096, layout, efficiencies());
  CHECK(small.algorithm == cost::NcclAlgorithm::Tree);
  CHECK(small.protocol == cost::NcclProtocol::LL);
  CHECK(small.steps == 1);
  cost::NcclTunerShape shape;
  shape.ranks = 32;
  shape.nodes = 8;
  // The tree's latency and its pipeline fill, whose chunk is the whole 4 KiB over 4 channels at most.
  CHECK(small.software_latency_s >=
        cost::nccl_tuner_latency_s(cost::NcclAlgorithm::Tree, cost::NcclProtocol::LL, shape));
  const auto large = cost::plan_collective(CollectiveKind::AllReduce, 1e9, layout, efficiencies());
  CHECK(large.algorithm == cost::NcclAlgorithm::Ring);
  CHECK(large.protocol == cost::NcclProtocol::Simple);
  CHECK(large.software_latency_s == simtrain::testing::Approx(cost::nccl_tuner_latency_s(
                                        cost::NcclAlgorithm::Ring, cost::NcclProtocol::Simple, shape)));
  // The flat ring's volume, 2(N-1)/N of the rank's quarter share, leaves for the next node at full bandwidth.
  REQUIRE(large.sends.size() == 1);
  CHECK(large.sends[0].bytes == simtrain::testing::Approx(2 * 31.0 / 32 * 1e9 / 4 / kInterEff));
}

TEST_CASE(
    "with NCCL's tuner terms, a forced tree's flows carry its medium-size correction and a Simple ring "
    "across nodes pays the ring's plateau once NCCL's channels are known") {
  const MultiNode c{ranks(8 * 4), 4};  // 8 nodes of 4 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(0);
  layout.network.channels = 8;
  layout.forced.algorithm = cost::NcclAlgorithm::Tree;
  layout.forced.protocol = cost::NcclProtocol::Simple;
  // 1 MiB: treeCorrectionFactor[Simple][log2(2^20 / 64) = 14] = 0.5; 512 MiB: no correction. The flows
  // carry the bytes over the share each size reaches, so their ratio is the correction's, 1 / 0.5.
  const double mib = 1 << 20, large = 512 * mib;
  const auto medium_plan = cost::plan_collective(CollectiveKind::AllReduce, mib, layout, efficiencies());
  const auto large_plan = cost::plan_collective(CollectiveKind::AllReduce, large, layout, efficiencies());
  REQUIRE(!medium_plan.sends.empty());
  REQUIRE(!large_plan.sends.empty());
  CHECK(medium_plan.sends[0].bytes / mib ==
        simtrain::testing::Approx(2 * large_plan.sends[0].bytes / large).epsilon(kRel));
  // The ring under Simple: NCCL's latency x 1.4, since 1e9 B / (8 channels x 32 ranks) >= 64 B.
  layout.forced.algorithm = cost::NcclAlgorithm::Ring;
  const auto ring = cost::plan_collective(CollectiveKind::AllReduce, 1e9, layout, efficiencies());
  cost::NcclTunerShape shape;
  shape.ranks = 32;
  shape.nodes = 8;
  CHECK(ring.software_latency_s ==
        simtrain::testing::Approx(
            1.4 * cost::nccl_tuner_latency_s(cost::NcclAlgorithm::Ring, cost::NcclProtocol::Simple, shape)));
}

TEST_CASE(
    "with more NCCL channels than the NICs' line share needs, a ring's step latencies hide behind the other "
    "channels' transfers: max(T, L + T_channels)") {
  const MultiNode c{ranks(8 * 4), 4};  // 8 nodes of 4 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(0);
  layout.forced.algorithm = cost::NcclAlgorithm::Ring;
  layout.forced.protocol = cost::NcclProtocol::Simple;
  const double line_Bps = 10e9 * kInterEff;  // one GPU's share of the NICs, as NCCL reaches it
  const auto plan = [&](double bytes, double channels_Bps) {
    layout.channels_Bps = channels_Bps;
    return cost::plan_collective(CollectiveKind::AllReduce, bytes, layout, efficiencies());
  };
  const double bytes = 1e6;
  const double latency_s = plan(bytes, 0).software_latency_s;
  // Channels that only just carry the line share (NCCL's default two per NIC): nothing hides.
  CHECK(plan(bytes, line_Bps).software_latency_s == latency_s);
  CHECK(plan(bytes, line_Bps).sends[0].bytes == plan(bytes, 0).sends[0].bytes);
  // Twice that: the channels alone would move the ring in half its transfer time T, so T / 2 of the latency
  // hides (the NICs' transfer, T = 2(N-1)/N of the buffer over the node's 4 GPU shares, outlasts NVLink's).
  const double transfer_s = 2 * 31.0 / 32 * bytes / (4 * line_Bps);
  REQUIRE(latency_s > transfer_s / 2);
  CHECK(plan(bytes, 2 * line_Bps).software_latency_s ==
        simtrain::testing::Approx(latency_s - transfer_s / 2).epsilon(kRel));
  CHECK(plan(bytes, 2 * line_Bps).sends[0].bytes == plan(bytes, 0).sends[0].bytes);  // the same flows
  // A large buffer hides all but NCCL's base latency of a launch.
  CHECK(plan(1e9, 2 * line_Bps).software_latency_s ==
        simtrain::testing::Approx(
            cost::nccl_tuner_base_latency_s(cost::NcclAlgorithm::Ring, cost::NcclProtocol::Simple)));
}

TEST_CASE("NVLS-tree's NVLS stages run at one node's NVLS bus bandwidth, as NCCL's tuner prices them") {
  const MultiNode c{ranks(2 * 8), 8};  // 2 nodes of 8 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(0);
  layout.nvls_bandwidth_Bps = 300e9;
  layout.nvls_latency_s = 20e-6;
  layout.forced.algorithm = cost::NcclAlgorithm::NVLSTree;
  layout.inter_node_bandwidth_Bps = 1e15;  // a network that never binds: the NVLS stages set the time
  const double bytes = 8e9;
  const auto plan = cost::plan_collective(CollectiveKind::AllReduce, bytes, layout, efficiencies());
  REQUIRE(plan.algorithm == cost::NcclAlgorithm::NVLSTree);
  // One node's NVLS all-reduce of the buffer, its latency apart, times 2(16-1)/16 over 2(8-1)/8.
  const double one_node_s = cost::nvls_all_reduce_s(bytes, {300e9, 20e-6, 0, 8, 16}) - 20e-6;
  CHECK(plan.intra_node_before_s + plan.intra_node_after_s ==
        simtrain::testing::Approx(one_node_s * (30.0 / 16) / (14.0 / 8)).epsilon(kRel));
}

TEST_CASE(
    "on multi-node NVLink domains NCCL picks NVLS-tree by its tuner's estimate and runs it as its pipeline, "
    "slower than the tree it passed over") {
  const MultiNode c{ranks(2 * 64), 64};  // 2 NVL72 racks of 64 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(0);
  layout.arm_host = true;
  layout.nvls_bandwidth_Bps = 500e9;
  layout.nvls_latency_s = 16e-6;
  layout.nvls_step_latency_s = 3e-6;
  layout.nvls_channels = 24;
  layout.nvls_tree_channels = 32;
  const double bytes = 8;
  const auto estimated = cost::plan_collective(CollectiveKind::AllReduce, bytes, layout, efficiencies());
  layout.multi_node_nvlink = true;
  const auto pipelined = cost::plan_collective(CollectiveKind::AllReduce, bytes, layout, efficiencies());
  // The same choice either way (NCCL ranks by its estimate), priced once by NCCL's tuner latency.
  CHECK(estimated.algorithm == cost::NcclAlgorithm::NVLSTree);
  CHECK(pipelined.algorithm == cost::NcclAlgorithm::NVLSTree);
  cost::NcclTunerShape shape;
  shape.ranks = 128;
  shape.nodes = 2;
  const double tuner_s =
      cost::nccl_tuner_latency_s(cost::NcclAlgorithm::NVLSTree, cost::NcclProtocol::Simple, shape);
  CHECK(pipelined.software_latency_s == simtrain::testing::Approx(tuner_s).epsilon(kRel));
  // The pipeline's three stages each pay the NVLS step and the tree's two network hops (2 x 20.9 us), and
  // carry the 8 bytes through the switch and the 32 heads' NICs (half the 64 GPUs').
  const double step_s = 3e-6 + 2 * 20.9e-6 + bytes / 500e9 + bytes / (32 * 10e9 * kInterEff);
  CHECK(pipelined.intra_node_before_s + pipelined.intra_node_after_s ==
        simtrain::testing::Approx(3 * step_s).epsilon(kRel));
  // NCCL's estimate (the NVLS pipeline's steps beside the network part) is a fraction of that.
  CHECK(estimated.intra_node_before_s + estimated.intra_node_after_s < 3 * step_s / 10);
}

TEST_CASE(
    "on one GPU per node, small all-gathers and reduce-scatters run as PAT where NCCL's tuner ranks it "
    "first, large ones as the ring") {
  const MultiNode c{ranks(64), 1};  // 64 nodes of one GPU
  cost::NcclTunerShape shape;
  shape.kind = CollectiveKind::AllGather;
  shape.ranks = shape.nodes = 64;
  for (CollectiveKind kind : {CollectiveKind::AllGather, CollectiveKind::ReduceScatter}) {
    CAPTURE(static_cast<int>(kind));
    shape.kind = kind;
    const auto small = cost::plan_collective(kind, 64e3, c.tuned_layout(5), efficiencies());
    CHECK(small.algorithm == cost::NcclAlgorithm::PAT);
    CHECK(small.protocol == cost::NcclProtocol::Simple);
    CHECK(small.steps == 1);
    CHECK(small.software_latency_s == simtrain::testing::Approx(cost::nccl_tuner_latency_s(
                                          cost::NcclAlgorithm::PAT, cost::NcclProtocol::Simple, shape)));
    // The ring's volume, (N-1)/N of the buffer, to the ring neighbours at PAT's 0.75 of the bandwidth.
    REQUIRE(small.sends.size() == 1);
    REQUIRE(small.receives.size() == 1);
    CHECK(small.sends[0].peer == 6);
    CHECK(small.receives[0].peer == 4);
    CHECK(small.sends[0].bytes ==
          simtrain::testing::Approx(63.0 / 64 * 64e3 / kInterEff / 0.75).epsilon(kRel));
    const auto large = cost::plan_collective(kind, 1e9, c.tuned_layout(5), efficiencies());
    CHECK(large.algorithm == cost::NcclAlgorithm::Ring);
    CHECK(large.steps == 63);
  }
  // Before NCCL 2.23, without NCCL's tuner terms, or with several GPUs a node, the ring runs.
  cost::CollectiveLayout old = c.tuned_layout(5);
  old.forced.version_minor = 22;
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 64e3, old, efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 64e3, c.layout(5), efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
  const MultiNode eight{ranks(64 * 8), 8};
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 64e3, eight.tuned_layout(5), efficiencies())
            .algorithm != cost::NcclAlgorithm::PAT);
}

TEST_CASE(
    "a forced PAT runs the all-gathers PAT can run, at any size, and leaves other collectives to the "
    "tuner") {
  const MultiNode c{ranks(16), 1};
  cost::CollectiveLayout forced = c.tuned_layout(0);
  forced.forced.algorithm = cost::NcclAlgorithm::PAT;
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 1e9, forced, efficiencies()).algorithm ==
        cost::NcclAlgorithm::PAT);
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 1e9, c.tuned_layout(0), efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
  const auto all_reduce = cost::plan_collective(CollectiveKind::AllReduce, 64e3, forced, efficiencies());
  const auto chosen =
      cost::plan_collective(CollectiveKind::AllReduce, 64e3, c.tuned_layout(0), efficiencies());
  CHECK(all_reduce.algorithm == chosen.algorithm);
  CHECK(all_reduce.software_latency_s == chosen.software_latency_s);
  // A forced protocol PAT does not run (LL) keeps the ring.
  cost::CollectiveLayout ll = c.tuned_layout(0);
  ll.forced.protocol = cost::NcclProtocol::LL;
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 64e3, ll, efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
}

TEST_CASE(
    "where the switches reduce and CollNet is enabled, a large all-reduce sends each node's buffer up once: "
    "half a ring's network volume") {
  const MultiNode c{ranks(8 * 4), 4};  // 8 nodes of 4 GPUs
  cost::CollectiveLayout layout = c.tuned_layout(3);
  layout.network_reduces = true;
  layout.forced.collnet = true;
  const double s = 1e9;
  const auto plan = cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies());
  // Direct's latency (2.29) undercuts Chain's: 2 (3.7 + 3 x 0.4) + 31 against 2 x 3 x 2.8 + 30 us.
  CHECK(plan.algorithm == cost::NcclAlgorithm::CollNetDirect);
  CHECK(plan.protocol == cost::NcclProtocol::Simple);
  CHECK(plan.software_latency_s ==
        simtrain::testing::Approx((2 * (3.7 + 3 * 0.4) + 31) * 1e-6).epsilon(kRel));
  // The rank's quarter of the buffer up and the result down, where the ring sends 2(N-1)/N of it.
  REQUIRE(plan.sends.size() == 1);
  REQUIRE(plan.receives.size() == 1);
  CHECK(plan.sends[0].peer == 7);
  CHECK(plan.receives[0].peer == 31);
  CHECK(plan.sends[0].bytes == simtrain::testing::Approx(s / 4 / kInterEff).epsilon(kRel));
  // The scatter to the heads and the gather back: the ring's two NVLink phases.
  CHECK(plan.intra_node_before_s + plan.intra_node_after_s ==
        simtrain::testing::Approx(2 * 3.0 / 4 * s / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
  // Not without CollNet enabled, nor where the switches do not reduce.
  cost::CollectiveLayout disabled = layout;
  disabled.forced.collnet = false;
  CHECK_FALSE(cost::reduces_in_network(
      cost::plan_collective(CollectiveKind::AllReduce, s, disabled, efficiencies()).algorithm));
  cost::CollectiveLayout plain = layout;
  plain.network_reduces = false;
  CHECK_FALSE(cost::reduces_in_network(
      cost::plan_collective(CollectiveKind::AllReduce, s, plain, efficiencies()).algorithm));
  // Forced, the chain passes the whole buffer up and down every node's chain: 2 buffers over NVLink.
  cost::CollectiveLayout chain = layout;
  chain.forced.algorithm = cost::NcclAlgorithm::CollNetChain;
  const auto chained = cost::plan_collective(CollectiveKind::AllReduce, s, chain, efficiencies());
  CHECK(chained.algorithm == cost::NcclAlgorithm::CollNetChain);
  CHECK(chained.intra_node_before_s + chained.intra_node_after_s ==
        simtrain::testing::Approx(2 * s / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
  // All-gathers stay rings: NCCL's CollNet gathers need a plugin's collectives simtrain does not model.
  CHECK(cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
}

}  // namespace simtrain
