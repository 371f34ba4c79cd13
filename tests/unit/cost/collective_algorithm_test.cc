// Specification of how a rank takes part in a collective: flat rings and their volumes and steps, the
// per-node hierarchy (analytic NVLink phases around a ring across nodes), the fall-backs, and placement.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>
#include <map>
#include <set>

#include "simulator/cost/collective_algorithm.h"
#include "simulator/cost/double_binary_tree.h"
#include "simulator/cost/nccl_tuner.h"
#include "simulator/cost/nvls_pipeline.h"
#include "tests/unit/cost/collective_layouts.h"

namespace simtrain {

using namespace collective_layouts;

TEST_CASE("flat rings on one GPU per node: volume, steps and neighbours of each collective") {
  const Communicator c{ranks(4), 1};
  const double s = 1e6;
  struct Case {
    CollectiveKind kind;
    double volume;  // bytes per rank before the inter-node efficiency
    int steps;
  };
  const Case cases[] = {{CollectiveKind::AllReduce, 2.0 * 3 / 4 * s, 6},
                        {CollectiveKind::AllGather, 3.0 / 4 * s, 3},
                        {CollectiveKind::ReduceScatter, 3.0 / 4 * s, 3}};
  for (const Case& k : cases) {
    CAPTURE(trace::to_string(k.kind));
    const auto plan = c.plan(k.kind, s, 0);
    CHECK(plan.steps == k.steps);
    CHECK(plan.software_latency_s == simtrain::testing::Approx(k.steps * kStepLatency).epsilon(kRel));
    CHECK(plan.intra_node_before_s == 0);
    CHECK(plan.intra_node_after_s == 0);
    REQUIRE(plan.sends.size() == 1);
    REQUIRE(plan.receives.size() == 1);
    CHECK(plan.sends[0].peer == 1);
    CHECK(plan.receives[0].peer == 3);
    CHECK(plan.sends[0].bytes == simtrain::testing::Approx(k.volume / kInterEff).epsilon(kRel));
    CHECK(plan.receives[0].bytes == simtrain::testing::Approx(k.volume / kInterEff).epsilon(kRel));
  }
}

TEST_CASE("broadcast and reduce are a chain: the first rank only sends, the last only receives") {
  const Communicator c{ranks(4), 1};
  for (CollectiveKind kind : {CollectiveKind::Broadcast, CollectiveKind::Reduce}) {
    CAPTURE(trace::to_string(kind));
    const auto first = c.plan(kind, 1e6, 0), middle = c.plan(kind, 1e6, 1), last = c.plan(kind, 1e6, 3);
    CHECK(first.steps == 3);
    CHECK(first.receives.empty());
    REQUIRE(first.sends.size() == 1);
    CHECK(first.sends[0].peer == 1);
    CHECK(first.sends[0].bytes ==
          simtrain::testing::Approx(1e6 / kInterEff).epsilon(kRel));  // the whole buffer
    CHECK(middle.sends.size() == 1);
    CHECK(middle.receives.size() == 1);
    CHECK(last.sends.empty());
    REQUIRE(last.receives.size() == 1);
    CHECK(last.receives[0].peer == 2);
  }
}

TEST_CASE("all-to-all inside one node is analytic: (N-1)/N of the buffer over each GPU's own link") {
  const Communicator c{ranks(4), 4};
  const auto plan = c.plan(CollectiveKind::AllToAll, 1e6, 1);
  CHECK(plan.sends.empty());
  CHECK(plan.receives.empty());
  CHECK(plan.intra_node_before_s ==
        simtrain::testing::Approx(0.75e6 / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
  CHECK(plan.intra_node_latency_s == simtrain::testing::Approx(kNvlinkLatency + kStepLatency).epsilon(kRel));
}

TEST_CASE("all-to-all sends 1/N of the buffer to every other rank in one step") {
  const Communicator c{ranks(4), 1};
  const auto plan = c.plan(CollectiveKind::AllToAll, 1e6, 1);
  CHECK(plan.steps == 1);
  CHECK(plan.software_latency_s == kStepLatency);
  REQUIRE(plan.sends.size() == 3);
  REQUIRE(plan.receives.size() == 3);
  const int to[] = {2, 3, 0}, from[] = {0, 3, 2};
  for (int i = 0; i < 3; ++i) {
    CHECK(plan.sends[i].peer == to[i]);
    CHECK(plan.receives[i].peer == from[i]);
    CHECK(plan.sends[i].bytes == simtrain::testing::Approx(1e6 / 4 / kInterEff).epsilon(kRel));
  }
}

TEST_CASE("all-reduce on 4 nodes x 8 GPUs: NVLink phases around a ring of equal local index across nodes") {
  const Communicator c{ranks(32), 8};
  const double s = 64e6, l = 8, n = 32;
  const double transfer_s = (l - 1) / l * s / (kNvlinkBandwidth * kIntraEff);
  const double latency_s = (l - 1) * (kNvlinkLatency + kStepLatency);
  const auto plan = c.plan(CollectiveKind::AllReduce, s, 10);  // rank 10: node 1, local index 2
  CHECK(plan.intra_node_before_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(plan.intra_node_after_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(plan.intra_node_latency_s == simtrain::testing::Approx(2 * latency_s).epsilon(kRel));
  CHECK(plan.steps == 2 * (4 - 1));
  CHECK(plan.software_latency_s == simtrain::testing::Approx(6 * kStepLatency).epsilon(kRel));
  REQUIRE(plan.sends.size() == 1);
  REQUIRE(plan.receives.size() == 1);
  CHECK(plan.sends[0].peer == 18);
  CHECK(plan.receives[0].peer == 2);
  // A node's NICs carry what a flat ring's link carries, 2(N-1)/N of the buffer, shared by its 8 members.
  CHECK(plan.sends[0].bytes == simtrain::testing::Approx(2 * (n - 1) / n * s / l / kInterEff).epsilon(kRel));

  const auto last_node = c.plan(CollectiveKind::AllReduce, s, 26);  // the ring wraps to node 0
  CHECK(last_node.sends[0].peer == 2);
  CHECK(last_node.receives[0].peer == 18);
}

TEST_CASE("hierarchical reduce-scatter has only the phase before the flows, all-gather only the one after") {
  const Communicator c{ranks(32), 8};
  const double s = 64e6, l = 8, n = 32;
  const double transfer_s = (l - 1) / l * s / (kNvlinkBandwidth * kIntraEff);
  const double latency_s = (l - 1) * (kNvlinkLatency + kStepLatency);
  const auto rs = c.plan(CollectiveKind::ReduceScatter, s, 0);
  CHECK(rs.intra_node_before_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(rs.intra_node_after_s == 0);
  CHECK(rs.intra_node_latency_s == simtrain::testing::Approx(latency_s).epsilon(kRel));
  CHECK(rs.steps == 3);
  CHECK(rs.sends[0].bytes == simtrain::testing::Approx((n - 1) / n * s / l / kInterEff).epsilon(kRel));
  const auto ag = c.plan(CollectiveKind::AllGather, s, 0);
  CHECK(ag.intra_node_before_s == 0);
  CHECK(ag.intra_node_after_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(ag.intra_node_latency_s == simtrain::testing::Approx(latency_s).epsilon(kRel));
  CHECK(ag.steps == 3);
}

TEST_CASE("inside one node an all-reduce is analytic only: no flows reach the fabric") {
  const Communicator c{ranks(8), 8};
  const double s = 8e6;
  const auto plan = c.plan(CollectiveKind::AllReduce, s, 3);
  const double transfer_s = 7.0 / 8 * s / (kNvlinkBandwidth * kIntraEff);
  CHECK(plan.intra_node_before_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(plan.intra_node_after_s == simtrain::testing::Approx(transfer_s).epsilon(kRel));
  CHECK(plan.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + kStepLatency)).epsilon(kRel));
  CHECK(plan.sends.empty());
  CHECK(plan.receives.empty());
  CHECK(plan.steps == 0);
  CHECK(plan.software_latency_s == 0);
}

TEST_CASE("with NVLS the switch reduces: the whole buffer at the NVLS bandwidth, split around the ring") {
  const std::vector<int> members = ranks(32);
  const cost::CommunicatorPlacement placement = cost::place_communicator(members, 8);
  const double nvls_bandwidth = 250e9, nvls_latency = 20e-6, s = 64e6;
  cost::CollectiveLayout layout{&members,       &placement,     5,           8, kNvlinkBandwidth,
                                kNvlinkLatency, nvls_bandwidth, nvls_latency};
  const auto all_reduce = cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies());
  const double nvls_s = nvls_latency + s / nvls_bandwidth;
  CHECK(all_reduce.intra_node_latency_s == simtrain::testing::Approx(nvls_latency).epsilon(kRel));
  CHECK(all_reduce.intra_node_before_s ==
        simtrain::testing::Approx((nvls_s - nvls_latency) / 2).epsilon(kRel));
  CHECK(all_reduce.intra_node_after_s ==
        simtrain::testing::Approx((nvls_s - nvls_latency) / 2).epsilon(kRel));
  CHECK(all_reduce.sends.size() == 1);  // the ring across the 4 nodes is unchanged
  // Only all-reduce uses NVLS here: an all-gather keeps its NVLink ring phase.
  const auto all_gather = cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies());
  CHECK(all_gather.intra_node_after_s ==
        simtrain::testing::Approx(7.0 / 8 * s / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
  CHECK(all_gather.intra_node_latency_s ==
        simtrain::testing::Approx(7 * (kNvlinkLatency + kStepLatency)).epsilon(kRel));
}

TEST_CASE("inside a node a ring runs under LL128 or Simple, whichever finishes first for the size") {
  const std::vector<int> members = ranks(8);
  const cost::CommunicatorPlacement placement = cost::place_communicator(members, 8);
  cost::CollectiveLayout layout{&members, &placement, 0, 8, kNvlinkBandwidth, kNvlinkLatency};
  layout.intra_node_protocols = kNvlinkProtocols;
  const double bandwidth = kNvlinkBandwidth * kIntraEff;
  auto ring_s = [&](double s) {
    const double volume = 7.0 / 8 * s;
    const double ll128 = volume / (bandwidth * 0.5) + 7 * (kNvlinkLatency + 2e-6);
    const double simple = volume / bandwidth + 7 * (kNvlinkLatency + 12e-6);
    return std::min(ll128, simple);
  };
  for (double s : {1e3, 1e6, 1e9}) {
    const auto plan = cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies());
    CHECK(plan.intra_node_before_s + plan.intra_node_latency_s / 2 ==
          simtrain::testing::Approx(ring_s(s)).epsilon(kRel));
  }
  // Small messages take LL128's latency, large ones Simple's bandwidth.
  CHECK(ring_s(1e3) < 7.0 / 8 * 1e3 / bandwidth + 7 * (kNvlinkLatency + 12e-6));
  CHECK(ring_s(1e9) ==
        simtrain::testing::Approx(7.0 / 8 * 1e9 / bandwidth + 7 * (kNvlinkLatency + 12e-6)).epsilon(kRel));
}

TEST_CASE("a non-uniform placement falls back to a flat ring with per-hop efficiencies") {
  // Ranks 0, 1, 2 on node 0 and rank 8 on node 1.
  const Communicator c{{0, 1, 2, 8}, 8};
  const double s = 1e6, volume = 2.0 * 3 / 4 * s;
  const auto inside = c.plan(CollectiveKind::AllReduce, s, 0);  // 0 -> 1 on one node
  CHECK(inside.intra_node_before_s == 0);
  CHECK(inside.steps == 6);
  CHECK(inside.sends[0].peer == 1);
  CHECK(inside.sends[0].bytes == simtrain::testing::Approx(volume / kIntraEff).epsilon(kRel));
  CHECK(inside.receives[0].peer == 8);
  CHECK(inside.receives[0].bytes == simtrain::testing::Approx(volume / kInterEff).epsilon(kRel));
  const auto across = c.plan(CollectiveKind::AllReduce, s, 2);  // 2 -> 8 crosses nodes
  CHECK(across.sends[0].peer == 8);
  CHECK(across.sends[0].bytes == simtrain::testing::Approx(volume / kInterEff).epsilon(kRel));
}

TEST_CASE("a communicator of one rank gives an empty plan") {
  const Communicator c{{5}, 8};
  const auto plan = c.plan(CollectiveKind::AllReduce, 1e6, 0);
  CHECK(plan.sends.empty());
  CHECK(plan.receives.empty());
  CHECK(plan.steps == 0);
  CHECK(plan.intra_node_before_s == 0);
  CHECK(plan.intra_node_after_s == 0);
  CHECK(plan.software_latency_s == 0);
}

TEST_CASE("bus bandwidth factors are those of nccl-tests") {
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::AllReduce, 8) == 1.75);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::AllGather, 8) == 0.875);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::ReduceScatter, 8) == 0.875);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::AllToAll, 8) == 0.875);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::Broadcast, 8) == 1);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::Reduce, 8) == 1);
  CHECK(cost::bus_bandwidth_factor(CollectiveKind::AllReduce, 1) == 0);
}

