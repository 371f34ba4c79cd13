// Implements compute_cost.h: measured, interpolated or roofline kernel durations.
#include "simulator/cost/compute_cost.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace simtrain::cost {
namespace {

// The measured-table name of a kernel: "gemm" for GEMMs, "<kind>_<pass>" otherwise ("conv_forward").
std::string measured_op_name(const trace::ComputeSpec& kernel) {
  if (kernel.kind == trace::ComputeKind::Gemm) return "gemm";
  return std::string(trace::to_string(kernel.kind)) + "_" + std::string(trace::to_string(kernel.pass));
}

}  // namespace

ComputeCostModel::ComputeCostModel(const calibration::CalibrationProfile& profile)
    : profile_(profile), measured_(profile) {}

double ComputeCostModel::effective_peak_flops(DType dtype) const {
  double peak = profile_.peak_flops(dtype);
  if (peak <= 0 && dtype == DType::TF32) peak = profile_.peak_flops(DType::FP32);
  return peak;
}

double ComputeCostModel::roofline_s(const trace::ComputeSpec& kernel) const {
  const auto& eff = profile_.efficiencies;
  double compute_s = 0;
  if (kernel.flops > 0) {
    double peak = effective_peak_flops(kernel.dtype);
    if (peak <= 0)
      throw Error(profile_.device.name + " has no " + std::string(to_string(kernel.dtype)) +
                  " support (kernel " + std::string(trace::to_string(kernel.kind)) + ")");
    // tf32 on a GPU without TF32 units runs as fp32 (effective_peak_flops fell back to fp32's peak).
    bool simt = kernel.dtype == DType::FP32 || profile_.peak_flops(kernel.dtype) <= 0;
    bool tf32 = kernel.dtype == DType::TF32 && !simt;
    double efficiency = eff.memory_bound;
    switch (kernel.kind) {
      case trace::ComputeKind::Gemm:
        efficiency = simt ? eff.gemm_fp32 : tf32 ? eff.gemm_tf32 : eff.gemm;
        break;
      case trace::ComputeKind::Conv:
        efficiency = simt ? eff.conv_fp32 : tf32 ? eff.conv_tf32 : eff.conv;
        break;
      case trace::ComputeKind::Attention:
        efficiency = eff.attention;
        break;
      default:
        // Memory-bound kernels do their few FLOPs on the vector units, never on tensor cores.
        peak = profile_.peak_flops(DType::FP32);
        break;
    }
    compute_s = kernel.flops / (peak * efficiency);
  }
  double memory_s = kernel.bytes / (profile_.device.memory_bandwidth_Bps * eff.memory_bound);
  return std::max(compute_s, memory_s) + eff.kernel_launch_s;
}

ComputeCost ComputeCostModel::cost(const trace::ComputeSpec& kernel) const {
  if (kernel.duration_s >= 0) return {kernel.duration_s, CostSource::Trace};
  if (!measured_.empty()) {
    const std::string op = measured_op_name(kernel);
    if (auto t = measured_.exact_s(op, kernel.dtype, kernel.shape)) return {*t, CostSource::Measured};
    if (auto t = measured_.interpolated_s(op, kernel.dtype, kernel.shape))
      return {*t, CostSource::Interpolated};
  }
  return {roofline_s(kernel), CostSource::Roofline};
}

ProgramCosts cost_programs(const trace::Trace& trace, const ComputeCostModel& model) {
  ProgramCosts costs;
  costs.duration_s.resize(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p].ops;
    auto& durations = costs.duration_s[p];
    durations.assign(ops.size(), 0.0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].type != trace::OpType::Compute) continue;
      ComputeCost c = model.cost(ops[i].compute);
      durations[i] = c.duration_s;
      switch (c.source) {
        case CostSource::Trace:
          ++costs.trace_timed_ops;
          break;
        case CostSource::Measured:
          ++costs.measured_ops;
          break;
        case CostSource::Interpolated:
          ++costs.interpolated_ops;
          break;
        case CostSource::Roofline:
          ++costs.roofline_ops;
          break;
      }
    }
  }
  return costs;
}

std::string_view to_string(CostSource source) {
  switch (source) {
    case CostSource::Trace:
      return "trace";
    case CostSource::Measured:
      return "measured";
    case CostSource::Interpolated:
      return "interpolated";
    case CostSource::Roofline:
      return "roofline";
  }
  return "roofline";
}

}  // namespace simtrain::cost
