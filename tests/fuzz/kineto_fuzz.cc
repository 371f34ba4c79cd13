// Fuzz target: Kineto / Chrome-trace JSON from torch.profiler (simulator/trace/kineto_events.h and
// kineto_import.h), JSON or gzip-compressed JSON: parsed, then imported as one rank and scaled out to 8.
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/kineto_import.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return simtrain::fuzz::accept_any_bytes(data, size, [](const std::string& bytes) {
    using namespace simtrain;
    const std::string origin = "fuzz.json";
    const nlohmann::json doc = parse_json(
        trace::has_gzip_magic(bytes) ? trace::gunzip(bytes, origin, kMaxDecompressedBytes) : bytes, origin);
    if (!trace::looks_like_kineto(doc)) return;
    const trace::KinetoTrace parsed = trace::parse_kineto(doc, origin);
    trace::ImportReport report;
    trace::import_kineto({parsed}, {}, report);
    trace::ImportOptions ddp;
    ddp.data_parallel_ranks = 8;
    trace::import_kineto({parsed}, ddp, report);
  });
}
