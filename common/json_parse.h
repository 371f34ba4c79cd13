// Parsing JSON text with nlohmann into the project's Error, for every JSON reader (traces, calibration
// profiles, nccl-tests -J files): syntax errors and out-of-range numbers (1e999) name the file and line, and
// nesting is bounded before nlohmann builds anything.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace simtrain {

// The document, or Error(origin, line, "", "invalid JSON: ...") at the first syntax error, number out of
// range, or bracket nested deeper than kMaxJsonDepth (common/input_limits.h).
nlohmann::json parse_json(const std::string& text, const std::string& origin);

// nlohmann's message without its "[json.exception.<kind>.<id>] " prefix and "parse error at ...: " position.
std::string json_error_text(const nlohmann::json::exception& error);

}  // namespace simtrain
