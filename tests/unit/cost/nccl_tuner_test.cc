// Specification of NCCL's tuner terms as simtrain takes them (src/graph/tuning.cc): the latencies it
// charges each algorithm and protocol, worked by hand from its constants, and the protocols' bandwidth
// shares.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/nccl_tuner.h"

namespace simtrain {

using cost::NcclAlgorithm;
using cost::NcclProtocol;
using trace::CollectiveKind;

namespace {

cost::NcclTunerShape shape(CollectiveKind kind, int ranks, int nodes) {
  cost::NcclTunerShape s;
  s.kind = kind;
  s.ranks = ranks;
  s.nodes = nodes;
  return s;
}

// The latencies are sums of a few microsecond figures: equal to rounding.
constexpr double kEps = 1e-12;

}  // namespace

TEST_CASE("a ring all-reduce over 2 nodes of 8 pays 2(N-1) steps, 2(M-1) of them network hops") {
  // Simple: base 8.4 us; 28 NVLink steps at max(3.4, 3 x 1 us net overhead) = 3.4; 2 network hops of 14.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Ring, NcclProtocol::Simple,
                                   shape(CollectiveKind::AllReduce, 16, 2)) ==
        simtrain::testing::Approx((8.4 + 28 * 3.4 + 2 * 14.0) * 1e-6).epsilon(kEps));
  // LL: base 6.6; NVLink steps at max(0.6, 1 us overhead) = 1; network hops 2.7.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Ring, NcclProtocol::LL,
                                   shape(CollectiveKind::AllReduce, 16, 2)) ==
        simtrain::testing::Approx((6.6 + 28 * 1.0 + 2 * 2.7) * 1e-6).epsilon(kEps));
  // All-gather: N-1 steps, M-1 across nodes; one node: no network overhead.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Ring, NcclProtocol::LL128,
                                   shape(CollectiveKind::AllGather, 80, 10)) ==
        simtrain::testing::Approx((14.0 + 70 * 1.9 + 9 * 4.0) * 1e-6).epsilon(kEps));
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Ring, NcclProtocol::LL,
                                   shape(CollectiveKind::AllGather, 8, 1)) ==
        simtrain::testing::Approx((6.6 + 7 * 0.6) * 1e-6).epsilon(kEps));
}

TEST_CASE("a tree climbs the node's chain and log2(M) network levels, up and down") {
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Tree, NcclProtocol::LL,
                                   shape(CollectiveKind::AllReduce, 64, 8)) ==
        simtrain::testing::Approx((6.8 + 2 * (7 * 0.6 + 3 * 5.0)) * 1e-6).epsilon(kEps));
  // NVLS-tree: the NVLink NVLS latency once, then 2 log2(M) network hops of 20.9 us.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::NVLSTree, NcclProtocol::Simple,
                                   shape(CollectiveKind::AllReduce, 32, 4)) ==
        simtrain::testing::Approx((25 + 2 * 2 * 20.9) * 1e-6).epsilon(kEps));
  // The network plugin's latency joins every network hop, twice under Simple.
  cost::NcclTunerShape with_latency = shape(CollectiveKind::AllReduce, 16, 2);
  with_latency.network_latency_s = 1e-6;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Tree, NcclProtocol::Simple, with_latency) ==
        simtrain::testing::Approx((8.4 + 2 * (7 * 4.0 + 1 * (14 + 2))) * 1e-6).epsilon(kEps));
}

TEST_CASE("protocols reach NCCL's shares of the bandwidth; NVLS-tree runs Simple only") {
  const auto ar = CollectiveKind::AllReduce;
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Ring, NcclProtocol::Simple, ar, 4) == 1.0);
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Ring, NcclProtocol::LL, ar, 4) == 0.5);
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Ring, NcclProtocol::LL128, ar, 4) == 0.92);
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Tree, NcclProtocol::Simple, ar, 4) == 0.92);
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Tree, NcclProtocol::LL, ar, 4) ==
        simtrain::testing::Approx(0.92 / 3.8));
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Tree, NcclProtocol::LL128, ar, 4) ==
        simtrain::testing::Approx(0.92 * 120 / 128));
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::NVLSTree, NcclProtocol::LL128, ar, 4) == 0.0);
  CHECK(cost::nccl_ll_max_bus_bandwidth_Bps(2) == 39e9);
  CHECK(cost::nccl_ll_max_bus_bandwidth_Bps(8) == 20.4e9);
}

}  // namespace simtrain

