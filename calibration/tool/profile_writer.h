// Writing a measured calibration profile as the JSON that calibration/profile_json.cc reads, without a JSON
// library, and replacing the output file only once the whole profile is on disk.
#pragma once

#include <string>

#include "calibration/calibration_profile.h"

namespace simtrain::calibration::tool {

// The profile as JSON text with every field profile_to_json writes (schema "simtrain-profile", version
// kProfileSchemaVersion). Throws Error on NaN or infinite numbers, which a profile cannot hold.
std::string profile_json_text(const CalibrationProfile& profile);

// Fails early, before a long measurement, when `path` could not be written: creates and removes a
// temporary file beside it. Throws Error naming the path.
void check_output_writable(const std::string& path);

}  // namespace simtrain::calibration::tool
