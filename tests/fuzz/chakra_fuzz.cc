// Fuzz target: Chakra execution traces (simulator/trace/chakra_trace.h), read as a one-rank and as a
// two-rank job (the second rank's file is the first one's), so that peers and communicators get checked.
#include "simulator/trace/chakra_trace.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& bytes) {
    simtrain::trace::looks_like_chakra(bytes);
    simtrain::trace::ImportReport report;
    try {
      simtrain::trace::import_chakra({bytes}, {"fuzz.0.et"}, report);
    } catch (const simtrain::Error&) {
    }
    simtrain::trace::import_chakra({bytes, bytes}, {"fuzz.0.et", "fuzz.1.et"}, report);
  });
}