TEST_CASE("placement counts nodes and pairs members of equal local index on neighbouring nodes") {
  // Communicator order need not follow nodes: ranks 8, 9 live on node 4, ranks 0, 1 on node 0.
  const auto p = cost::place_communicator({8, 0, 9, 1}, 2);
  CHECK(p.nodes == 2);
  CHECK(p.per_node == 2);
  CHECK(p.inter_node_next == std::vector<int>{0, 8, 1, 9});
  CHECK(p.inter_node_prev == std::vector<int>{0, 8, 1, 9});  // with two nodes, next is previous

  const auto three = cost::place_communicator(ranks(6), 2);
  CHECK(three.nodes == 3);
  CHECK(three.inter_node_next == std::vector<int>{2, 3, 4, 5, 0, 1});
  CHECK(three.inter_node_prev == std::vector<int>{4, 5, 0, 1, 2, 3});
}

TEST_CASE("placement reports per_node 0 and no pairs when nodes hold different numbers of members") {
  const auto p = cost::place_communicator({0, 1, 2, 4, 5}, 2);  // 2, 1 and 2 members on nodes 0, 1, 2
  CHECK(p.nodes == 3);
  CHECK(p.per_node == 0);
  CHECK(p.inter_node_next.empty());
  CHECK(p.inter_node_prev.empty());
}

}  // namespace simtrain

