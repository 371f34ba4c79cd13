// Specification of the Result: the breakdown averaged over ranks, throughput and MFU from the iteration time,
// job length from steps or epochs, the memory verdict, and the JSON document with and without wall time.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/report/result.h"

namespace simtrain {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kFp16Peak = 250e12;
constexpr double kFp32Peak = 20e12;
// The quantities below are one or two divisions of round numbers; 1e-12 relative covers their rounding.
constexpr double kRel = 1e-12;

// 4 GPUs on 2 nodes, 256 sequences of 128 tokens per iteration, 1e15 model FLOPs, 40 GiB per GPU.
trace::Trace test_trace() {
  trace::Trace t;
  t.world_size = 4;
  t.metadata.model = "toy-lm";
  t.metadata.parallelism = "ddp";
  t.metadata.samples_per_iteration = 256;
  t.metadata.tokens_per_iteration = 256 * 128;
  t.metadata.model_flops_per_iteration = 1e15;
  t.metadata.peak_memory_bytes = 40 * kGiB;
  t.metadata.compute_dtype = DType::FP16;
  return t;
}

calibration::CalibrationProfile test_profile() {
  calibration::CalibrationProfile p;
  p.kind = calibration::ProfileKind::Measured;
  p.device.name = "TestGPU";
  p.device.memory_bytes = 80 * kGiB;
  p.device.peak_flops_per_s = {{DType::FP32, kFp32Peak}, {DType::FP16, kFp16Peak}};
  return p;
}

// A 2 s iteration whose four ranks split it differently between compute, exposed communication and idling.
engine::ReplayResult test_replay() {
  engine::ReplayResult r;
  r.makespan_s = 2.0;
  r.ranks = {{2.0, 1.0, 0.5, 0.5}, {2.0, 1.25, 0.5, 0.25}, {2.0, 1.5, 0.25, 0.25}, {1.75, 1.75, 0.25, 0.0}};
  r.flows = 10;
  r.compute_waits = 20;
  r.nodes = 2;
  r.gpus_per_node = 2;
  return r;
}

report::Result result_of(const trace::Trace& t, const report::JobLength& job = {},
                         const engine::ReplayResult& replay = test_replay()) {
  cost::ProgramCosts costs;
  costs.measured_ops = 3;
  costs.roofline_ops = 5;
  costs.trace_timed_ops = 7;
  return report::make_result(t, replay, test_profile(), costs, "test-cluster", job, 1.5);
}

}  // namespace

TEST_CASE("the Result copies the run's facts from trace, replay, profile and costs") {
  const report::Result r = result_of(test_trace());
  CHECK(r.model == "toy-lm");
  CHECK(r.platform == "test-cluster");
  CHECK(r.gpus == 4);
  CHECK(r.nodes == 2);
  CHECK(r.gpus_per_node == 2);
  CHECK(r.parallelism == "ddp");
  CHECK(r.profile == "TestGPU");
  CHECK(r.profile_kind == "measured");
  CHECK(r.iteration_time_s == 2.0);
  CHECK(r.measured_ops == 3);
  CHECK(r.roofline_ops == 5);
  CHECK(r.trace_timed_ops == 7);
  CHECK(r.simulated_flows == 10);
  CHECK(r.simulated_compute_intervals == 20);
  CHECK(r.sim_wall_s == 1.5);
}

TEST_CASE("the breakdown is the mean over ranks") {
  const report::Result r = result_of(test_trace());
  CHECK(r.breakdown.compute_s == simtrain::testing::Approx((1.0 + 1.25 + 1.5 + 1.75) / 4).epsilon(kRel));
  CHECK(r.breakdown.exposed_comm_s == simtrain::testing::Approx((0.5 + 0.5 + 0.25 + 0.25) / 4).epsilon(kRel));
  CHECK(r.breakdown.idle_s == simtrain::testing::Approx((0.5 + 0.25 + 0.25 + 0.0) / 4).epsilon(kRel));
}

TEST_CASE("throughput is per iteration time and MFU is model FLOPs / (time * GPUs * peak)") {
  const report::Result r = result_of(test_trace());
  CHECK(r.samples_per_iteration == 256);
  CHECK(r.samples_per_s == simtrain::testing::Approx(256 / 2.0).epsilon(kRel));
  CHECK(r.tokens_per_s == simtrain::testing::Approx(256 * 128 / 2.0).epsilon(kRel));
  CHECK(r.mfu == simtrain::testing::Approx(1e15 / (2.0 * 4 * kFp16Peak)).epsilon(kRel));  // 0.5
  CHECK(r.mfu_dtype == "fp16");
}

TEST_CASE("MFU of a tf32 job on a GPU without TF32 units is measured against the fp32 peak") {
  trace::Trace t = test_trace();
  t.metadata.compute_dtype = DType::TF32;
  CHECK(result_of(t).mfu == simtrain::testing::Approx(1e15 / (2.0 * 4 * kFp32Peak)).epsilon(kRel));
}

TEST_CASE("a zero iteration time gives zero throughput and MFU rather than a division by zero") {
  engine::ReplayResult empty = test_replay();
  empty.makespan_s = 0;
  const report::Result r = result_of(test_trace(), {}, empty);
  CHECK(r.samples_per_s == 0);
  CHECK(r.tokens_per_s == 0);
  CHECK(r.mfu == 0);
}

TEST_CASE("the job time is steps times the iteration time") {
  const report::Result r = result_of(test_trace(), {100.0, std::nullopt, std::nullopt});
  REQUIRE(r.steps);
  CHECK(*r.steps == 100);
  REQUIRE(r.job_time_s);
  CHECK(*r.job_time_s == simtrain::testing::Approx(200.0).epsilon(kRel));
  CHECK_FALSE(result_of(test_trace()).job_time_s.has_value());
}

