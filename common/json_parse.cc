// Implements json_parse.h: a bracket-depth scan, then nlohmann's parser, then (on failure) nlohmann's SAX
// parser once more to learn where it stopped, since json::parse reports no position for 1e999.
#include "common/json_parse.h"

#include <algorithm>
#include <optional>

#include "common/error.h"
#include "common/input_limits.h"

namespace simtrain {
namespace {

using nlohmann::json;

// The byte at which brackets outside strings nest deeper than `limit`, if they do. Counting on text that may
// not be JSON at all is fine: either the text is too deep or it has a syntax error nlohmann reports.
std::optional<std::size_t> too_deep_at(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

// Records where nlohmann's SAX parser gives up, including numbers out of range.
struct FailureLocator {
  std::size_t position = 0;
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const json::string_t&) { return true; }
  bool string(json::string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(json::string_t&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t failed_at, const std::string&, const json::exception&) {
    position = failed_at;
    return false;
  }
};

// Line (1-based) of the byte before `position`: nlohmann counts the characters read, the failing one
// included.
int line_at(const std::string& text, std::size_t position) {
  const std::size_t end = std::min(position == 0 ? 0 : position - 1, text.size());
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

}  // namespace

std::string json_error_text(const json::exception& error) {
  std::string text = error.what();
  if (const auto bracket = text.find("] ");
      text.starts_with("[json.exception.") && bracket != std::string::npos)
    text.erase(0, bracket + 2);
  if (text.starts_with("parse error at ")) {
    if (const auto colon = text.find(": "); colon != std::string::npos) text.erase(0, colon + 2);
  }
  return text;
}

json parse_json(const std::string& text, const std::string& origin) {
  if (const auto at = too_deep_at(text, kMaxJsonDepth))
    throw Error(origin, line_at(text, *at + 1), "",
                "invalid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return json::parse(text);
  } catch (const json::exception& error) {
    FailureLocator locator;
    json::sax_parse(text, &locator);
    throw Error(origin, line_at(text, locator.position), "", "invalid JSON: " + json_error_text(error));
  }
}

}  // namespace simtrain