namespace simtrain {

TEST_CASE("a forced tree sends half the rank's share each way along every edge of both trees") {
  // 8 nodes of 4 GPUs: each local index has its own trees over the nodes, carrying S / 4.
  const MultiNode c{ranks(32), 4};
  const double s = 8e6, share = s / 4;
  for (int position : {0, 5, 13, 31}) {
    CAPTURE(position);
    cost::CollectiveLayout layout = c.layout(position);
    layout.forced.algorithm = cost::NcclAlgorithm::Tree;
    const auto plan = cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies());
    CHECK(plan.algorithm == cost::NcclAlgorithm::Tree);
    CHECK(plan.steps == 2 * 3);
    CHECK(plan.software_latency_s == simtrain::testing::Approx(6 * kStepLatency).epsilon(kRel));
    // The neighbours are the same local index on the tree-neighbour nodes, one flow per edge and direction.
    const int node = position / 4, local = position % 4;
    const cost::DoubleBinaryTree tree = cost::double_binary_tree(8, node);
    std::multiset<int> expected;
    for (const cost::TreeNeighbours& t : tree.trees) {
      if (t.parent >= 0) expected.insert(t.parent * 4 + local);
      for (int child : t.children) expected.insert(child * 4 + local);
    }
    std::multiset<int> sent_to, received_from;
    for (const auto& send : plan.sends) {
      sent_to.insert(send.peer);
      CHECK(send.bytes == simtrain::testing::Approx(share / 2 / kInterEff).epsilon(kRel));
    }
    for (const auto& receive : plan.receives) {
      received_from.insert(receive.peer);
      CHECK(receive.bytes == simtrain::testing::Approx(share / 2 / kInterEff).epsilon(kRel));
    }
    CHECK(sent_to == expected);
    CHECK(received_from == expected);
    CHECK(plan.sends.size() <= 4);  // the peak volume, 2 shares, in halves
    // The intra-node ring phases are those of the hierarchical ring.
    CHECK(plan.intra_node_before_s > 0);
    CHECK(plan.intra_node_after_s == plan.intra_node_before_s);
  }
}