TEST_CASE("a framework's start-up is added once and its per-step overhead to every step") {
  report::JobLength job{100.0, std::nullopt, std::nullopt};
  job.startup_s = 6;
  job.step_overhead = 0.025;
  const report::Result r = result_of(test_trace(), job);
  // 6 s + 100 steps x 2 s x 1.025.
  CHECK(*r.job_time_s == simtrain::testing::Approx(6 + 205.0).epsilon(kRel));
  CHECK(r.startup_s == 6);
  CHECK(r.step_overhead == 0.025);
}

TEST_CASE("epochs become ceil(dataset / global batch) steps each, the last partial batch included") {
  // 1000 samples in batches of 256: 3 full batches and one of 232, so 4 steps per epoch.
  const report::Result r = result_of(test_trace(), {std::nullopt, 2.0, 1000.0});
  REQUIRE(r.steps);
  CHECK(*r.steps == 8);
  CHECK(*r.job_time_s == simtrain::testing::Approx(16.0).epsilon(kRel));
  // A dataset that is a whole number of batches has no extra step.
  CHECK(*result_of(test_trace(), {std::nullopt, 1.0, 1024.0}).steps == 4);
}

TEST_CASE("steps and epochs together, or epochs without a dataset size, are errors") {
  CHECK_THROWS_WITH_AS(result_of(test_trace(), {10.0, 1.0, 1000.0}),
                       doctest::Contains("--steps and --epochs"), Error);
  CHECK_THROWS_WITH_AS(result_of(test_trace(), {std::nullopt, 1.0, std::nullopt}),
                       doctest::Contains("--dataset-size"), Error);
}

TEST_CASE("a job fits in memory when its peak is at most the GPU's capacity") {
  trace::Trace t = test_trace();
  CHECK(result_of(t).fits_in_memory);
  CHECK(result_of(t).peak_memory_bytes == 40 * kGiB);
  CHECK(result_of(t).memory_capacity_bytes == 80 * kGiB);
  t.metadata.peak_memory_bytes = 80 * kGiB;
  CHECK(result_of(t).fits_in_memory);
  t.metadata.peak_memory_bytes = 80 * kGiB + 1;
  CHECK_FALSE(result_of(t).fits_in_memory);
}

TEST_CASE("without wall time the JSON omits sim_wall_s and is otherwise the same document") {
  const report::Result r = result_of(test_trace(), {100.0, std::nullopt, std::nullopt});
  nlohmann::json with = report::to_json(r, true);
  const nlohmann::json without = report::to_json(r, false);
  CHECK(with.at("sim_wall_s") == 1.5);
  CHECK_FALSE(without.contains("sim_wall_s"));
  with.erase("sim_wall_s");
  CHECK(with == without);
}

TEST_CASE("the JSON carries the computed figures under their field names") {
  const report::Result r = result_of(test_trace(), {100.0, std::nullopt, std::nullopt});
  const nlohmann::json j = report::to_json(r, false);
  CHECK(j.at("iteration_time_s") == r.iteration_time_s);
  CHECK(j.at("mfu") == r.mfu);
  CHECK(j.at("tokens_per_s") == r.tokens_per_s);
  CHECK(j.at("breakdown").at("compute_s") == r.breakdown.compute_s);
  CHECK(j.at("breakdown").at("idle_s") == r.breakdown.idle_s);
  CHECK(j.at("steps") == 100.0);
  CHECK(j.at("job_time_s") == *r.job_time_s);
  CHECK(j.at("fits_in_memory") == true);
  CHECK(j.at("fidelity").at("ops_measured") == 3);
  // Models without tokens leave tokens_per_s out; runs without a job length leave steps out.
  trace::Trace images = test_trace();
  images.metadata.tokens_per_iteration = 0;
  const nlohmann::json k = report::to_json(result_of(images), false);
  CHECK_FALSE(k.contains("tokens_per_s"));
  CHECK_FALSE(k.contains("steps"));
  CHECK_FALSE(k.contains("job_time_s"));
}

TEST_CASE("the fidelity counts kernels taken as recorded, rescaled from the recording GPU, and from tables") {
  trace::Trace t = test_trace();
  t.metadata.recorded_gpu = "h200-sxm";
  cost::ProgramCosts costs;
  costs.trace_timed_ops = 4;
  costs.rescaled_ops = 10;
  costs.bandwidth_rescaled_ops = 2;
  costs.roofline_ops = 1;
  costs.rescaled_from = "h200-sxm";
  const report::Result r = report::make_result(t, test_replay(), test_profile(), costs, "c", {}, 0);
  CHECK(r.rescaled);
  const nlohmann::json f = report::to_json(r, false).at("fidelity");
  CHECK(f.at("ops_timed_in_trace") == 4);
  CHECK(f.at("ops_rescaled") == 10);
  CHECK(f.at("ops_rescaled_by_bandwidth") == 2);
  CHECK(f.at("ops_roofline") == 1);
  CHECK(f.at("recorded_gpu") == "h200-sxm");
  CHECK(f.at("compute") == "trace durations rescaled from h200-sxm, roofline elsewhere");
  CHECK(report::summary_text(r).find(
            "12 rescaled from h200-sxm (2 of unknown size by bandwidth), 4 as recorded") !=
        std::string::npos);

  // A generated trace names no recording GPU and rescales nothing.
  const nlohmann::json g = report::to_json(result_of(test_trace()), false).at("fidelity");
  CHECK(g.at("ops_rescaled") == 0);
  CHECK(g.at("ops_rescaled_by_bandwidth") == 0);
  CHECK_FALSE(g.contains("recorded_gpu"));
  CHECK(g.at("compute") == "trace durations as recorded, measured tables, roofline elsewhere");
}

}  // namespace simtrain
