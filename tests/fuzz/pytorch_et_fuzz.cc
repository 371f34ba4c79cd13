// Fuzz target: PyTorch execution traces (simulator/trace/pytorch_et_import.h), JSON or gzip-compressed
// JSON, parsed as every JSON reader of the project parses (common/json_parse.h).
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/pytorch_et_import.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& bytes) {
    using namespace simtrain;
    const std::string origin = "fuzz.et.json";
    const nlohmann::json doc = parse_json(
        trace::has_gzip_magic(bytes) ? trace::gunzip(bytes, origin, kMaxDecompressedBytes) : bytes, origin);
    trace::ImportReport report;
    if (trace::looks_like_pytorch_et(doc)) trace::import_pytorch_et(doc, origin, report);
  });
}