TEST_CASE(
    "without a forced algorithm, small all-reduces over many nodes take the tree, large ones the ring") {
  const MultiNode many{ranks(64 * 2), 2};
  const auto small = cost::plan_collective(CollectiveKind::AllReduce, 64e3, many.layout(0), efficiencies());
  CHECK(small.algorithm == cost::NcclAlgorithm::Tree);
  const MultiNode few{ranks(8 * 2), 2};  // up to 4 nodes the tree moves no more than the ring
  const auto large = cost::plan_collective(CollectiveKind::AllReduce, 1e9, few.layout(0), efficiencies());
  CHECK(large.algorithm == cost::NcclAlgorithm::Ring);
  // The crossing point is where the estimates meet: the ring's 2(M-1) step latencies against the tree's
  // 2 ceil(log2 M), and the flat ring's 2(N-1)/N of the share against the tree's peak volume of 2 (M = 64
  // nodes, N = 128 ranks).
  const double step = 5e-6 + kStepLatency, bandwidth = 10e9 * kInterEff, m = 64, n = 128;
  const double crossing = (2 * (m - 1) - 2 * 6) * step / ((2 - 2 * (n - 1) / n) / bandwidth) * 2;
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, crossing * 0.99, many.layout(0), efficiencies())
            .algorithm == cost::NcclAlgorithm::Tree);
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, crossing * 1.01, many.layout(0), efficiencies())
            .algorithm == cost::NcclAlgorithm::Ring);
  // Other collectives are rings whatever is forced.
  cost::CollectiveLayout forced = many.layout(0);
  forced.forced.algorithm = cost::NcclAlgorithm::Tree;
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 64e3, forced, efficiencies()).algorithm ==
        cost::NcclAlgorithm::Ring);
}

TEST_CASE("a forced protocol prices the intra-node ring with that protocol even where another is faster") {
  const std::vector<int> members = ranks(8);
  const cost::CommunicatorPlacement placement = cost::place_communicator(members, 8);
  cost::CollectiveLayout layout{&members, &placement, 0, 8, kNvlinkBandwidth, kNvlinkLatency};
  layout.intra_node_protocols = kNvlinkProtocols;
  const double bandwidth = kNvlinkBandwidth * kIntraEff, s = 1e9, volume = 7.0 / 8 * s;
  layout.forced.protocol = cost::NcclProtocol::LL128;
  const auto plan = cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies());
  CHECK(plan.protocol == cost::NcclProtocol::LL128);
  CHECK(plan.intra_node_before_s == simtrain::testing::Approx(volume / (bandwidth * 0.5)).epsilon(kRel));
  CHECK(plan.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + 2e-6)).epsilon(kRel));
  layout.forced.protocol.reset();
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies()).protocol ==
        cost::NcclProtocol::Simple);
  // With LL figures, the smallest buffers take LL's shorter steps.
  layout.intra_node_protocols.ll_step_latency_s = 0.5e-6;
  layout.intra_node_protocols.ll_bandwidth_fraction = 0.25;
  const auto tiny = cost::plan_collective(CollectiveKind::AllReduce, 1e3, layout, efficiencies());
  CHECK(tiny.protocol == cost::NcclProtocol::LL);
  CHECK(tiny.intra_node_before_s ==
        simtrain::testing::Approx(7.0 / 8 * 1e3 / (bandwidth * 0.25)).epsilon(kRel));
  CHECK(tiny.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + 0.5e-6)).epsilon(kRel));
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, s, layout, efficiencies()).protocol ==
        cost::NcclProtocol::Simple);
}