namespace simtrain {

TEST_CASE(
    "the constants follow the NCCL release: 2.18's NVLS-tree is linear in the nodes, 2.19-2.22 price "
    "tree Simple hops at 28 us, 2.28 NVLS-tree's network hop at 20.9 us, LL on rings 1/4 before 2.21") {
  cost::NcclTunerShape s = shape(CollectiveKind::AllReduce, 32, 4);
  s.version_minor = 18;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::NVLSTree, NcclProtocol::Simple, s) ==
        simtrain::testing::Approx((23 + 2 * 3 * 19.0) * 1e-6).epsilon(kEps));
  s.version_minor = 20;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Tree, NcclProtocol::Simple, s) ==
        simtrain::testing::Approx((0 + 2 * (7 * 28.0 + 2 * 28.0)) * 1e-6).epsilon(kEps));
  s.version_minor = 26;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::NVLSTree, NcclProtocol::Simple, s) ==
        simtrain::testing::Approx((25 + 2 * 2 * 14.0) * 1e-6).epsilon(kEps));
  s.version_minor = 28;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::NVLSTree, NcclProtocol::Simple, s) ==
        simtrain::testing::Approx((25 + 2 * 2 * 20.9) * 1e-6).epsilon(kEps));
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Ring, NcclProtocol::LL, CollectiveKind::AllReduce, 4,
                                          20) == 0.25);
  CHECK(cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::Ring, NcclProtocol::LL, CollectiveKind::AllReduce, 4,
                                          21) == 0.5);
}

}  // namespace simtrain

namespace simtrain {

TEST_CASE(
    "a tree all-reduce reaches NCCL's corrected share at medium sizes: 0.5 of its model for Simple at 1 MiB, "
    "0.4 for LL at 512 KiB, none from 512 MiB or under 64 B") {
  // tuning.cc's treeCorrectionFactor is indexed by floor(log2(bytes / 64)): 1 MiB is index 14, 512 KiB 13.
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 1 << 20) == 0.5);
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::LL, 512 << 10) == 0.4);
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::LL128, 16 << 20) == 0.9);    // index 18
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 64) == 0.9);         // index 0
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 127) == 0.9);        // still index 0
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 256 << 20) == 0.9);  // index 22, the last
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 512 << 20) == 1.0);  // index 23: none
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 32) == 1.0);
  CHECK(cost::nccl_tree_correction_factor(NcclProtocol::Simple, 1e15) == 1.0);
}

TEST_CASE(
    "a Simple ring all-reduce across nodes pays 1.4x its latency once a channel's share per rank is 64 B") {
  const auto all_reduce = CollectiveKind::AllReduce;
  // 16 channels x 16 ranks x 64 B = 16 KiB: the threshold.
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::Simple, all_reduce, 16 << 10, 16, 2, 16) == 1.4);
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::Simple, all_reduce, (16 << 10) - 1, 16, 2, 16) == 1.0);
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::Simple, all_reduce, 1 << 20, 16, 2, 16, true) == 1.9);
  // Not on one node, not under LL or LL128, not for the other collectives.
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::Simple, all_reduce, 1 << 20, 8, 1, 16) == 1.0);
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::LL128, all_reduce, 1 << 20, 16, 2, 16) == 1.0);
  CHECK(cost::nccl_ring_plateau_factor(NcclProtocol::Simple, CollectiveKind::AllGather, 1 << 20, 16, 2, 16) ==
        1.0);
}

