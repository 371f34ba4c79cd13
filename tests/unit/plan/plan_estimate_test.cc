// The analytic estimate of a plan: its parts add up, each effect moves it the way it must, and over a set of
// small plans it orders them as the simulation does.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/plan/plan_estimate.h"
#include "simulator/plan/rank_correlation.h"
#include "simulator/run/simulation.h"
#include "tests/support/child_process.h"

using namespace simtrain;
using namespace simtrain::plan;

namespace {

// Megatron-LM GPT-1.7B on two DGX A100 nodes: small enough to simulate a dozen plans in a unit test.
struct SmallCase {
  workload::Model model = workload::build_model("megatron-gpt-1.7b", {});
  platform::ClusterSpec spec = [] {
    platform::ClusterSpec s = platform::load_cluster_spec("dgx-a100");
    s.nodes = 2;
    return s;
  }();
  calibration::CalibrationProfile profile = [this] {
    calibration::CalibrationProfile p = calibration::load_profile(spec.gpu);
    run::apply_platform_to_profile(spec, p);
    return p;
  }();
  cost::ComputeCostModel compute{profile};
  NetworkEstimate network{spec, profile.efficiencies};
  EstimateContext context{&*model.transformer, &compute, &network};

  workload::ParallelConfig plan(int tp, int pp, int vpp = 1, int micro_batch = 1,
                                workload::Recompute recompute = workload::Recompute::None) const {
    workload::ParallelConfig c;
    c.model = "megatron-gpt-1.7b";
    c.gpus = 16;
    c.tp = tp;
    c.sp = tp > 1;
    c.pp = pp;
    c.vpp = vpp;
    c.dp = 16 / (tp * pp);
    c.micro_batch = micro_batch;
    c.global_batch = 64;
    c.seq_len = 2048;
    c.recompute = recompute;
    c.schedule = vpp > 1 ? workload::PipelineSchedule::Interleaved : workload::PipelineSchedule::OneFOneB;
    c.distributed_optimizer = true;
    return c;
  }
};

double simulated_iteration_s(const workload::ParallelConfig& config) {
  return testing::in_child_process([&] {
    run::RunRequest request;
    request.parallel = config;
    request.platform = "dgx-a100";
    return run::simulate(request).result.iteration_time_s;
  });
}

}  // namespace

TEST_CASE("the iteration is compute, bubble and exposed communication, and nothing else") {
  const SmallCase c;
  const PlanEstimate e = estimate_plan(c.plan(2, 2), c.context);
  CHECK(e.iteration_time_s == simtrain::testing::Approx(e.compute_s + e.bubble_s + e.exposed.total_s()));
  CHECK(e.compute_s > 0);
  CHECK(e.exposed.tp_s > 0);  // tensor parallelism over NVLink is never free
  CHECK(e.exposed.pp_s > 0);
  CHECK(e.mfu > 0.1);
  CHECK(e.mfu < 0.8);
  CHECK(e.tokens_per_iteration == 64 * 2048);
}

TEST_CASE("no pipeline, no bubble; interleaving shrinks it; recomputation adds compute") {
  const SmallCase c;
  CHECK(estimate_plan(c.plan(1, 1), c.context).bubble_s == 0);
  CHECK(estimate_plan(c.plan(1, 1), c.context).exposed.pp_s == 0);
  CHECK(estimate_plan(c.plan(2, 4, 2), c.context).bubble_s <
        estimate_plan(c.plan(2, 4, 1), c.context).bubble_s);
  CHECK(estimate_plan(c.plan(2, 1, 1, 1, workload::Recompute::Full), c.context).compute_s >
        1.2 * estimate_plan(c.plan(2, 1), c.context).compute_s);
}

TEST_CASE("block recomputation of some layers costs their share of full recomputation, as simulated") {
  const SmallCase c;
  const workload::ParallelConfig none = c.plan(2, 2), full = c.plan(2, 2, 1, 1, workload::Recompute::Full);
  workload::ParallelConfig block = full;
  block.recompute_layers = {workload::RecomputedLayers::Rule::FirstOfChunk, 3};  // of each stage's 12
  const PlanEstimate e_none = estimate_plan(none, c.context), e_full = estimate_plan(full, c.context),
                     e_block = estimate_plan(block, c.context);
  CHECK(e_block.compute_s - e_none.compute_s ==
        doctest::Approx(0.25 * (e_full.compute_s - e_none.compute_s)));
  CHECK(e_block.memory_bytes < e_none.memory_bytes);
  CHECK(e_block.memory_bytes > e_full.memory_bytes);
  // What the three layers' recomputation adds, against the simulation's, within a quarter.
  const double simulated = simulated_iteration_s(block) - simulated_iteration_s(none);
  CHECK(e_block.iteration_time_s - e_none.iteration_time_s == doctest::Approx(simulated).epsilon(0.25));
}

