// Fuzz target: nccl-tests text output (calibration/nccl_tests_log.h), turned into calibration measurements
// as `simtrain profile import` does. The hints stand in for what a user may give on the command line.
#include "calibration/nccl_tests_log.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& text) {
    const auto log = simtrain::calibration::parse_nccl_tests_log(text, "fuzz.log", {"all_reduce", 8, 1});
    simtrain::calibration::to_collective_measurements(log);
  });
}