TEST_CASE("NVLS-tree's network hops: 2 log2(M) of the release's NVLS-tree network latency, 2(M-1) in 2.18") {
  auto all_reduce = [](int ranks, int nodes, int minor) {
    cost::NcclTunerShape s = shape(CollectiveKind::AllReduce, ranks, nodes);
    s.version_minor = minor;
    return s;
  };
  // 2.28 and 2.29: 20.9 us a hop; 2 racks of 64 GPUs: up and down one level.
  CHECK(cost::nccl_nvls_tree_network_latency_s(all_reduce(128, 2, 29)) ==
        simtrain::testing::Approx(2 * 20.9e-6).epsilon(kEps));
  CHECK(cost::nccl_nvls_tree_network_latency_s(all_reduce(256, 4, 28)) ==
        simtrain::testing::Approx(4 * 20.9e-6).epsilon(kEps));
  // 2.19-2.27: 14 us; 2.18: 19 us over 2(M-1) hops.
  CHECK(cost::nccl_nvls_tree_network_latency_s(all_reduce(128, 2, 26)) ==
        simtrain::testing::Approx(2 * 14e-6).epsilon(kEps));
  CHECK(cost::nccl_nvls_tree_network_latency_s(all_reduce(256, 4, 18)) ==
        simtrain::testing::Approx(6 * 19e-6).epsilon(kEps));
  // The plugin's latency joins each hop twice (Simple's flush), as in the tuner's latency.
  cost::NcclTunerShape with_plugin = all_reduce(128, 2, 29);
  with_plugin.network_latency_s = 1e-6;
  CHECK(cost::nccl_nvls_tree_network_latency_s(with_plugin) ==
        simtrain::testing::Approx(2 * 22.9e-6).epsilon(kEps));
  // It is the network part of NCCL's NVLS-tree latency: the rest is the NVLink NVLS latency (25 us).
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::NVLSTree, NcclProtocol::Simple, all_reduce(128, 2, 29)) ==
        simtrain::testing::Approx(25e-6 + cost::nccl_nvls_tree_network_latency_s(all_reduce(128, 2, 29)))
            .epsilon(kEps));
}

TEST_CASE(
    "PAT: log2(M) network hops at 1/3.5 each plus 2.8 us a rank, Simple only, one GPU per node, 2.23 on") {
  // 64 nodes of one GPU, NCCL 2.29: base 8 us; 6 levels of the tree's 14 us network hop over 3.5; 64 x 2.8.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::PAT, NcclProtocol::Simple,
                                   shape(CollectiveKind::AllGather, 64, 64)) ==
        simtrain::testing::Approx((8 + 6 * 14 / 3.5 + 64 * 2.8) * 1e-6).epsilon(kEps));
  // log2i is the floor: 10 nodes climb 3 levels, as 8 do.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::PAT, NcclProtocol::Simple,
                                   shape(CollectiveKind::ReduceScatter, 10, 10)) ==
        simtrain::testing::Approx((8 + 3 * 4.0 + 10 * 2.8) * 1e-6).epsilon(kEps));
  // The plugin's latency joins the hop twice under Simple, as in every network hop.
  cost::NcclTunerShape with_plugin = shape(CollectiveKind::AllGather, 16, 16);
  with_plugin.network_latency_s = 3.5e-6;
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::PAT, NcclProtocol::Simple, with_plugin) ==
        simtrain::testing::Approx((8 + 4 * (14 + 7) / 3.5 + 16 * 2.8) * 1e-6).epsilon(kEps));
  // It undercuts the ring's N-1 network hops at scale: 63 of 14 us on 64 nodes.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::Ring, NcclProtocol::Simple,
                                   shape(CollectiveKind::AllGather, 64, 64)) ==
        simtrain::testing::Approx((8.4 + 63 * 14.0) * 1e-6).epsilon(kEps));
  // Its share of the bandwidth: 0.85 in 2.23, 0.75 since; none under LL or LL128, none before 2.23.
  const auto factor = [](NcclProtocol p, int minor) {
    return cost::nccl_tuner_bandwidth_factor(NcclAlgorithm::PAT, p, CollectiveKind::AllGather, 64, minor);
  };
  CHECK(factor(NcclProtocol::Simple, 23) == 0.85);
  CHECK(factor(NcclProtocol::Simple, 24) == 0.75);
  CHECK(factor(NcclProtocol::Simple, 29) == 0.75);
  CHECK(factor(NcclProtocol::Simple, 22) == 0);
  CHECK(factor(NcclProtocol::LL, 29) == 0);
  CHECK(factor(NcclProtocol::LL128, 29) == 0);
  // Where NCCL weighs it: all-gather and reduce-scatter, one GPU on each of several nodes, 2.23 on.
  CHECK(cost::nccl_pat_runs(CollectiveKind::AllGather, 64, 64, 29));
  CHECK(cost::nccl_pat_runs(CollectiveKind::ReduceScatter, 2, 2, 23));
  CHECK_FALSE(cost::nccl_pat_runs(CollectiveKind::AllGather, 64, 64, 22));
  CHECK_FALSE(cost::nccl_pat_runs(CollectiveKind::AllGather, 128, 64, 29));
  CHECK_FALSE(cost::nccl_pat_runs(CollectiveKind::AllReduce, 64, 64, 29));
  CHECK_FALSE(cost::nccl_pat_runs(CollectiveKind::AllGather, 1, 1, 29));
}

