// Implements trace_import.h: read each file (gunzipping by magic bytes), tell its format from the content,
// and hand it to the importer of that format.
#include "simulator/trace/trace_import.h"

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "simulator/trace/chakra_trace.h"
#include "simulator/trace/gzip.h"
#include "simulator/trace/kineto_events.h"
#include "simulator/trace/kineto_import.h"
#include "simulator/trace/pytorch_et_import.h"
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
  if (!is_json_text(bytes)) {
    if (looks_like_chakra(bytes)) return TraceFormat::ChakraProtobuf;
    throw Error(origin, 0, "", "not a trace: neither JSON (simtrain, Kineto, PyTorch execution trace) nor a "
                               "Chakra protobuf trace");
  }
  const nlohmann::json doc = parse_json(bytes, origin);
  if (looks_like_kineto(doc)) return TraceFormat::Kineto;
  if (looks_like_pytorch_et(doc)) return TraceFormat::PytorchExecutionTrace;
  if (doc.is_object() && doc.contains("schema") && doc["schema"] == kTraceSchemaName) return TraceFormat::Native;
  throw Error(origin, 0, "", "JSON that is not a trace simtrain reads (no \"traceEvents\" of a Kineto trace, "
                             "no \"nodes\" of a PyTorch execution trace, no \"schema\": \"simtrain-trace\")");
}

Trace import_trace_files(const std::vector<std::string>& paths, const ImportOptions& options,
                         ImportReport& report) {
  if (paths.empty()) throw Error("no trace file given");
  std::vector<KinetoTrace> kineto;
  std::vector<std::string> chakra_bytes;
  const auto alone = [&](const std::string& path, TraceFormat format) {
    if (paths.size() > 1)
      throw Error(path, 0, "", std::string("a ") + std::string(to_string(format)) + " is given alone");
    if (options.data_parallel_ranks > 0)
      throw Error(path, 0, "", "--gpus: scaling out applies to a Kineto trace of one GPU");
    report.format = format;
  };
  for (const std::string& path : paths) {
    std::string text = file_text(path);
    if (!is_json_text(text)) {
      if (!looks_like_chakra(text))
        throw Error(path, 0, "", "not a trace: neither JSON (simtrain, Kineto, PyTorch execution trace) nor a "
                                 "Chakra protobuf trace");
      report.format = TraceFormat::ChakraProtobuf;
      chakra_bytes.push_back(std::move(text));
      continue;
    }
    const nlohmann::json doc = parse_json(text, path);
    text.clear();
    text.shrink_to_fit();
    if (looks_like_kineto(doc)) {
      report.format = TraceFormat::Kineto;
      kineto.push_back(parse_kineto(doc, path));
    } else if (looks_like_pytorch_et(doc)) {
      alone(path, TraceFormat::PytorchExecutionTrace);
      return import_pytorch_et(doc, path, report);
    } else if (doc.is_object() && doc.contains("schema") && doc["schema"] == kTraceSchemaName) {
      alone(path, TraceFormat::Native);
      return trace_from_json(doc, path);
    } else {
      throw Error(path, 0, "", "JSON that is not a trace simtrain reads (no \"traceEvents\" of a Kineto trace, "
                               "no \"nodes\" of a PyTorch execution trace, no \"schema\": \"simtrain-trace\")");
    }
  }
  if (!chakra_bytes.empty() && !kineto.empty())
    throw Error(paths[0], 0, "", "give the files of one trace: Kineto and Chakra files are mixed");
  if (!chakra_bytes.empty()) {
    if (options.data_parallel_ranks > 0)
      throw Error(paths[0], 0, "", "--gpus: scaling out applies to a Kineto trace of one GPU");
    return import_chakra(chakra_bytes, paths, report);
  }
  return import_kineto(kineto, options, report);
}

}  // namespace simtrain::trace
