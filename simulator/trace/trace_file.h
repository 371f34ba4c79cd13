// The native trace file: a versioned JSON document (gzip-compressed when the name ends in .gz), read
// strictly so that a typo in a hand-written trace is an error naming the field, not a silent default.
// The format is described field by field in traces/README.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "simulator/trace/trace.h"

namespace simtrain::trace {

inline constexpr const char* kTraceSchemaName = "simtrain-trace";

// The document for `trace`. Deterministic: the same Trace always gives the same document, and every
// double survives a dump and parse exactly. Ranks sharing a program are stored as inclusive ranges.
nlohmann::json trace_to_json(const Trace& trace);

// The Trace a document describes, validated. Throws Error naming `origin` and the JSON field path
// (e.g. "programs[0].ops[3].kind") on a wrong schema or version, a missing, unknown or mistyped field, an
// unknown enum name, or a trace that fails validate().
Trace trace_from_json(const nlohmann::json& document, const std::string& origin);

// The Trace in a file's bytes (JSON, or gzip-compressed JSON, recognised by its magic bytes whatever the
// name). Syntax errors are reported with the file and line; decompression stops at kMaxDecompressedBytes and
// JSON nesting at kMaxJsonDepth (common/input_limits.h).
Trace parse_trace(const std::string& bytes, const std::string& origin);

// parse_trace on the file at `path`.
Trace read_trace_file(const std::string& path);

// Validates `trace`, then writes it to a temporary file beside `path` and renames it into place, so that a
// reader never sees half a trace. Compresses with gzip when `path` ends in ".gz". Output is byte-identical
// for equal traces.
void write_trace_file(const Trace& trace, const std::string& path);

}  // namespace simtrain::trace
