// The replay of an imported trace's host thread: a kernel waits for the host op that launches it, a host op
// after a synchronisation waits for the GPU, and the time the GPU spends waiting for launches is host-bound
// time, not compute. Durations are multiples of 0.25 ms, so the closed forms below are exact.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <functional>

#include "simulator/cost/compute_cost.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"
#include "tests/support/uniform_cluster.h"

namespace simtrain {
namespace {

constexpr std::uint8_t kHost = 0, kGpu = 1, kSecondGpuStream = 2;

trace::Op host_op(std::vector<std::uint32_t> deps = {}) {
  trace::Op op;
  op.name = "host";
  op.stream = kHost;
  op.compute.kind = trace::ComputeKind::Host;
  op.deps = std::move(deps);
  return op;
}

trace::Op kernel(std::uint32_t launched_by, std::uint8_t stream = kGpu) {
  trace::Op op;
  op.name = "kernel";
  op.stream = stream;
  op.deps = {launched_by};
  return op;
}

struct Scenario {
  trace::Trace trace;
  cost::ProgramCosts costs;
};

Scenario one_rank(std::vector<trace::Op> ops, std::vector<double> durations_s) {
  Scenario s;
  s.trace.world_size = 1;
  s.trace.programs.push_back({"rank0", {"host", "cuda:7", "cuda:8"}, std::move(ops)});
  s.trace.rank_program = {0};
  s.costs.duration_s = {std::move(durations_s)};
  return s;
}

engine::PlatformSource one_gpu_nodes(int nodes) {
  engine::PlatformSource source;
  source.spec = testing::uniform_cluster(nodes);
  return source;
}

engine::RankTimes replayed(const Scenario& s, double& makespan) {
  const std::vector<double> v = testing::run_in_child([&] {
    const engine::PlatformSource source = one_gpu_nodes(1);
    const engine::ReplayResult r = engine::replay(s.trace, s.costs, calibration::Efficiencies{}, source, {});
    const engine::RankTimes& t = r.ranks[0];
    return std::vector<double>{r.makespan_s, t.compute_s, t.host_bound_s, t.idle_s};
  });
  makespan = v[0];
  engine::RankTimes t;
  t.compute_s = v[1];
  t.host_bound_s = v[2];
  t.idle_s = v[3];
  return t;
}

// Two single-GPU nodes: rank 0's host takes 1 ms to launch a 0.25 ms kernel while its send to rank 1,
// posted at once on a stream of its own, waits for rank 1's host to post the receive after 2 ms.
struct TwoRankTimes {
  double makespan_s, host_bound_s, pipeline_bubble_s;
};
TwoRankTimes send_beside_a_late_launch() {
  const std::vector<double> v = testing::run_in_child([] {
    trace::Trace t;
    t.world_size = 2;
    trace::Op send;
    send.name = "activations";
    send.type = trace::OpType::Send;
    send.stream = kSecondGpuStream;
    send.p2p.peer_offset = 1;
    send.p2p.bytes = 8;
    t.programs.push_back({"stage 0", {"host", "cuda:7", "pp"}, {host_op(), kernel(0), send}});
    trace::Op receive = send;
    receive.type = trace::OpType::Recv;
    receive.stream = kGpu;
    receive.p2p.peer_offset = -1;
    receive.deps = {0};
    t.programs.push_back({"stage 1", {"host", "pp"}, {host_op(), receive}});
    t.rank_program = {0, 1};
    t.groups.push_back({"pp", {{0, 1}}});
    cost::ProgramCosts costs;
    costs.duration_s = {{1e-3, 0.25e-3, 0}, {2e-3, 0}};
    const engine::ReplayResult r =
        engine::replay(t, costs, calibration::Efficiencies{}, one_gpu_nodes(2), {});
    return std::vector<double>{r.makespan_s, r.ranks[0].host_bound_s, r.ranks[0].pipeline_bubble_s};
  });
  return {v[0], v[1], v[2]};
}

}  // namespace

TEST_CASE("a GPU the host cannot feed waits for each launch, and that wait is host-bound time") {
  // Host 1 ms, kernel 0.25 ms, host 1 ms, kernel 0.25 ms: the GPU idles while the host prepares each launch.
  const Scenario s = one_rank({host_op(), kernel(0), host_op(), kernel(2)}, {1e-3, 0.25e-3, 1e-3, 0.25e-3});
  double makespan = 0;
  const engine::RankTimes t = replayed(s, makespan);
  CHECK(makespan == simtrain::testing::Approx(2.25e-3));
  CHECK(t.compute_s == simtrain::testing::Approx(0.5e-3));
  // The host works 2 ms; 0.25 ms of it the GPU runs the first kernel.
  CHECK(t.host_bound_s == simtrain::testing::Approx(1.75e-3));
  CHECK(t.idle_s == simtrain::testing::Approx(0.0));
}

TEST_CASE("a host ahead of the GPU hides its launches: the GPU runs back to back") {
  const Scenario s = one_rank({host_op(), kernel(0), host_op(), kernel(2)}, {0.25e-3, 2e-3, 0.25e-3, 2e-3});
  double makespan = 0;
  const engine::RankTimes t = replayed(s, makespan);
  CHECK(makespan == simtrain::testing::Approx(4.25e-3));
  CHECK(t.compute_s == simtrain::testing::Approx(4e-3));
  CHECK(t.host_bound_s == simtrain::testing::Approx(0.25e-3));  // only the first launch is exposed
}

TEST_CASE("a host op after a synchronisation waits for the kernels launched before it") {
  // Host 0.25 ms launches a 2 ms kernel; the host synchronises (its next op depends on the kernel), then
  // works 1 ms and launches a last 0.25 ms kernel: 0.25 + 2 + 1 + 0.25.
  const Scenario s =
      one_rank({host_op(), kernel(0), host_op({1}), kernel(2)}, {0.25e-3, 2e-3, 1e-3, 0.25e-3});
  double makespan = 0;
  const engine::RankTimes t = replayed(s, makespan);
  CHECK(makespan == simtrain::testing::Approx(3.5e-3));
  CHECK(t.host_bound_s == simtrain::testing::Approx(1.25e-3));
  CHECK(t.compute_s + t.host_bound_s + t.idle_s == simtrain::testing::Approx(makespan));
}

TEST_CASE("the host runs ahead of the clock: a later stream's kernel still waits for its own launch") {
  // Host 1 ms launches a 3 ms kernel on one stream, host 1 ms more a 0.25 ms kernel on another: the second
  // starts at 2 ms, under the first, which ends at 4 ms.
  const Scenario s =
      one_rank({host_op(), kernel(0), host_op(), kernel(2, kSecondGpuStream)}, {1e-3, 3e-3, 1e-3, 0.25e-3});
  double makespan = 0;
  const engine::RankTimes t = replayed(s, makespan);
  CHECK(makespan == simtrain::testing::Approx(4e-3));
  CHECK(t.compute_s == simtrain::testing::Approx(3e-3));  // the union of the two kernels' intervals
  CHECK(t.host_bound_s == simtrain::testing::Approx(1e-3));
}

TEST_CASE("waiting for its own launch is host-bound even while a pipeline send is open beside it") {
  const TwoRankTimes t = send_beside_a_late_launch();
  // Rank 0's compute stream waits 1 ms for its launch with the send already open: the host's time, not a
  // bubble; after its kernel the send waits for rank 1's receive until 2 ms: that is the bubble.
  CHECK(t.host_bound_s == simtrain::testing::Approx(1e-3));
  CHECK(t.pipeline_bubble_s == simtrain::testing::Approx(2e-3 - 1.25e-3).epsilon(0.01));
  CHECK(t.makespan_s >= 2e-3);
}

}  // namespace simtrain
