// Specification of kernel rescaling: a trace's measured durations carried from the GPU they were recorded on
// to the one simulated, by kernel class, and the counts cost_programs keeps of each rule.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cmath>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/cost/kernel_rescale.h"

namespace simtrain {
namespace {

constexpr double kRel = 1e-12;

using trace::ComputeKind;

trace::Op compute_op(ComputeKind kind, DType dtype, double flops, double bytes, double duration_s) {
  trace::Op op;
  op.type = trace::OpType::Compute;
  op.compute.kind = kind;
  op.compute.dtype = dtype;
  op.compute.flops = flops;
  op.compute.bytes = bytes;
  op.compute.duration_s = duration_s;
  return op;
}

// A bf16 GEMM of 8192^3 as a profiler would record it: its shape, its FLOPs and bytes, and its time.
trace::Op recorded_gemm(double duration_s) {
  trace::Op op =
      compute_op(ComputeKind::Gemm, DType::BF16, 2.0 * 8192 * 8192 * 8192, 3.0 * 8192 * 8192 * 2, duration_s);
  op.compute.pass = trace::Pass::Forward;
  op.compute.shape = {8192, 8192, 8192};
  return op;
}

trace::Trace one_program(std::vector<trace::Op> ops, std::string recorded_gpu) {
  trace::Trace t;
  t.world_size = 1;
  t.programs.resize(1);
  t.programs[0].ops = std::move(ops);
  t.rank_program = {0};
  t.metadata.recorded_gpu = std::move(recorded_gpu);
  return t;
}

// What the cost model estimates for `op` on `profile` when nothing was measured.
double estimate_s(const calibration::CalibrationProfile& profile, trace::Op op) {
  op.compute.duration_s = -1;
  return cost::ComputeCostModel(profile).cost(op.compute).duration_s;
}

double achieved_bandwidth(const calibration::CalibrationProfile& p) {
  return p.device.memory_bandwidth_Bps * p.efficiencies.memory_bound;
}

}  // namespace

TEST_CASE("a GEMM recorded on an H200 and costed for an A100 is the recording times the estimates' ratio") {
  const auto h200 = calibration::load_profile("h200-sxm");
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  const trace::Op gemm = recorded_gemm(2e-3);

  const cost::ProgramCosts costs =
      cost::cost_programs(one_program({gemm}, "h200-sxm"), model, "a100-sxm4-80gb");
  const double ratio = estimate_s(a100, gemm) / estimate_s(h200, gemm);
  CHECK(ratio > 2);  // 989 against 312 dense bf16 TFLOP/s
  CHECK(costs.duration_s[0][0] == simtrain::testing::Approx(2e-3 * ratio).epsilon(kRel));
  CHECK(costs.rescaled_ops == 1);
  CHECK(costs.trace_timed_ops == 0);
  CHECK(costs.rescaled_from == "h200-sxm");
}

TEST_CASE("a memory-bound kernel scales by the ratio of the memory bandwidths reached") {
  const auto h200 = calibration::load_profile("h200-sxm");
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  // 2 GB of an elementwise add: the launch cost is a few microseconds of a millisecond.
  const trace::Op add = compute_op(ComputeKind::Elementwise, DType::BF16, 1e9 / 2, 2e9, 0.6e-3);
  const cost::ProgramCosts costs =
      cost::cost_programs(one_program({add}, "h200-sxm"), model, "a100-sxm4-80gb");
  // The bandwidths each reaches: HBM times the generation's share of it for memory-bound kernels.
  const double bandwidth_ratio = h200.device.memory_bandwidth_Bps * h200.efficiencies.memory_bound /
                                 (a100.device.memory_bandwidth_Bps * a100.efficiencies.memory_bound);
  CHECK(costs.duration_s[0][0] == simtrain::testing::Approx(0.6e-3 * bandwidth_ratio).epsilon(0.01));
  CHECK(costs.rescaled_ops == 1);
}

TEST_CASE("a kernel of unknown size keeps its launch cost and scales the rest by the bandwidths") {
  const auto h200 = calibration::load_profile("h200-sxm");
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  const double launch_h200 = h200.efficiencies.kernel_launch_s,
               launch_a100 = a100.efficiencies.kernel_launch_s;
  const trace::Op long_other = compute_op(ComputeKind::Other, DType::FP16, 0, 0, 100e-6);
  const trace::Op short_other = compute_op(ComputeKind::Other, DType::FP16, 0, 0, launch_h200 / 2);

  const cost::ProgramCosts costs =
      cost::cost_programs(one_program({long_other, short_other}, "h200-sxm"), model, "a100-sxm4-80gb");
  const double ratio = achieved_bandwidth(h200) / achieved_bandwidth(a100);
  CHECK(costs.duration_s[0][0] ==
        simtrain::testing::Approx(launch_a100 + (100e-6 - launch_h200) * ratio).epsilon(kRel));
  // Launch-bound: nothing about it depends on memory bandwidth.
  CHECK(costs.duration_s[0][1] == launch_h200 / 2);
  CHECK(costs.bandwidth_rescaled_ops == 1);
  CHECK(costs.trace_timed_ops == 1);
  CHECK(costs.rescaled_ops == 0);
}

TEST_CASE("host ops are never rescaled by GPU") {
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  const trace::Op host = compute_op(ComputeKind::Host, DType::FP32, 0, 0, 35e-6);
  const cost::ProgramCosts costs =
      cost::cost_programs(one_program({host}, "h200-sxm"), model, "a100-sxm4-80gb");
  CHECK(costs.duration_s[0][0] == 35e-6);
  CHECK(costs.trace_timed_ops == 1);
  CHECK(costs.rescaled_ops + costs.bandwidth_rescaled_ops == 0);
}

TEST_CASE("a trace recorded on the simulated GPU, or on an unnamed one, keeps its durations") {
  const auto h200 = calibration::load_profile("h200-sxm");
  const cost::ComputeCostModel model(h200);
  for (const std::string recorded : {"h200-sxm", "H200-SXM", ""}) {
    CAPTURE(recorded);
    const cost::ProgramCosts costs =
        cost::cost_programs(one_program({recorded_gemm(2e-3)}, recorded), model, "h200-sxm");
    CHECK(costs.duration_s[0][0] == 2e-3);
    CHECK(costs.trace_timed_ops == 1);
    CHECK(costs.rescaled_ops == 0);
    CHECK(costs.rescaled_from.empty());
  }
}

TEST_CASE("a profile file named after a GPU is that GPU") {
  CHECK(cost::same_gpu_name("h200-sxm", "calibration/profiles/h200-sxm.json"));
  CHECK(cost::same_gpu_name("profiles/H200-SXM.json.gz", "h200-sxm"));
  CHECK(cost::same_gpu_name("", "a100-sxm4-80gb"));
  CHECK_FALSE(cost::same_gpu_name("h200-sxm", "a100-sxm4-80gb"));
  CHECK_FALSE(cost::same_gpu_name("h200-sxm", "h100-sxm5"));
}

TEST_CASE("a recorded GPU that names no profile is one clear error") {
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  try {
    cost::cost_programs(one_program({recorded_gemm(1e-3)}, "tpu-v5"), model, "a100-sxm4-80gb");
    FAIL("expected an Error");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("recorded_gpu") != std::string::npos);
    CHECK(message.find("'tpu-v5'") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

TEST_CASE("a kernel in a dtype the simulated GPU lacks is an error, not a duration") {
  const auto v100 = calibration::load_profile("v100-sxm2-32gb");
  const cost::ComputeCostModel model(v100);
  CHECK_THROWS_WITH_AS(
      cost::cost_programs(one_program({recorded_gemm(1e-3)}, "h200-sxm"), model, "v100-sxm2-32gb"),
      doctest::Contains("no bf16 support"), Error);
}

TEST_CASE("cost_programs counts every compute op under exactly one rule") {
  const auto a100 = calibration::load_profile("a100-sxm4-80gb");
  const cost::ComputeCostModel model(a100);
  trace::Op all_reduce;
  all_reduce.type = trace::OpType::Collective;
  all_reduce.collective.bytes = 1e9;
  const trace::Trace t = one_program(
      {
          recorded_gemm(2e-3),                                               // rescaled
          compute_op(ComputeKind::Elementwise, DType::BF16, 0, 1e8, 40e-6),  // rescaled
          compute_op(ComputeKind::Other, DType::BF16, 0, 0, 50e-6),          // by bandwidth
          compute_op(ComputeKind::Other, DType::BF16, 0, 0, 1e-6),           // as recorded
          compute_op(ComputeKind::Host, DType::FP32, 0, 0, 20e-6),           // as recorded
          compute_op(ComputeKind::Elementwise, DType::BF16, 0, 1e8, -1),     // roofline
          all_reduce,                                                        // not a kernel
      },
      "h200-sxm");
  const cost::ProgramCosts costs = cost::cost_programs(t, model, "a100-sxm4-80gb");
  CHECK(costs.rescaled_ops == 2);
  CHECK(costs.bandwidth_rescaled_ops == 1);
  CHECK(costs.trace_timed_ops == 2);
  CHECK(costs.roofline_ops == 1);
  CHECK(costs.measured_ops + costs.interpolated_ops == 0);
  for (double d : costs.duration_s[0]) CHECK((d >= 0 && std::isfinite(d)));
  CHECK(costs.duration_s[0][6] == 0);
}

TEST_CASE("rescale rules have names") {
  CHECK(cost::to_string(cost::RescaleRule::AsRecorded) == "as_recorded");
  CHECK(cost::to_string(cost::RescaleRule::ByEstimate) == "by_estimate");
  CHECK(cost::to_string(cost::RescaleRule::ByBandwidth) == "by_bandwidth");
}

}  // namespace simtrain
