// The replay's overlap of compute and communication, on hand-built two-stream traces whose iteration time
// follows by hand from the closed form of a two-rank ring all-reduce on a uniform network:
// T = 2(N-1) * (alpha + S / (N * B)) = 2 alpha + S / B for N = 2.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <functional>

#include "common/error.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"
#include "tests/support/uniform_cluster.h"

namespace simtrain {
namespace {

// tests/support/uniform_cluster.h's network: every route's bottleneck and latency.
constexpr double kNicBandwidth = testing::kUniformNicBandwidth;
constexpr double kRouteLatency = testing::kUniformRouteLatency;
constexpr double kGradientBytes = 25e6;
// The all-reduce of kGradientBytes over two ranks: 2 * 4 us + 1 ms.
constexpr double kAllReduceS = 2 * kRouteLatency + kGradientBytes / kNicBandwidth;
// The coalesced flows are exact on a uniform network and compute ops are plain sleeps; 1e-9 relative leaves
// room only for rounding the wire size to whole bytes.
constexpr double kRel = 1e-9;

constexpr std::uint8_t kCompute = 0, kComm = 1;

trace::Op compute_op(std::string name, std::vector<std::uint32_t> deps = {}) {
  trace::Op op;
  op.name = std::move(name);
  op.stream = kCompute;
  op.deps = std::move(deps);
  return op;
}

trace::Op all_reduce_op(std::vector<std::uint32_t> deps) {
  trace::Op op;
  op.name = "grads.all_reduce";
  op.type = trace::OpType::Collective;
  op.stream = kComm;
  op.deps = std::move(deps);
  op.collective.bytes = kGradientBytes;
  return op;
}

// A trace and the durations of its compute ops, one program per rank.
struct Scenario {
  trace::Trace trace;
  cost::ProgramCosts costs;
};

Scenario one_program_per_rank(const std::vector<std::vector<trace::Op>>& ops,
                              const std::vector<std::vector<double>>& durations_s) {
  Scenario s;
  const int ranks = static_cast<int>(ops.size());
  s.trace.world_size = ranks;
  trace::CommunicatorGroup world{"world", {{}}};
  for (int r = 0; r < ranks; ++r) {
    s.trace.programs.push_back({"rank" + std::to_string(r), {"compute", "comm"}, ops[r]});
    s.trace.rank_program.push_back(r);
    world.communicators[0].push_back(r);
  }
  s.trace.groups.push_back(world);
  s.costs.duration_s = durations_s;
  return s;
}

// Replays in a child process (one SimGrid engine per process) and returns one number read off the result;
// `gpu_sms` > 0 lets collectives hold SMs (ReplayOptions::gpu_sm_count).
double replayed(const Scenario& s, const std::function<double(const engine::ReplayResult&)>& read,
                int timeline_ranks = 0, int gpu_sms = 0) {
  return testing::in_child_process([&] {
    calibration::Efficiencies ideal;  // no NCCL losses: the closed form has none
    ideal.nccl_intra_node = ideal.nccl_inter_node = 1.0;
    ideal.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = testing::uniform_cluster(s.trace.world_size);
    engine::ReplayOptions options;
    options.timeline_ranks = timeline_ranks;
    options.gpu_sm_count = gpu_sms;
    return read(engine::replay(s.trace, s.costs, ideal, source, options));
  });
}

// Backward (1 ms), then the gradient all-reduce on the comm stream, while the compute stream goes on with
// an independent op: 2 ms on rank 0 (longer than the all-reduce), 0.5 ms on rank 1 (shorter).
Scenario overlapped_all_reduce() {
  const std::vector<trace::Op> ops = {compute_op("backward"), all_reduce_op({0}), compute_op("independent")};
  return one_program_per_rank({ops, ops}, {{1e-3, 0, 2e-3}, {1e-3, 0, 0.5e-3}});
}

}  // namespace

TEST_CASE("an all-reduce overlaps the compute that does not depend on it") {
  const Scenario s = overlapped_all_reduce();
  // Rank 0 ends at 1 + 2 ms, rank 1's all-reduce at 1 ms + T: the iteration is the longer of the two.
  const double makespan = std::max(1e-3 + 2e-3, 1e-3 + kAllReduceS);
  CHECK(makespan == 3e-3);
  CHECK(replayed(s, [](const auto& r) { return r.makespan_s; }) ==
        simtrain::testing::Approx(makespan).epsilon(kRel));
  CHECK(replayed(s, [](const auto& r) { return r.ranks[1].end_s; }) ==
        simtrain::testing::Approx(1e-3 + kAllReduceS).epsilon(kRel));
}

TEST_CASE("a rank's compute, exposed communication and idle time add up to the iteration time") {
  const Scenario s = overlapped_all_reduce();
  const double makespan = 3e-3;
  // Rank 0 computes throughout; its all-reduce [1 ms, 1 ms + T] lies under the independent op.
  CHECK(replayed(s, [](const auto& r) { return r.ranks[0].compute_s; }) ==
        simtrain::testing::Approx(3e-3).epsilon(kRel));
  CHECK(replayed(s, [](const auto& r) { return r.ranks[0].exposed_comm_s; }) ==
        simtrain::testing::Approx(0.0));
  CHECK(replayed(s, [](const auto& r) { return r.ranks[0].idle_s; }) == simtrain::testing::Approx(0.0));
  // Rank 1 computes 1.5 ms; its all-reduce sticks out past 1.5 ms until 1 ms + T; then it waits for rank 0.
  const double exposed = 1e-3 + kAllReduceS - 1.5e-3;
  CHECK(replayed(s, [](const auto& r) { return r.ranks[1].compute_s; }) ==
        simtrain::testing::Approx(1.5e-3).epsilon(kRel));
  CHECK(replayed(s, [](const auto& r) { return r.ranks[1].exposed_comm_s; }) ==
        simtrain::testing::Approx(exposed).epsilon(kRel));
  CHECK(replayed(s, [](const auto& r) { return r.ranks[1].idle_s; }) ==
        simtrain::testing::Approx(makespan - 1.5e-3 - exposed).epsilon(kRel));
  CHECK(replayed(s, [](const auto& r) {
          const auto& t = r.ranks[1];
          return t.compute_s + t.exposed_comm_s + t.idle_s - r.makespan_s;
        }) == simtrain::testing::Approx(0.0).epsilon(kRel));
}

// Collectives hold one SM per NCCL channel while they run; one NIC per node gives NCCL 2 channels
// (ClusterSpec::nics.nccl_channels()), so on a GPU of 8 SMs the kernels beside the all-reduce get 3/4 of it.
// The replay stops slowing kernels once what is left of their work is below 1e-4 of it.
TEST_CASE("kernels beside a collective run on the SMs it leaves them") {
  constexpr int kSms = 8;
  constexpr double kLeft = 1 - 2.0 / kSms;
  const Scenario s = overlapped_all_reduce();
  // Rank 0's 2 ms of work from 1 ms on: at 3/4 speed under the all-reduce, then at full speed.
  CHECK(replayed(
            s, [](const auto& r) { return r.ranks[0].end_s; }, 0, kSms) ==
        simtrain::testing::Approx(1e-3 + kAllReduceS + (2e-3 - kLeft * kAllReduceS)).epsilon(1e-4));
  // Rank 1's 0.5 ms ends under the all-reduce, slowed throughout; the all-reduce is not.
  CHECK(replayed(
            s, [](const auto& r) { return r.ranks[1].compute_s; }, 0, kSms) ==
        simtrain::testing::Approx(1e-3 + 0.5e-3 / kLeft).epsilon(1e-4));
  CHECK(replayed(
            s, [](const auto& r) { return r.ranks[1].end_s; }, 0, kSms) ==
        simtrain::testing::Approx(1e-3 + kAllReduceS).epsilon(kRel));
}

TEST_CASE("an op that depends on a collective waits for it to end") {
  // Backward 1 ms, the all-reduce, then an optimizer step of 0.25 ms that needs the reduced gradients.
  const std::vector<trace::Op> ops = {compute_op("backward"), all_reduce_op({0}),
                                      compute_op("optimizer", {1})};
  const Scenario s = one_program_per_rank({ops, ops}, {{1e-3, 0, 0.25e-3}, {1e-3, 0, 0.25e-3}});
  const double step_start = 1e-3 + kAllReduceS;
  CHECK(replayed(s, [](const auto& r) { return r.makespan_s; }) ==
        simtrain::testing::Approx(step_start + 0.25e-3).epsilon(kRel));
  CHECK(replayed(
            s, [](const auto& r) { return r.events[2].start_s; }, 1) ==
        simtrain::testing::Approx(step_start).epsilon(kRel));
  // Nothing hides the all-reduce.
  CHECK(replayed(s, [](const auto& r) { return r.ranks[0].exposed_comm_s; }) ==
        simtrain::testing::Approx(kAllReduceS).epsilon(kRel));
}

TEST_CASE("a receive that no rank sends to makes the replay throw an Error") {
  trace::Op recv;
  recv.name = "recv";
  recv.type = trace::OpType::Recv;
  recv.stream = kComm;
  const Scenario s = one_program_per_rank({{recv}, {compute_op("idle")}}, {{0}, {1e-3}});
  const double threw_error = testing::in_child_process([&] {
    try {
      calibration::Efficiencies e;
      engine::PlatformSource source;
      source.spec = testing::uniform_cluster(2);
      engine::replay(s.trace, s.costs, e, source, {});
    } catch (const Error&) {
      return 1.0;
    }
    return 0.0;
  });
  CHECK(threw_error == 1.0);
}

TEST_CASE("timeline events are recorded for the first timeline_ranks ranks only, each with start <= end") {
  const std::vector<trace::Op> ops = {compute_op("backward"), all_reduce_op({0}), compute_op("independent")};
  Scenario s = one_program_per_rank({ops, ops, ops}, {{1e-3, 0, 2e-3}, {1e-3, 0, 2e-3}, {1e-3, 0, 2e-3}});
  const auto events = [&](const std::function<double(const engine::ReplayResult&)>& read) {
    return replayed(s, read, 2);
  };
  CHECK(events([](const auto& r) { return double(r.events.size()); }) == 6);  // 3 ops x ranks 0 and 1
  CHECK(events([](const auto& r) {
          double outside = 0;
          for (const auto& e : r.events) outside += e.rank >= 2;
          return outside;
        }) == 0);
  CHECK(events([](const auto& r) {
          double reversed = 0;
          for (const auto& e : r.events) reversed += e.start_s > e.end_s;
          return reversed;
        }) == 0);
  // Rank 0's independent op runs [1 ms, 3 ms] on the compute stream.
  CHECK(events([](const auto& r) {
          for (const auto& e : r.events)
            if (e.rank == 0 && e.op == 2) return e.end_s - e.start_s;
          return -1.0;
        }) == simtrain::testing::Approx(2e-3).epsilon(kRel));
  CHECK(replayed(
            s, [](const auto& r) { return double(r.events.size()); }, 0) == 0);
  CHECK(replayed(
            s, [](const auto& r) { return double(r.events.size()); }, 100) == 9);  // clamped to 3 ranks
}

}  // namespace simtrain
