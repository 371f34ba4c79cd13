// Fuzz target: model TOML files (simulator/workload/model_toml.h).
#include "simulator/workload/model_toml.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(
      data, size, [](const std::string& text) { simtrain::workload::parse_model_toml(text, "fuzz.toml"); });
}
