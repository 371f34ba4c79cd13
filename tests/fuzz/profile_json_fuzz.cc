// Fuzz target: calibration profiles (calibration/profile_json.h), read as read_profile_file reads a file,
// then checked by validate_profile as a writer would before saving it again.
#include "calibration/profile_json.h"
#include "common/json_parse.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    const auto profile =
        simtrain::calibration::profile_from_json(simtrain::parse_json(text, "fuzz.json"), "fuzz.json");
    simtrain::calibration::validate_profile(profile, "fuzz.json");
  });
}
