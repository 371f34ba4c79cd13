// Fuzz target: native trace files (simulator/trace/trace_file.h), JSON or gzip-compressed JSON.
#include "simulator/trace/trace_file.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(
      data, size, [](const std::string& bytes) { simtrain::trace::parse_trace(bytes, "fuzz.json"); });
}