TEST_CASE("all-to-all across nodes is one flow per node pair, spread over the node's GPUs") {
  // 5 nodes of 2 GPUs, N = 10: node i's flow to node k carries L*L*S/N and leaves from local index k mod 2.
  const MultiNode c{ranks(10), 2};
  const double s = 10e6, pair = 2 * 2 * s / 10;
  std::map<std::pair<int, int>, int> node_pairs;
  for (int position = 0; position < 10; ++position) {
    const auto plan = cost::plan_collective(CollectiveKind::AllToAll, s, c.layout(position), efficiencies());
    CHECK(plan.steps == 1);
    CHECK(plan.intra_node_before_s ==
          simtrain::testing::Approx(s / 10 / (kNvlinkBandwidth * kIntraEff) + kNvlinkLatency + kStepLatency)
              .epsilon(kRel));
    for (const auto& send : plan.sends) {
      CHECK(send.bytes == simtrain::testing::Approx(pair / kInterEff).epsilon(kRel));
      CHECK(send.peer / 2 != position / 2);
      CHECK(position % 2 == (send.peer / 2) % 2);  // sent by local index (destination node) mod L
      CHECK(send.peer % 2 == (position / 2) % 2);  // received by local index (source node) mod L
      ++node_pairs[{position / 2, send.peer / 2}];
    }
  }
  CHECK(node_pairs.size() == 5 * 4);
  for (const auto& [pair_of_nodes, count] : node_pairs) CHECK(count == 1);
  // The reference mode keeps one flow per rank pair.
  cost::CollectiveLayout pairwise = c.layout(0);
  pairwise.pairwise_all_to_all = true;
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s, pairwise, efficiencies()).sends.size() == 9);
}

TEST_CASE(
    "point-to-point bytes across nodes follow the point-to-point efficiency where the platform gives one") {
  // 5 nodes of 2 GPUs: the all-to-all's node-pair flows and sendrecv's flow to the next node; inside a node
  // the intra-node efficiency stays.
  const MultiNode c{ranks(10), 2};
  const double s = 10e6, pair = 2 * 2 * s / 10, p2p = 0.8;
  cost::CollectiveLayout layout = c.layout(0);
  layout.point_to_point_inter_node_efficiency = p2p;
  const auto all_to_all = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
  REQUIRE(!all_to_all.sends.empty());
  for (const auto& send : all_to_all.sends)
    CHECK(send.bytes == simtrain::testing::Approx(pair / p2p).epsilon(kRel));
  layout.position = 1;  // its next member, rank 2, is on the next node
  const auto sendrecv = cost::plan_collective(CollectiveKind::SendRecv, s, layout, efficiencies());
  REQUIRE(sendrecv.sends.size() == 1);
  CHECK(sendrecv.sends[0].bytes == simtrain::testing::Approx(s / p2p).epsilon(kRel));
  // Rings keep the inter-node efficiency: the same flows with it unset.
  const auto all_gather = cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies());
  layout.point_to_point_inter_node_efficiency = 0;
  const auto unset = cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies());
  REQUIRE(!all_gather.sends.empty());
  REQUIRE(all_gather.sends.size() == unset.sends.size());
  for (std::size_t i = 0; i < unset.sends.size(); ++i)
    CHECK(all_gather.sends[i].bytes == unset.sends[i].bytes);
  // Unset, point-to-point is priced as the rings.
  CHECK(cost::plan_collective(CollectiveKind::SendRecv, s, layout, efficiencies()).sends[0].bytes ==
        simtrain::testing::Approx(s / kInterEff).epsilon(kRel));
}

TEST_CASE("NCCL's all-to-all across nodes pays the proxy's chunk once per peer on another node") {
  // 5 nodes of 2 GPUs: each GPU has 8 peers on other nodes; the flows do not change.
  const MultiNode c{ranks(10), 2};
  const double s = 10e6, chunk_s = 3e-6;
  cost::CollectiveLayout layout = c.layout(3);
  const auto without = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
  layout.point_to_point_proxy_chunk_s = chunk_s;
  const auto with = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
  CHECK(with.software_latency_s ==
        simtrain::testing::Approx(without.software_latency_s + 8 * chunk_s).epsilon(kRel));
  REQUIRE(with.sends.size() == without.sends.size());
  for (std::size_t i = 0; i < with.sends.size(); ++i) CHECK(with.sends[i].bytes == without.sends[i].bytes);
  // Whatever the bytes: a hundredth of the buffer pays the same.
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s / 100, layout, efficiencies()).software_latency_s ==
        with.software_latency_s);
  // The flex dispatcher's kernels send per node without NCCL's proxy: no such cost.
  layout.node_dedup = {.top_k = 4, .experts = 20};
  layout.point_to_point_proxy_chunk_s = 0;
  const auto flex_without = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
  layout.point_to_point_proxy_chunk_s = chunk_s;
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies()).software_latency_s ==
        flex_without.software_latency_s);
}

TEST_CASE("the proxy's chunk rate caps point-to-point efficiency across nodes, not the rings'") {
  // A proxy share below the efficiency replaces it for all-to-all and sendrecv flows across nodes; one above
  // it changes nothing; rings never see it.
  const MultiNode c{ranks(10), 2};
  const double s = 10e6, pair = 2 * 2 * s / 10, p2p = 0.9;
  cost::CollectiveLayout layout = c.layout(0);
  layout.point_to_point_inter_node_efficiency = p2p;
  const auto all_gather = cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies());
  for (const double share : {0.45, 1.2}) {
    layout.point_to_point_proxy_line_share = share;
    const double reached = std::min(p2p, share);
    const auto all_to_all = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
    REQUIRE(!all_to_all.sends.empty());
    for (const auto& send : all_to_all.sends)
      CHECK(send.bytes == simtrain::testing::Approx(pair / reached).epsilon(kRel));
    cost::CollectiveLayout next_node = layout;
    next_node.position = 1;
    const auto sendrecv = cost::plan_collective(CollectiveKind::SendRecv, s, next_node, efficiencies());
    REQUIRE(sendrecv.sends.size() == 1);
    CHECK(sendrecv.sends[0].bytes == simtrain::testing::Approx(s / reached).epsilon(kRel));
    const auto ring = cost::plan_collective(CollectiveKind::AllGather, s, layout, efficiencies());
    REQUIRE(ring.sends.size() == all_gather.sends.size());
    for (std::size_t i = 0; i < ring.sends.size(); ++i)
      CHECK(ring.sends[i].bytes == all_gather.sends[i].bytes);
  }
}

