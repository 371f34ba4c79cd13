// The profile file: reading with line numbers for syntax errors, and atomic writes that never replace a good
// profile with a bad or half-written one. The JSON form itself lives in profile_json.cc.
#include "calibration/profile_json.h"


#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <iterator>

#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::calibration {
namespace {

using nlohmann::json;

// nlohmann prefixes messages with "[json.exception.<kind>.<id>] " and, for syntax errors, the position; we
// report the position ourselves, as file:line.
std::string plain_message(const std::string& what) {
  std::string text = what;
  if (const auto bracket = text.find("] ");
      text.starts_with("[json.exception.") && bracket != std::string::npos)
    text.erase(0, bracket + 2);
  if (text.starts_with("parse error at ")) {
    if (const auto colon = text.find(": "); colon != std::string::npos) text.erase(0, colon + 2);
  }
  return text;
}

// Finds where nlohmann's parser gave up: its SAX interface reports the byte offset of every failure,
// including numbers out of range (1e999), which json::parse reports without one.
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

// Line (1-based) of the character at which the parser stopped; `position` counts the characters read.
int line_of(const std::string& text, std::size_t position) {
  const std::size_t end = std::min(position == 0 ? 0 : position - 1, text.size());
  return 1 +
         static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

json parse_document(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& error) {
    FailureLocator locator;
    json::sax_parse(text, &locator);
    throw Error(origin, line_of(text, locator.position), "", "invalid JSON: " + plain_message(error.what()));
  }
}

}  // namespace

CalibrationProfile read_profile_file(const std::string& path) {
  return profile_from_json(parse_document(read_file(path), path), path);
}

void write_profile_file(const CalibrationProfile& profile, const std::string& path) {
  // Everything that can fail before the disk is touched happens first: validation, then serialization
  // (which throws on strings that are not UTF-8).
  validate_profile(profile, path);
  std::string text;
  try {
    text = to_json(profile).dump(2) + "\n";
  } catch (const json::exception& error) {
    throw Error(path, 0, "", "cannot serialize profile: " + plain_message(error.what()));
  }

  write_file_atomically(path, text);
}

}  // namespace simtrain::calibration
