// Fuzz target: the JSON file nccl-tests writes with -J (calibration/nccl_tests_log.h).
#include "calibration/nccl_tests_log.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    const auto log = simtrain::calibration::parse_nccl_tests_json(text, "fuzz.json", {"all_reduce", 0, 0});
    simtrain::calibration::to_collective_measurements(log);
  });
}
