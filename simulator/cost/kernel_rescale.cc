// Implements kernel_rescale.h: measured durations carried from the recording GPU to the simulated one.
#include "simulator/cost/kernel_rescale.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "calibration/spec_profiles.h"
#include "common/error.h"

namespace simtrain::cost {
namespace {

// A profile's name as a person would say it: a file's name without directory and extensions, lowercased
// as spec names are looked up.
std::string profile_key(const std::string& name_or_path) {
  std::string key = std::filesystem::path(name_or_path).filename().string();
  if (const auto dot = key.find('.'); dot != std::string::npos && dot > 0) key.resize(dot);
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return key;
}

// Bytes per second a memory-bound kernel reaches on the profile's GPU.
double achieved_bandwidth_Bps(const calibration::CalibrationProfile& profile) {
  return profile.device.memory_bandwidth_Bps * profile.efficiencies.memory_bound;
}

bool positive_finite(double x) { return x > 0 && std::isfinite(x); }

}  // namespace

bool same_gpu_name(const std::string& recorded_gpu, const std::string& target_name) {
  return recorded_gpu.empty() || profile_key(recorded_gpu) == profile_key(target_name);
}

KernelRescale::KernelRescale(const std::string& recorded_gpu, const ComputeCostModel& target,
                             const std::string& target_name)
    : recorded_gpu_(recorded_gpu), target_(target) {
  if (same_gpu_name(recorded_gpu, target_name)) return;
  calibration::CalibrationProfile source;
  try {
    source = calibration::load_profile(recorded_gpu);
  } catch (const Error& e) {
    throw Error("trace metadata.recorded_gpu: " + std::string(e.what()), e.kind());
  }
  // Another name for the same card (a measured profile file of the GPU the target's spec describes).
  if (source.device.name == target.profile().device.name) return;
  const double source_bw = achieved_bandwidth_Bps(source),
               target_bw = achieved_bandwidth_Bps(target.profile());
  if (!positive_finite(source_bw) || !positive_finite(target_bw))
    throw Error("rescaling from " + recorded_gpu + " to " + target_name +
                ": both profiles need a positive memory bandwidth");
  source_profile_ = std::make_unique<const calibration::CalibrationProfile>(std::move(source));
  source_ = std::make_unique<const ComputeCostModel>(*source_profile_);
}

RescaledDuration KernelRescale::rescale(const trace::ComputeSpec& kernel) const {
  const double recorded = kernel.duration_s;
  if (!active() || kernel.kind == trace::ComputeKind::Host) return {recorded, RescaleRule::AsRecorded};

  if (kernel.flops <= 0 && kernel.bytes <= 0) {
    // Nothing to estimate from. The source's launch cost is the part no bandwidth changes.
    const double source_launch = source_profile_->efficiencies.kernel_launch_s;
    if (recorded <= source_launch) return {recorded, RescaleRule::AsRecorded};
    const double ratio = achieved_bandwidth_Bps(*source_profile_) / achieved_bandwidth_Bps(target_.profile());
    const double target_launch = target_.profile().efficiencies.kernel_launch_s;
    return {target_launch + (recorded - source_launch) * ratio, RescaleRule::ByBandwidth};
  }

  trace::ComputeSpec estimated = kernel;
  estimated.duration_s = -1;
  const double source_s = source_->cost(estimated).duration_s;
  const double target_s = target_.cost(estimated).duration_s;
  if (!positive_finite(source_s) || !(target_s >= 0 && std::isfinite(target_s))) {
    std::ostringstream message;
    message << "rescaling a " << trace::to_string(kernel.kind) << " kernel from " << recorded_gpu_
            << ": the estimates (" << source_s << " s there, " << target_s << " s here) are not positive "
            << "finite times";
    throw Error(message.str());
  }
  return {recorded * (target_s / source_s), RescaleRule::ByEstimate};
}

std::string_view to_string(RescaleRule rule) {
  switch (rule) {
    case RescaleRule::AsRecorded:
      return "as_recorded";
    case RescaleRule::ByEstimate:
      return "by_estimate";
    case RescaleRule::ByBandwidth:
      return "by_bandwidth";
  }
  return "as_recorded";
}

}  // namespace simtrain::cost
