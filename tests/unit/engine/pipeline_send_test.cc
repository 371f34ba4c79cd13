// A pipeline stage's send to the next stage (a trace's Send and Recv) is NCCL's point-to-point send: inside a
// node an NVLink flow, across nodes a flow at what NCCL's point-to-point reaches of the NIC, no faster than
// its proxy's chunk rate, on a uniform network of one GPU per node.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/compute_cost.h"
#include "simulator/cost/nccl_p2p_proxy.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"
#include "tests/support/uniform_cluster.h"

namespace simtrain {
namespace {

constexpr double kNicBandwidth = testing::kUniformNicBandwidth;  // bytes/s: the route's bottleneck
constexpr double kRouteLatency = testing::kUniformRouteLatency;  // seconds: the NIC latency, up and down
constexpr double kBytes = 256.0 * 1024 * 1024;

// Two nodes of one GPU each (tests/support/uniform_cluster.h) whose proxy takes proxy_chunk_s per chunk.
platform::ClusterSpec two_nodes(double proxy_chunk_s) {
  platform::ClusterSpec spec = testing::uniform_cluster(2, "two-nodes");
  spec.nics.nccl_p2p_chunk_s = proxy_chunk_s;
  return spec;
}

// Rank 0 sends kBytes to rank 1, which receives them: one program per rank.
trace::Trace one_send() {
  trace::Trace t;
  t.world_size = 2;
  for (const auto type : {trace::OpType::Send, trace::OpType::Recv}) {
    trace::Program program;
    program.name = type == trace::OpType::Send ? "stage 0" : "stage 1";
    program.streams = {"pp"};
    trace::Op op;
    op.name = "activations";
    op.type = type;
    op.p2p.peer_offset = type == trace::OpType::Send ? 1 : -1;
    op.p2p.bytes = kBytes;
    program.ops.push_back(op);
    t.programs.push_back(program);
  }
  t.rank_program = {0, 1};
  t.groups.push_back({"pp", {{0, 1}}});
  return t;
}

double simulated_send_s(double inter_node_efficiency, double proxy_chunk_s) {
  return testing::in_child_process([=] {
    cost::ProgramCosts costs;
    costs.duration_s = {{0.0}, {0.0}};
    calibration::Efficiencies e;
    e.nccl_intra_node = 1.0;
    e.nccl_inter_node = inter_node_efficiency;
    e.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = two_nodes(proxy_chunk_s);
    return engine::replay(one_send(), costs, e, source, engine::ReplayOptions{}).makespan_s;
  });
}

}  // namespace

TEST_CASE("a send across nodes moves at what NCCL's point-to-point reaches of the NIC") {
  // The proxy's default chunk rate (45 GB/s) is above this 25 GB/s NIC: the efficiency alone binds. Two
  // point-to-point channels of 14 GB/s to the peer exceed the NIC too.
  for (const double efficiency : {1.0, 0.8}) {
    CAPTURE(efficiency);
    CHECK(simulated_send_s(efficiency, 0) ==
          simtrain::testing::Approx(kRouteLatency + kBytes / (efficiency * kNicBandwidth)).epsilon(1e-6));
  }
}

TEST_CASE("a send across nodes moves no faster than NCCL's proxy moves its chunks") {
  // 128 KiB every 20 us is 6.55 GB/s, a quarter of the NIC: the proxy binds below the 0.8 efficiency.
  const double proxy_Bps = cost::kNcclP2pNetChunkBytes / 20e-6;
  CHECK(simulated_send_s(0.8, 20e-6) ==
        simtrain::testing::Approx(kRouteLatency + kBytes / proxy_Bps).epsilon(1e-6));
}

}  // namespace simtrain
