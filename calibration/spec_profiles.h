// Spec profiles: calibration profiles built from datasheet figures alone, for GPUs nobody has measured.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/calibration_profile.h"

namespace simtrain::calibration {

// Names accepted by spec_profile(), e.g. "a100-sxm4-80gb", "h100-sxm5".
std::vector<std::string> spec_profile_names();
std::optional<CalibrationProfile> spec_profile(const std::string& name);

// A profile by spec name or by file path (a name wins when both exist). Throws Error when neither works.
CalibrationProfile load_profile(const std::string& name_or_path);

}  // namespace simtrain::calibration