TEST_CASE("routed once per node, a token dispatch sends the chance that a node holds one of its experts") {
  // Top-1: a token reaches one node either way, so nothing is saved.
  CHECK(cost::node_dedup_fraction(1, 64, 8) == simtrain::testing::Approx(1).epsilon(kRel));
  // Top-2 of 4 experts on 2 nodes: the other node is hit unless both picks are local, 1 - (2/4)(1/3) = 5/6,
  // where NCCL sends k/M = 1 copy on average.
  CHECK(cost::node_dedup_fraction(2, 4, 2) == simtrain::testing::Approx(5.0 / 6).epsilon(kRel));
  // Every expert on its own node (E = M, top-k distinct): every copy crosses anyway.
  CHECK(cost::node_dedup_fraction(4, 8, 8) == simtrain::testing::Approx(1).epsilon(kRel));
  // DeepSeek-V3's top-8 of 256 over 4 nodes: 1 - C(192, 8) / C(256, 8) per node against 2 copies.
  double q = 1;
  for (int i = 0; i < 8; ++i) q *= (192.0 - i) / (256.0 - i);
  CHECK(cost::node_dedup_fraction(8, 256, 4) == simtrain::testing::Approx(4 * (1 - q) / 8).epsilon(kRel));
  CHECK(cost::node_dedup_fraction(8, 256, 4) < 0.5);
  CHECK(cost::node_dedup_fraction(8, 256, 1) == 1);

  // On 5 nodes of 2 GPUs the flows shrink by the fraction, and each GPU forwards over NVLink the
  // (M-1)/M x (L-1)/L of the buffer that reached its node for its neighbour; over NVLink a token goes
  // once to each GPU holding one of its experts, the same fraction over the 10 GPUs.
  const MultiNode c{ranks(10), 2};
  const double s = 10e6, pair = 2 * 2 * s / 10;
  cost::CollectiveLayout layout = c.layout(3);
  layout.node_dedup = {.top_k = 4, .experts = 20};
  const double fraction = cost::node_dedup_fraction(4, 20, 5);
  const auto plan = cost::plan_collective(CollectiveKind::AllToAll, s, layout, efficiencies());
  REQUIRE(!plan.sends.empty());
  for (const auto& send : plan.sends)
    CHECK(send.bytes == simtrain::testing::Approx(fraction * pair / kInterEff).epsilon(kRel));
  // DeepEP's NVLink phase runs beside the flows; HybridEP's forwards what came over the network after it
  // came, so it follows them.
  const double nvlink = (s / 10 + 4.0 / 5 * 1.0 / 2 * s) * cost::node_dedup_fraction(4, 20, 10);
  const double nvlink_s = nvlink / (kNvlinkBandwidth * kIntraEff) + kNvlinkLatency + kStepLatency;
  CHECK(plan.intra_node_serial_s == 0);
  CHECK(plan.intra_node_before_s == simtrain::testing::Approx(nvlink_s).epsilon(kRel));
  cost::CollectiveLayout in_series = layout;
  in_series.node_dedup.phases_in_series = true;
  const auto series = cost::plan_collective(CollectiveKind::AllToAll, s, in_series, efficiencies());
  CHECK(series.intra_node_before_s == 0);
  CHECK(series.intra_node_serial_s == simtrain::testing::Approx(nvlink_s).epsilon(kRel));
  REQUIRE(series.sends.size() == plan.sends.size());
  for (std::size_t i = 0; i < plan.sends.size(); ++i) CHECK(series.sends[i].bytes == plan.sends[i].bytes);

  // NCCL's proxy rate caps NCCL's all-to-all across nodes, not the dispatcher's kernels, which post their
  // sends from the GPU.
  cost::CollectiveLayout proxied = layout;
  proxied.point_to_point_proxy_line_share = kInterEff / 2;
  for (const auto& send : cost::plan_collective(CollectiveKind::AllToAll, s, proxied, efficiencies()).sends)
    CHECK(send.bytes == simtrain::testing::Approx(fraction * pair / kInterEff).epsilon(kRel));
  proxied.node_dedup = {};
  for (const auto& send : cost::plan_collective(CollectiveKind::AllToAll, s, proxied, efficiencies()).sends)
    CHECK(send.bytes == simtrain::testing::Approx(pair / (kInterEff / 2)).epsilon(kRel));

  // Where the profile knows the flex dispatcher's own share of the NVLink line, the forwarding runs at it;
  // the bytes across nodes keep NCCL's figures.
  calibration::Efficiencies flex = efficiencies();
  flex.moe_flex_dispatch_intra_node = 0.5;
  const auto own = cost::plan_collective(CollectiveKind::AllToAll, s, layout, flex);
  CHECK(own.intra_node_before_s ==
        simtrain::testing::Approx(nvlink / (kNvlinkBandwidth * 0.5) + kNvlinkLatency + kStepLatency)
            .epsilon(kRel));
  REQUIRE(own.sends.size() == plan.sends.size());
  for (std::size_t i = 0; i < plan.sends.size(); ++i) CHECK(own.sends[i].bytes == plan.sends[i].bytes);
}

