// The profile file: reading with line numbers for syntax errors, and atomic writes that never replace a good
// profile with a bad or half-written one. The JSON form itself lives in profile_json.cc.
#include "calibration/profile_json.h"

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_parse.h"

namespace simtrain::calibration {

using nlohmann::json;

CalibrationProfile read_profile_file(const std::string& path) {
  return profile_from_json(parse_json(read_file(path), path), path);
}

void write_profile_file(const CalibrationProfile& profile, const std::string& path) {
  // Everything that can fail before the disk is touched happens first: validation, then serialization
  // (which throws on strings that are not UTF-8).
  validate_profile(profile, path);
  std::string text;
  try {
    text = to_json(profile).dump(2) + "\n";
  } catch (const json::exception& error) {
    throw Error(path, 0, "", "cannot serialize profile: " + json_error_text(error));
  }

  write_file_atomically(path, text);
}

}  // namespace simtrain::calibration
