// Specification of micro_batch_extrapolation.h: which step sizes stand for a long step, and that the step
// extrapolated from them is the step replayed in full (a pipeline's steady state repeats exactly).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/run/micro_batch_extrapolation.h"
#include "simulator/run/simulation.h"
#include "tests/support/child_process.h"
#include "tests/support/megatron_fixtures.h"

namespace simtrain {
namespace {

using testing::Approx;

engine::ReplayResult replay_of(double makespan_s, double compute_s, double idle_s, std::uint64_t rings) {
  engine::ReplayResult r;
  r.makespan_s = makespan_s;
  engine::RankTimes times;
  times.end_s = makespan_s;
  times.compute_s = compute_s;
  times.idle_s = idle_s;
  times.exposed_by_group_s = {{"dp", 0.5}};
  r.ranks = {times, times};
  r.flows = 100;
  r.compute_waits = 10;
  r.collective_algorithms = {{"ring/simple", rings}};
  return r;
}

TEST_CASE("a long step is sampled at 2 x pp and 3 x pp micro-batches, a short one is not") {
  auto config = testing::megatron_plan(2, 4, 2, 64);
  const auto sample = run::plan_micro_batch_sample(config);
  REQUIRE(sample);
  CHECK(sample->micro_batches == 64);
  CHECK(sample->fewer == 8);
  CHECK(sample->more == 12);

  // 20 micro-batches take no longer to simulate than the 8 + 12 of the sample.
  CHECK_FALSE(run::plan_micro_batch_sample(testing::megatron_plan(2, 4, 2, 20)));
  CHECK(run::plan_micro_batch_sample(testing::megatron_plan(2, 4, 2, 21)));

  // Without a pipeline: 4 and 6 (the first micro-batch and the last differ from the rest).
  const auto flat = run::plan_micro_batch_sample(testing::megatron_plan(8, 1, 2, 32));
  REQUIRE(flat);
  CHECK(flat->fewer == 4);
  CHECK(flat->more == 6);

  config.global_batch = 0;  // one micro-batch per replica
  CHECK_FALSE(run::plan_micro_batch_sample(config));
}

TEST_CASE("with_micro_batches sets the global batch to that many micro-batches per replica") {
  auto config = testing::megatron_plan(2, 4, 2, 64);
  config.micro_batch = 3;
  CHECK(run::with_micro_batches(config, 8).global_batch == 8 * 3 * 2);
}

TEST_CASE("the replay is extrapolated linearly, times no lower than zero, simulated counts added") {
  run::MicroBatchSample sample{64, 8, 12};
  // 2 s and 1.5 s of compute per micro-batch more; idle shrinking by 0.1 s per micro-batch.
  const engine::ReplayResult whole =
      run::extrapolate_replay(replay_of(10, 8, 3, 80), replay_of(14, 14, 2.6, 120), sample);
  CHECK(whole.makespan_s == Approx(14 + 52 * 1.0));
  CHECK(whole.ranks.size() == 2);
  CHECK(whole.ranks[1].end_s == Approx(66));
  CHECK(whole.ranks[1].compute_s == Approx(14 + 52 * 1.5));
  CHECK(whole.ranks[1].idle_s == 0);  // 2.6 - 52 x 0.1 < 0
  CHECK(whole.ranks[0].exposed_by_group_s.at("dp") == Approx(0.5));
  CHECK(whole.collective_algorithms.at("ring/simple") == 120 + 52 * 10);
  CHECK(whole.flows == 200);
  CHECK(whole.compute_waits == 20);

  engine::ReplayResult other = replay_of(14, 14, 2.6, 120);
  other.ranks.pop_back();
  CHECK_THROWS_AS(run::extrapolate_replay(replay_of(10, 8, 3, 80), other, sample), Error);
}

// simulate() of a Megatron plan, in a child process: its iteration time, or NaN when it threw or the step
// was (or was not) extrapolated against `extrapolated`.
double iteration_s(const workload::ParallelConfig& config, bool every_micro_batch, bool extrapolated) {
  return testing::in_child_process([&] {
    run::RunRequest request;
    request.parallel = config;
    request.platform = "dgx-a100";
    request.allow_oom = true;
    request.simulate_every_micro_batch = every_micro_batch;
    const run::RunOutput out = run::simulate(request);
    if ((out.result.micro_batches > 0) != extrapolated) return std::nan("");
    return out.result.iteration_time_s;
  });
}

TEST_CASE("an extrapolated step lasts what the step replayed in full lasts") {
  // Interleaved 1F1B on 2 nodes: pipeline transfers across the nodes, data-parallel reduce-scatters and
  // all-gathers of the distributed optimizer overlapped with the last micro-batches' backward.
  workload::ParallelConfig config;
  config.model = "megatron-gpt-1.7b";
  config.gpus = 16;
  config.tp = 2;
  config.pp = 4;
  config.vpp = 2;
  config.sp = true;
  config.distributed_optimizer = true;
  config.micro_batch = 1;
  config.global_batch = 48 * 2;  // 48 micro-batches per replica, sampled at 8 and 12
  config.seq_len = 512;
  const double extrapolated = iteration_s(config, false, true);
  const double full = iteration_s(config, true, false);
  CHECK(extrapolated == Approx(full).epsilon(1e-9));

  // Without a pipeline: gradient accumulation over 16 micro-batches, sampled at 4 and 6.
  config.tp = 8;
  config.pp = 1;
  config.vpp = 1;
  config.global_batch = 16 * 2;
  CHECK(iteration_s(config, false, true) == Approx(iteration_s(config, true, false)).epsilon(1e-9));
}

}  // namespace
}  // namespace simtrain