TEST_CASE(
    "inside one node the flex dispatcher's all-to-all sends each token once per GPU at its own share of "
    "NVLink, NCCL's every copy at NCCL's") {
  const std::vector<int> members = ranks(4);
  const cost::CommunicatorPlacement placement = cost::place_communicator(members, 4);
  cost::CollectiveLayout layout{&members, &placement, 1, 4, kNvlinkBandwidth, kNvlinkLatency};
  calibration::Efficiencies e = efficiencies();
  e.moe_flex_dispatch_intra_node = 0.5;
  const double s = 1e6, nvlink = 0.75e6;
  // NCCL's all-to-all (no per-node routing) ignores the dispatcher's figure and sends every copy.
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s, layout, e).intra_node_before_s ==
        simtrain::testing::Approx(nvlink / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
  // The flex dispatcher sends a token's row once to each GPU holding one of its top-8 experts (16 of the
  // 64 on each GPU): 4 (1 - C(48, 8) / C(64, 8)) rows where NCCL's sends 8.
  layout.node_dedup = {.top_k = 8, .experts = 64};
  double q = 1;
  for (int i = 0; i < 8; ++i) q *= (48.0 - i) / (64.0 - i);
  const double rows = 4 * (1 - q) / 8;
  CHECK(rows < 0.5);
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s, layout, e).intra_node_before_s ==
        simtrain::testing::Approx(rows * nvlink / (kNvlinkBandwidth * 0.5)).epsilon(kRel));
  // Unknown (0): the dispatcher's rows at NCCL's figure.
  e.moe_flex_dispatch_intra_node = 0;
  CHECK(cost::plan_collective(CollectiveKind::AllToAll, s, layout, e).intra_node_before_s ==
        simtrain::testing::Approx(rows * nvlink / (kNvlinkBandwidth * kIntraEff)).epsilon(kRel));
}

}  // namespace simtrain

namespace simtrain {

// The layout of rank `position` of `c` on NVLink nodes whose network prices NCCL's protocols as EFA does:
// 8 channels, 15 us per Simple chunk, 4 us per LL channel and network step.
cost::CollectiveLayout efa_like_layout(const MultiNode& c, int position) {
  cost::CollectiveLayout layout = c.layout(position);
  layout.intra_node_protocols = kNvlinkProtocols;
  layout.network = {8, 15e-6, 4e-6, cost::kNcclDefaultBufferBytes};
  return layout;
}

TEST_CASE("where the network's protocols are priced, one protocol runs the whole collective") {
  const MultiNode c{ranks(16), 8};  // 2 nodes of 8 GPUs
  cost::CollectiveLayout layout = efa_like_layout(c, 3);
  layout.forced.algorithm = cost::NcclAlgorithm::Tree;
  const double share = 8e3 / 8;

  const auto small = cost::plan_collective(CollectiveKind::AllReduce, 8e3, layout, efficiencies());
  CHECK(small.protocol == cost::NcclProtocol::LL);
  // The node has no LL figures: its phases run under LL128, the nearest.
  CHECK(small.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + 2e-6)).epsilon(kRel));
  // Tree LL: 2 network steps x 1 channel (8 kB < 2 x 512 x 8) x 4 us, at 1/3.8 of the bandwidth.
  CHECK(small.software_latency_s == simtrain::testing::Approx(2 * kStepLatency + 2 * 4e-6).epsilon(kRel));
  REQUIRE(!small.sends.empty());
  CHECK(small.sends[0].bytes == simtrain::testing::Approx(share / 2 / kInterEff * 3.8).epsilon(kRel));

  const auto large = cost::plan_collective(CollectiveKind::AllReduce, 1e9, layout, efficiencies());
  CHECK(large.protocol == cost::NcclProtocol::Simple);
  CHECK(large.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + 12e-6)).epsilon(kRel));
  CHECK(large.sends[0].bytes == simtrain::testing::Approx(1e9 / 8 / 2 / kInterEff).epsilon(kRel));
  CHECK(large.software_latency_s > 2 * kStepLatency + 15e-6);

  // A forced protocol holds even where the other is faster.
  layout.forced.protocol = cost::NcclProtocol::Simple;
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, 8e3, layout, efficiencies()).protocol ==
        cost::NcclProtocol::Simple);

  // Forced LL128 holds inside the nodes (NCCL's networks have no LL128 figures here), even for 1 GB.
  layout.forced.protocol = cost::NcclProtocol::LL128;
  const auto ll128 = cost::plan_collective(CollectiveKind::AllReduce, 1e9, layout, efficiencies());
  CHECK(ll128.protocol == cost::NcclProtocol::LL128);
  CHECK(ll128.intra_node_latency_s ==
        simtrain::testing::Approx(2 * 7 * (kNvlinkLatency + 2e-6)).epsilon(kRel));

  // Without network costs the plan is the one before: the intra-node protocol, nothing added.
  layout.network = {};
  layout.forced.protocol.reset();
  const auto plain = cost::plan_collective(CollectiveKind::AllReduce, 8e3, layout, efficiencies());
  CHECK(plain.protocol == cost::NcclProtocol::LL128);
  CHECK(plain.software_latency_s == simtrain::testing::Approx(2 * kStepLatency).epsilon(kRel));
  CHECK(plain.sends[0].bytes == simtrain::testing::Approx(share / 2 / kInterEff).epsilon(kRel));
}