TEST_CASE("offloaded activations: copies hidden while the layers they overlap outlast them") {
  // 10 layers: the copies of the offloaded ones overlap 8 layers' forwards (and backwards) each way.
  CHECK(offloaded_copies_s(10, 0.8, 0.1, 0.2) == 0);                     // 0.8 s within 8 x 0.1 s
  CHECK(offloaded_copies_s(10, 1.0, 0.1, 0.2) == doctest::Approx(0.2));  // forward: 1.0 - 0.8
  CHECK(offloaded_copies_s(10, 2.0, 0.1, 0.2) == doctest::Approx(1.2 + 0.4));
  // On the small case's A100s over PCIe, half the layers offloaded cost what their copies do not hide.
  const SmallCase c;
  workload::ParallelConfig offloaded = c.plan(1, 1);
  offloaded.cpu_offloading_layers = 12;
  const PlanEstimate with = estimate_plan(offloaded, c.context);
  const PlanEstimate without = estimate_plan(c.plan(1, 1), c.context);
  CHECK(without.offload_s == 0);
  CHECK(with.offload_s > 0);  // a layer's copy over PCIe takes longer than its forward
  CHECK(with.iteration_time_s ==
        simtrain::testing::Approx(with.compute_s + with.bubble_s + with.exposed.total_s() + with.offload_s));
  CHECK(with.memory_bytes < without.memory_bytes);
  // What the copies add, against the simulation's (which runs them on their own stream with the waits of
  // megatron_offload.h), within a quarter.
  const double simulated = simulated_iteration_s(offloaded) - simulated_iteration_s(c.plan(1, 1));
  CHECK(with.iteration_time_s - without.iteration_time_s == doctest::Approx(simulated).epsilon(0.25));
}

TEST_CASE("an invalid plan is an error, as for the trace generator") {
  const SmallCase c;
  workload::ParallelConfig bad = c.plan(1, 1);
  bad.tp = 5;
  bad.dp = 0;
  CHECK_THROWS_AS(estimate_plan(bad, c.context), Error);
}

// The estimate only has to order plans for the search, so the test asks for rank agreement, with a bound on
// each plan's error wide enough for what it leaves out (contention beyond a fair share of the NICs, the
// schedule's exact dependencies) and tight enough to catch a missed term.
TEST_CASE("over ten small plans the estimate orders them as the simulation does (Spearman >= 0.8)") {
  const SmallCase c;
  const std::vector<workload::ParallelConfig> plans = {
      c.plan(1, 1),    c.plan(2, 1),
      c.plan(4, 1),    c.plan(8, 1),
      c.plan(1, 2),    c.plan(2, 2),
      c.plan(2, 4, 2), c.plan(8, 2),
      c.plan(4, 4),    c.plan(1, 1, 1, 2, workload::Recompute::Full)};
  std::vector<double> estimated, simulated;
  for (const workload::ParallelConfig& plan : plans) {
    estimated.push_back(estimate_plan(plan, c.context).iteration_time_s);
    simulated.push_back(simulated_iteration_s(plan));
    CAPTURE(plan.tp);
    CAPTURE(plan.pp);
    CAPTURE(plan.vpp);
    CHECK(estimated.back() == simtrain::testing::Approx(simulated.back()).epsilon(0.25).scale(0));
  }
  const double rho = spearman(estimated, simulated);
  MESSAGE("Spearman over ", plans.size(), " plans: ", rho);
  CHECK(rho >= 0.8);
}

// ZeRO-3 over 16 ranks with short sequences: each layer's compute is shorter than its parameter gather, so
// the step is the network's. In backward the gathers and the gradient reduce-scatters cross the same NICs at
// once; an estimate that let each run at the full NIC share would come out far too short.
TEST_CASE("ZeRO-3 with the network as bottleneck: gathers and reduce-scatters share it, as simulated") {
  const SmallCase c;
  workload::ParallelConfig plan = c.plan(1, 1);
  plan.distributed_optimizer = false;
  plan.zero = 3;
  plan.seq_len = 256;
  plan.global_batch = 16;
  const PlanEstimate e = estimate_plan(plan, c.context);
  CHECK(e.exposed.dp_s > e.compute_s);
  CHECK(e.iteration_time_s == simtrain::testing::Approx(simulated_iteration_s(plan)).epsilon(0.10).scale(0));
}

// ZeRO-3 at full sequences: the layers outlast their gathers, which run beside them (with the
// reduce-scatters in backward), each holding an SM per NCCL channel; the kernels get the rest, as the
// engine replays it. What that adds to the compute, and the step, as simulated: over 16 ranks on two nodes,
// where a gather and a reduce-scatter share the links and so run longer beside the kernels, and over the 8
// of one node, where each takes its own time.
TEST_CASE(
    "ZeRO-3 with compute as bottleneck: the collectives beside the layers take their SMs, as simulated") {
  SmallCase c;
  for (int gpus : {16, 8}) {
    CAPTURE(gpus);
    workload::ParallelConfig plan = c.plan(1, 1);
    plan.gpus = plan.dp = gpus;
    plan.global_batch = 4 * gpus;
    plan.distributed_optimizer = false;
    plan.zero = 3;
    c.context.comm_sms = true;
    const PlanEstimate held = estimate_plan(plan, c.context);
    c.context.comm_sms = false;
    const PlanEstimate free = estimate_plan(plan, c.context);
    const auto simulated = [&](bool comm_sms) {
      return testing::in_child_process([&] {
        run::RunRequest request;
        request.parallel = plan;
        request.platform = "dgx-a100";
        request.comm_sms = comm_sms;
        return run::simulate(request).result.breakdown.compute_s;
      });
    };
    const double simulated_held = simulated(true), simulated_free = simulated(false);
    MESSAGE(gpus, " GPUs, compute: estimated ", free.compute_s, " s, ", held.compute_s,
            " s with the SMs held; simulated ", simulated_free, " s, ", simulated_held, " s");
    CHECK(held.compute_s - free.compute_s ==
          simtrain::testing::Approx(simulated_held - simulated_free).epsilon(0.15).scale(0));
    CHECK(held.iteration_time_s ==
          simtrain::testing::Approx(simulated_iteration_s(plan)).epsilon(0.05).scale(0));
  }
}
