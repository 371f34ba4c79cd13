// Reading and writing native trace files: plain or gzip-compressed bytes, a stable line layout for the
// JSON (one op per line, so that traces diff well), and atomic replacement of the file on write.
#include "simulator/trace/trace_file.h"


#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/json_parse.h"
#include "simulator/trace/gzip.h"

namespace simtrain::trace {
namespace {

using nlohmann::json;

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ---- layout ----

// The document with top-level arrays, each program and its op list broken over lines, and everything
// below that (an op, a communicator, a range list) on one line: readable for a few ops, compact for 16k
// ranks. nlohmann's compact dump sorts keys and prints doubles in shortest round-trip form.
void write_layout(const json& j, int depth, std::string& out) {
  const bool is_program = depth == 2 && j.is_object() && j.contains("ops");
  const bool break_lines =
      (j.is_object() || j.is_array()) && !j.empty() &&
      (depth == 0 || (depth == 1 && j.is_array()) || is_program ||
       (depth == 3 && j.is_array() && j.front().is_object() && j.front().contains("type")));
  if (!break_lines) {
    out += j.dump();
    return;
  }
  const std::string indent(2 * (depth + 1), ' ');
  out += j.is_object() ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += indent;
    if (j.is_object()) out += json(it.key()).dump() + ": ";
    write_layout(*it, depth + 1, out);
  }
  out += "\n" + std::string(2 * depth, ' ') + (j.is_object() ? "}" : "]");
}

}  // namespace

Trace parse_trace(const std::string& bytes, const std::string& origin) {
  if (has_gzip_magic(bytes))
    return trace_from_json(parse_json(gunzip(bytes, origin, kMaxDecompressedBytes), origin), origin);
  return trace_from_json(parse_json(bytes, origin), origin);
}

Trace read_trace_file(const std::string& path) { return parse_trace(read_file(path), path); }

void write_trace_file(const Trace& trace, const std::string& path) {
  validate(trace, path);
  std::string text;
  try {
    write_layout(trace_to_json(trace), 0, text);
  } catch (const json::exception& e) {  // e.g. a name that is not valid UTF-8
    throw Error(path, 0, "", std::string("cannot encode trace as JSON: ") + e.what());
  }
  text += '\n';
  // Through write_file_atomically: a temporary created exclusively beside `path`, renamed into place, and
  // never a link planted at either name followed.
  write_file_atomically(path, ends_with(path, ".gz") ? gzip(text, path) : text);
}

}  // namespace simtrain::trace
