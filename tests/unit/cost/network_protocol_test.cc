// Specification of NCCL's protocols across the network: the tree's Simple chunk rule, LL's channel count,
// the costs each protocol adds, the choice between them, and no change where a fabric has no such costs.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cmath>

#include "simulator/cost/network_protocol.h"

namespace simtrain {
namespace {

constexpr double kKiB = 1024, kMiB = 1024 * 1024;

// The 2-node p4de run of validation/reference/nccl/: 4 NICs (8 channels), NCCL_BUFFSIZE = 8 MiB.
cost::NetworkTransport efa() { return {8, 15e-6, 4e-6, 8 * kMiB}; }

cost::NetworkShape tree_over_two_nodes(double bytes) {
  cost::NetworkShape shape;
  shape.algorithm = cost::NcclAlgorithm::Tree;
  shape.bytes = bytes;
  shape.node_volume = bytes;  // a 2-node tree moves the buffer once each way
  shape.node_bandwidth_Bps = 45e9;
  shape.ranks = 16;
  shape.nodes = 2;
  shape.network_steps = 2;
  shape.tree_depth = 8;  // 7 GPUs of a node's chain, 1 level across the 2 nodes
  return shape;
}

}  // namespace

TEST_CASE("the tree's Simple chunk halves until every channel has 8 x depth chunks, down to 128 KiB") {
  // 8 channels, depth 8 - 1 + log2(2) = 8, a 1 MiB step: 64 chunks per channel from 512 MiB up.
  CHECK(cost::nccl_tree_chunk_bytes(2048 * kMiB, 8, 8, 8 * kMiB) == 1 * kMiB);
  CHECK(cost::nccl_tree_chunk_bytes(512 * kMiB, 8, 8, 8 * kMiB) == 1 * kMiB);
  CHECK(cost::nccl_tree_chunk_bytes(256 * kMiB, 8, 8, 8 * kMiB) == 512 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(128 * kMiB, 8, 8, 8 * kMiB) == 256 * kKiB);
  // Below 8 x depth chunks of 128 KiB the second rule (4 x depth, down to 64 KiB) takes over, then the third.
  CHECK(cost::nccl_tree_chunk_bytes(64 * kMiB, 8, 8, 8 * kMiB) == 128 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(32 * kMiB, 8, 8, 8 * kMiB) == 128 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(16 * kMiB, 8, 8, 8 * kMiB) == 64 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(4 * kMiB, 8, 8, 8 * kMiB) == 64 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(2 * kMiB, 8, 8, 8 * kMiB) == 32 * kKiB);
  CHECK(cost::nccl_tree_chunk_bytes(8, 8, 8, 8 * kMiB) == 32 * kKiB);
  // NCCL's default 4 MiB buffer starts from 512 KiB chunks.
  CHECK(cost::nccl_tree_chunk_bytes(2048 * kMiB, 8, 8, 4 * kMiB) == 512 * kKiB);
}

TEST_CASE("LL drops channels while each would get less than 512 threads x 8 bytes (x ranks on a ring)") {
  CHECK(cost::nccl_ll_channels(8, 8, cost::NcclAlgorithm::Tree, 16) == 1);
  CHECK(cost::nccl_ll_channels(4 * kKiB, 8, cost::NcclAlgorithm::Tree, 16) == 1);
  CHECK(cost::nccl_ll_channels(8 * kKiB, 8, cost::NcclAlgorithm::Tree, 16) == 2);
  CHECK(cost::nccl_ll_channels(16 * kKiB, 8, cost::NcclAlgorithm::Tree, 16) == 4);
  CHECK(cost::nccl_ll_channels(32 * kKiB, 8, cost::NcclAlgorithm::Tree, 16) == 8);
  CHECK(cost::nccl_ll_channels(1 * kMiB, 8, cost::NcclAlgorithm::Tree, 16) == 8);
  CHECK(cost::nccl_ll_channels(32 * kKiB, 8, cost::NcclAlgorithm::Ring, 16) == 1);
  CHECK(cost::nccl_ll_channels(512 * kKiB, 8, cost::NcclAlgorithm::Ring, 16) == 8);
}

TEST_CASE("Simple pays the chunk cost once per chunk a channel sends, plus one to fill") {
  const cost::NetworkTransport t = efa();
  // 64 MiB on the tree: 128 KiB chunks, 64 MiB / (8 x 128 KiB) = 64 per channel.
  const auto simple = cost::network_phase(tree_over_two_nodes(64 * kMiB), t, cost::NcclProtocol::Simple);
  CHECK(simple.protocol == cost::NcclProtocol::Simple);
  CHECK(simple.bandwidth_fraction == 1);
  CHECK(simple.latency_s == simtrain::testing::Approx(65 * 15e-6).epsilon(1e-12));
  // A flat all-reduce ring over 2 nodes crosses the network at 2 of its steps, and sends at least one chunk
  // per such step (1 MiB: 240 KiB per channel, one chunk).
  cost::NetworkShape ring = tree_over_two_nodes(1 * kMiB);
  ring.algorithm = cost::NcclAlgorithm::Ring;
  ring.node_volume = 2.0 * 15 / 16 * kMiB;
  ring.network_steps = 2;
  CHECK(cost::network_phase(ring, t, cost::NcclProtocol::Simple).latency_s ==
        simtrain::testing::Approx(3 * 15e-6).epsilon(1e-12));
  ring.bytes = 1024 * kMiB;
  ring.node_volume = 2.0 * 15 / 16 * 1024 * kMiB;  // 240 MiB per channel in 1 MiB steps
  CHECK(cost::network_phase(ring, t, cost::NcclProtocol::Simple).latency_s ==
        simtrain::testing::Approx(241 * 15e-6).epsilon(1e-12));
}

TEST_CASE("LL pays the proxy per active channel per network step, at NCCL's share of the bandwidth") {
  const cost::NetworkTransport t = efa();
  const auto ll = cost::network_phase(tree_over_two_nodes(16 * kKiB), t, cost::NcclProtocol::LL);
  CHECK(ll.protocol == cost::NcclProtocol::LL);
  CHECK(ll.latency_s == simtrain::testing::Approx(2 * 4 * 4e-6).epsilon(1e-12));
  CHECK(ll.bandwidth_fraction == simtrain::testing::Approx(1 / 3.8).epsilon(1e-12));
  cost::NetworkShape ring = tree_over_two_nodes(16 * kKiB);
  ring.algorithm = cost::NcclAlgorithm::Ring;
  CHECK(cost::network_phase(ring, t, cost::NcclProtocol::LL).bandwidth_fraction == 0.25);
}

TEST_CASE("unforced, small buffers take LL and large ones Simple, where their estimates cross") {
  const cost::NetworkTransport t = efa();
  CHECK(cost::network_phase(tree_over_two_nodes(8), t, std::nullopt).protocol == cost::NcclProtocol::LL);
  CHECK(cost::network_phase(tree_over_two_nodes(1024 * kMiB), t, std::nullopt).protocol ==
        cost::NcclProtocol::Simple);
  for (double bytes = 8; bytes <= 2048 * kMiB; bytes *= 2) {
    CAPTURE(bytes);
    const auto shape = tree_over_two_nodes(bytes);
    auto time_s = [&](const cost::NetworkPhase& p) {
      return p.latency_s + shape.node_volume / (shape.node_bandwidth_Bps * p.bandwidth_fraction);
    };
    const double ll = time_s(cost::network_phase(shape, t, cost::NcclProtocol::LL));
    const double simple = time_s(cost::network_phase(shape, t, cost::NcclProtocol::Simple));
    CHECK(time_s(cost::network_phase(shape, t, std::nullopt)) == std::min(ll, simple));
  }
}

TEST_CASE("a fabric without network costs keeps Simple at full bandwidth and no extra latency") {
  cost::NetworkTransport none;
  none.channels = 16;
  for (auto forced : {std::optional<cost::NcclProtocol>{}, std::optional(cost::NcclProtocol::LL)}) {
    const auto phase = cost::network_phase(tree_over_two_nodes(1 * kMiB), none, forced);
    CHECK(phase.protocol == cost::NcclProtocol::Simple);
    CHECK(phase.latency_s == 0);
    CHECK(phase.bandwidth_fraction == 1);
  }
}

}  // namespace simtrain
