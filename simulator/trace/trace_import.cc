// Implements trace_import.h: read each file (gunzipping by magic bytes), tell its format from the content,
// and hand it to the importer of that format.
#include "simulator/trace/trace_import.h"

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/kineto_events.h"
#include "simulator/trace/kineto_import.h"
#include "simulator/trace/trace_file.h"

namespace simtrain::trace {
namespace {

std::string file_text(const std::string& path) {
  std::string bytes = read_file(path);
  if (has_gzip_magic(bytes)) bytes = gunzip(bytes, path, kMaxDecompressedBytes);
  return bytes;
}

bool is_json_text(const std::string& bytes) {
  for (char c : bytes) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace

std::string_view to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::Native: return "simtrain trace";
    case TraceFormat::Kineto: return "Kineto (torch.profiler) trace";
    case TraceFormat::PytorchExecutionTrace: return "PyTorch execution trace";
    case TraceFormat::ChakraProtobuf: return "Chakra execution trace";
  }
  return "unknown";
}

TraceFormat detect_trace_format(const std::string& bytes, const std::string& origin) {
  if (!is_json_text(bytes))
    throw Error(origin, 0, "", "not a trace: neither JSON (simtrain, Kineto, PyTorch execution trace) nor a "
                               "Chakra protobuf trace");
  const nlohmann::json doc = parse_json(bytes, origin);
  if (looks_like_kineto(doc)) return TraceFormat::Kineto;
  if (doc.is_object() && doc.contains("schema") && doc["schema"] == kTraceSchemaName) return TraceFormat::Native;
  throw Error(origin, 0, "", "JSON that is not a trace simtrain reads (no \"traceEvents\" of a Kineto trace, "
                             "no \"schema\": \"simtrain-trace\")");
}

Trace import_trace_files(const std::vector<std::string>& paths, const ImportOptions& options,
                         ImportReport& report) {
  if (paths.empty()) throw Error("no trace file given");
  std::vector<KinetoTrace> kineto;
  for (const std::string& path : paths) {
    const std::string text = file_text(path);
    if (!is_json_text(text))
      throw Error(path, 0, "", "not a trace: neither JSON (simtrain, Kineto, PyTorch execution trace) nor a "
                               "Chakra protobuf trace");
    const nlohmann::json doc = parse_json(text, path);
    if (looks_like_kineto(doc)) {
      report.format = TraceFormat::Kineto;
      kineto.push_back(parse_kineto(doc, path));
      continue;
    }
    if (doc.is_object() && doc.contains("schema") && doc["schema"] == kTraceSchemaName) {
      if (paths.size() > 1) throw Error(path, 0, "", "a simtrain trace holds every rank: give it alone");
      if (options.data_parallel_ranks > 0)
        throw Error(path, 0, "", "--gpus: a simtrain trace has its ranks already; scale out a recorded trace");
      report.format = TraceFormat::Native;
      return trace_from_json(doc, path);
    }
    throw Error(path, 0, "", "JSON that is not a trace simtrain reads (no \"traceEvents\" of a Kineto trace, "
                             "no \"schema\": \"simtrain-trace\")");
  }
  return import_kineto(kineto, options, report);
}

}  // namespace simtrain::trace
