// Reading and writing calibration profiles as JSON (schema "simtrain-profile", version
// kProfileSchemaVersion).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "calibration/calibration_profile.h"

namespace simtrain::calibration {

nlohmann::json to_json(const CalibrationProfile& profile);
// `origin` names the file in error messages. Throws Error naming the field path (e.g. "device.memory_bytes").
CalibrationProfile profile_from_json(const nlohmann::json& document, const std::string& origin);
// Checks a profile built in code (e.g. by a measuring tool) against the rules profile_from_json applies to
// files, so that nothing is written that could not be read back. Throws Error naming `origin` and the field.
void validate_profile(const CalibrationProfile& profile, const std::string& origin);

// Throws Error with file and line on unreadable files and syntax errors.
CalibrationProfile read_profile_file(const std::string& path);
// Writes to a temporary file beside `path` and renames it, so a failed write never replaces a good profile.
void write_profile_file(const CalibrationProfile& profile, const std::string& path);

}  // namespace simtrain::calibration