TEST_CASE(
    "CollNet: one hop to the node's heads (Direct) or up its chain (Chain), then the switches' reduction") {
  auto all_reduce = [](int ranks, int nodes, int minor) {
    cost::NcclTunerShape s = shape(CollectiveKind::AllReduce, ranks, nodes);
    s.version_minor = minor;
    return s;
  };
  // 2 nodes of 8, NCCL 2.29: Direct 2 (3.7 + 7 x 0.4) + 31; Chain 2 x 7 x 2.8 + 30.
  CHECK(
      cost::nccl_tuner_latency_s(NcclAlgorithm::CollNetDirect, NcclProtocol::Simple, all_reduce(16, 2, 29)) ==
      simtrain::testing::Approx((2 * (3.7 + 7 * 0.4) + 31) * 1e-6).epsilon(kEps));
  CHECK(
      cost::nccl_tuner_latency_s(NcclAlgorithm::CollNetChain, NcclProtocol::Simple, all_reduce(16, 2, 29)) ==
      simtrain::testing::Approx((2 * 7 * 2.8 + 30) * 1e-6).epsilon(kEps));
  // 2.18's hops: NVLink 8.0 / 4.75, network 10.7 / 14, and 0.5 us of serialisation per GPU.
  CHECK(
      cost::nccl_tuner_latency_s(NcclAlgorithm::CollNetDirect, NcclProtocol::Simple, all_reduce(16, 2, 18)) ==
      simtrain::testing::Approx((2 * (8.0 + 7 * 0.5) + 10.7) * 1e-6).epsilon(kEps));
  CHECK(
      cost::nccl_tuner_latency_s(NcclAlgorithm::CollNetChain, NcclProtocol::Simple, all_reduce(16, 2, 18)) ==
      simtrain::testing::Approx((2 * 7 * 4.75 + 14) * 1e-6).epsilon(kEps));
  // A lone GPU per node has no NVLink hop; its network hop is the tree's (14 us), as for every algorithm.
  CHECK(cost::nccl_tuner_latency_s(NcclAlgorithm::CollNetDirect, NcclProtocol::Simple,
                                   all_reduce(4, 4, 29)) == simtrain::testing::Approx(14e-6).epsilon(kEps));
  // Simple only, at the whole bandwidth (Direct's Hopper factor is the caller's).
  for (NcclAlgorithm a : {NcclAlgorithm::CollNetDirect, NcclAlgorithm::CollNetChain}) {
    CHECK(cost::nccl_tuner_bandwidth_factor(a, NcclProtocol::Simple, CollectiveKind::AllReduce, 2) == 1.0);
    CHECK(cost::nccl_tuner_bandwidth_factor(a, NcclProtocol::LL, CollectiveKind::AllReduce, 2) == 0.0);
    CHECK(cost::nccl_tuner_bandwidth_factor(a, NcclProtocol::LL128, CollectiveKind::AllReduce, 2) == 0.0);
  }
}

}  // namespace simtrain