TEST_CASE("a flat ring across nodes pays the network's chunk costs only on the steps that leave a node") {
  // 4 nodes of 8 GPUs. A ring's chunk crosses 32 ranks per pass, but only 4 of its hops leave a node (3
  // before the pass ends); the NVLink hops are the intra-node phases' steps.
  const MultiNode c{ranks(32), 8};
  cost::CollectiveLayout layout = efa_like_layout(c, 5);
  layout.forced.protocol = cost::NcclProtocol::Simple;
  // 64 kB: one Simple chunk per channel, so the network steps set the chunk count: (3 + 1) x 15 us.
  const auto gather = cost::plan_collective(CollectiveKind::AllGather, 64e3, layout, efficiencies());
  CHECK(gather.steps == 3);
  CHECK(gather.software_latency_s == simtrain::testing::Approx(3 * kStepLatency + 4 * 15e-6).epsilon(kRel));
  // An all-reduce's two passes: (6 + 1) x 15 us, not the (62 + 1) of every step of the flat ring.
  layout.forced.algorithm = cost::NcclAlgorithm::Ring;
  const auto reduce = cost::plan_collective(CollectiveKind::AllReduce, 64e3, layout, efficiencies());
  CHECK(reduce.steps == 6);
  CHECK(reduce.software_latency_s == simtrain::testing::Approx(6 * kStepLatency + 7 * 15e-6).epsilon(kRel));
}

TEST_CASE(
    "under NVLS-tree a chunk meets no chain of GPUs inside its node: NCCL's tree chunk rule at its depth") {
  // 2 nodes of 8 GPUs, 32 MB under Simple with NCCL's default 4 MiB buffer (512 KiB steps), 8 channels.
  // NCCL's tree passes a chunk through the node's 7 other GPUs and 1 network level (depth 8): chunks halve
  // to 64 KiB, 62 per channel. NVLS-tree reduces the node in one NVLS step (depth 1): 256 KiB, 16.
  const MultiNode c{ranks(16), 8};
  cost::CollectiveLayout layout = efa_like_layout(c, 3);
  layout.nvls_bandwidth_Bps = 250e9;
  layout.nvls_latency_s = 20e-6;
  layout.forced.protocol = cost::NcclProtocol::Simple;
  layout.forced.algorithm = cost::NcclAlgorithm::Tree;
  const auto tree = cost::plan_collective(CollectiveKind::AllReduce, 32e6, layout, efficiencies());
  layout.forced.algorithm = cost::NcclAlgorithm::NVLSTree;
  const auto nvls_tree = cost::plan_collective(CollectiveKind::AllReduce, 32e6, layout, efficiencies());
  CHECK(tree.algorithm == cost::NcclAlgorithm::Tree);
  CHECK(nvls_tree.algorithm == cost::NcclAlgorithm::NVLSTree);
  CHECK(tree.software_latency_s - nvls_tree.software_latency_s ==
        simtrain::testing::Approx((63 - 17) * 15e-6).epsilon(kRel));
}

TEST_CASE("a tuner plugin's region forces the collective's algorithm and protocol; the user's come first") {
  // 8 nodes of 8 GPUs under aws-ofi-nccl's p5 regions: 128 MB is the LL128 ring's.
  const MultiNode c{ranks(64), 8};
  cost::CollectiveLayout layout = efa_like_layout(c, 9);
  layout.tuner_plugin = NcclTunerPlugin::AwsOfiNcclP5;
  const auto plugin = cost::plan_collective(CollectiveKind::AllReduce, 128e6, layout, efficiencies());
  CHECK(plugin.algorithm == cost::NcclAlgorithm::Ring);
  CHECK(plugin.protocol == cost::NcclProtocol::LL128);
  // Its NVLink phases run LL128 at NCCL's tuner share (0.92), not at the node's own ring figure.
  CHECK(layout.intra_node_protocols.ll128_bandwidth_fraction != 0.92);
  CHECK(plugin.intra_node_before_s ==
        simtrain::testing::Approx(7.0 / 8 * 128e6 / (kNvlinkBandwidth * kIntraEff * 0.92)).epsilon(kRel));
  layout.forced.algorithm = cost::NcclAlgorithm::Tree;
  CHECK(cost::plan_collective(CollectiveKind::AllReduce, 128e6, layout, efficiencies()).algorithm ==
        cost::NcclAlgorithm::Tree);
  // The all-gather has no regions: NCCL's own ring.
  layout.forced.algorithm.reset();
  CHECK(cost::plan_collective(CollectiveKind::AllGather, 128e6, layout, efficiencies()).protocol ==
        cost::NcclProtocol::Simple);
}

}  // namespace simtrain
