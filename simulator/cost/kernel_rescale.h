// Kernel durations measured on one GPU, predicted for another. An imported trace knows what its kernels
// really took on the GPU it was recorded on (TraceMetadata::recorded_gpu), including inefficiencies no table
// or roofline has; rescaling keeps that and moves only what the hardware changes:
//
// - a kernel the cost model can estimate (flops or bytes known): recorded x t_target / t_source, where t_X
//   is what ComputeCostModel on profile X estimates for the same kernel without its measured duration. The
//   model picks the rate that limits the kernel on each GPU, so GEMMs, convolutions and attention scale by
//   the profiles' tensor-core rates for their dtype and shape and memory-bound kernels by bandwidth;
// - a kernel with neither flops nor bytes (one the importer could not classify): launch-bound when its
//   recorded time is within the source's launch cost, then kept as recorded; otherwise its launch cost is
//   kept and the rest scales by the achieved memory bandwidths (bandwidth x memory-bound efficiency), because
//   the kernels importers cannot size are mostly copies, casts and reductions, not matrix products;
// - a host op (ComputeKind::Host) is CPU work: never rescaled by GPU.
//
// Both profiles are calibration::load_profile names or files. Rescaling between a spec profile and a
// measured one also moves the difference between datasheet efficiencies and measured tables, so the
// prediction is most faithful when both are of the same kind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "calibration/calibration_profile.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// How a measured duration was carried to the GPU being simulated; the Result counts each.
enum class RescaleRule : std::uint8_t {
  AsRecorded,   // same GPU, a host op, or a launch-bound kernel of unknown size
  ByEstimate,   // recorded x t_target / t_source of the cost model's estimates
  ByBandwidth,  // a kernel of unknown size: launch kept, the rest by the memory-bandwidth ratio
};

struct RescaledDuration {
  double duration_s = 0;
  RescaleRule rule = RescaleRule::AsRecorded;
};

// Whether `recorded_gpu` and `target_name` (each a profile name or file, as calibration::load_profile takes
// them) are the same GPU: equal names ignoring case, where a file stands for its name without directory and
// extensions (calibration/profiles/h200-sxm.json is "h200-sxm"). An empty recorded_gpu is taken as the
// target: nothing says the recording was made elsewhere.
bool same_gpu_name(const std::string& recorded_gpu, const std::string& target_name);

class KernelRescale {
 public:
  // Rescaling from the GPU `recorded_gpu` names to `target`, the model of the profile loaded by
  // `target_name`. Inactive when they are the same GPU (same_gpu_name, or equal device names). Throws Error
  // when recorded_gpu names no profile.
  KernelRescale(const std::string& recorded_gpu, const ComputeCostModel& target,
                const std::string& target_name);

  // False when durations are taken as recorded.
  bool active() const { return source_ != nullptr; }
  const std::string& recorded_gpu() const { return recorded_gpu_; }

  // The duration of a kernel with a measured duration (kernel.duration_s >= 0) on the target GPU. Throws
  // Error when either GPU cannot run the kernel's dtype or an estimate is not a positive finite time.
  RescaledDuration rescale(const trace::ComputeSpec& kernel) const;

 private:
  std::string recorded_gpu_;
  const ComputeCostModel& target_;
  // Owned on the heap: ComputeCostModel keeps a reference to its profile, which must not move.
  std::unique_ptr<const calibration::CalibrationProfile> source_profile_;
  std::unique_ptr<const ComputeCostModel> source_;
};

std::string_view to_string(RescaleRule rule);

}  // namespace simtrain::cost
