// Durations of compute kernels on one GPU model, from a calibration profile: a measured table entry when the
// profile has the kernel's exact shape, else a time interpolated from the measured shapes of the same op and
// dtype (measured_tables.h) but never under the time its bytes take at the profile's memory bandwidth, else
// a roofline with the profile's efficiencies: the larger of a kernel's compute and memory times, except for a
// GEMM, whose tiles' loads and stores overlap their math only in part, so that near the ridge point both
// count: the root of the sum of their squares (fitted on the published GEMMs of low arithmetic intensity,
// leaving each table out: tools/derive_efficiencies.py). A pointwise (1x1, stride 1) convolution costs the
// lesser of the convolution and the GEMM it is, because cuDNN has GEMM engines for it and cudnn.benchmark
// picks the faster (on an H200, PyTorch's 1x1 convolutions of ResNet-50 ran as cuBLAS kernels:
// traces/kineto/h200-resnet50-amp-b256-channels-last.json.gz). A grouped GEMM (a GEMM kernel of shape
// {m, n, k, groups}: the local experts of a MoE layer) costs groups times one group's GEMM {m, n, k}.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/cost/measured_tables.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// Where a kernel's duration came from; the Result counts each.
enum class CostSource : std::uint8_t { Trace, Measured, Interpolated, Roofline };

struct ComputeCost {
  double duration_s = 0;
  CostSource source = CostSource::Roofline;
};

class ComputeCostModel {
 public:
  explicit ComputeCostModel(const calibration::CalibrationProfile& profile);

  // Throws Error when the kernel's dtype is not supported by the GPU (e.g. bf16 on V100).
  ComputeCost cost(const trace::ComputeSpec& kernel) const;

  // The peak rate a kernel of `dtype` runs against: the dtype's own, or fp32's for tf32 on GPUs without
  // tensor-float cores (PyTorch then runs fp32 math). 0 when unsupported.
  double effective_peak_flops(DType dtype) const;

  const calibration::CalibrationProfile& profile() const { return profile_; }

 private:
  double roofline_s(const trace::ComputeSpec& kernel) const;
  // The kernel's time from the tables or the roofline, without the pointwise-convolution alternative.
  ComputeCost table_or_roofline(const trace::ComputeSpec& kernel) const;

  const calibration::CalibrationProfile& profile_;
  MeasuredTables measured_;
};

// Durations of every op of every program of a trace, computed once before replay so that a bad kernel is
// reported before the simulation starts and the replay does no cost lookups. Each compute op is counted
// under exactly one source.
struct ProgramCosts {
  std::vector<std::vector<double>> duration_s;  // [program][op]; 0 for non-compute ops
  std::uint64_t measured_ops = 0;               // counted over programs, not ranks
  std::uint64_t interpolated_ops = 0;
  std::uint64_t roofline_ops = 0;
  std::uint64_t trace_timed_ops = 0;         // measured durations taken as recorded
  std::uint64_t rescaled_ops = 0;            // ... rescaled by the profiles' estimates (kernel_rescale.h)
  std::uint64_t bandwidth_rescaled_ops = 0;  // ... of kernels of unknown size, by the memory bandwidths
  std::string rescaled_from;  // the trace's recorded GPU when its durations were rescaled, else empty
};

// `profile_name` is the name or file the model's profile was loaded by: when the trace's durations were
// recorded on another GPU (TraceMetadata::recorded_gpu), they are rescaled to this one (kernel_rescale.h).
// Throws Error when recorded_gpu names no profile or a kernel cannot run on either GPU.
ProgramCosts cost_programs(const trace::Trace& trace, const ComputeCostModel& model,
                           const std::string& profile_name);

std::string_view to_string(CostSource source);

}  // namespace simtrain::cost
