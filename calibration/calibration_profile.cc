// The calibration profile's few behaviours: peak-rate lookup and the names of profile kinds.
#include "calibration/calibration_profile.h"

namespace simtrain::calibration {

double CalibrationProfile::peak_flops(DType dtype) const {
  const auto found = device.peak_flops_per_s.find(dtype);
  return found == device.peak_flops_per_s.end() ? 0.0 : found->second;
}

std::string_view to_string(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::Spec:
      return "spec";
    case ProfileKind::Measured:
      return "measured";
  }
  return "spec";
}

std::optional<ProfileKind> parse_profile_kind(std::string_view text) {
  for (ProfileKind kind : {ProfileKind::Spec, ProfileKind::Measured})
    if (to_string(kind) == text) return kind;
  return std::nullopt;
}

}  // namespace simtrain::calibration
