// The JSON writer: container bookkeeping, string escaping and exact number formatting.
#include "calibration/tool/json_writer.h"

#include <cmath>
#include <cstdio>

#include "common/error.h"

namespace simtrain::calibration::tool {

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

std::string json_number(double number) {
  if (!std::isfinite(number)) throw Error("cannot write the non-finite number " + std::to_string(number));
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", number);
  return buffer;
}

void JsonWriter::newline_indent(std::size_t depth) {
  out_ += '\n';
  out_.append(2 * depth, ' ');
}

void JsonWriter::before_value() {
  if (done_) throw Error("JsonWriter: a second top-level value");
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (level.object) {
    if (!level.key_pending) throw Error("JsonWriter: a value inside an object needs a key first");
    level.key_pending = false;
    return;
  }
  if (level.members++ > 0) out_ += level.inline_container ? ", " : ",";
  if (!level.inline_container) newline_indent(levels_.size());
}

void JsonWriter::key(std::string_view name) {
  if (levels_.empty() || !levels_.back().object) throw Error("JsonWriter: a key outside an object");
  Level& level = levels_.back();
  if (level.key_pending) throw Error("JsonWriter: two keys in a row");
  if (level.members++ > 0) out_ += level.inline_container ? ", " : ",";
  if (!level.inline_container) newline_indent(levels_.size());
  out_ += json_quoted(name) + ": ";
  level.key_pending = true;
}

void JsonWriter::open(bool object, bool inline_container) {
  before_value();
  // Inside a one-line container everything stays on that line.
  const bool on_one_line = inline_container || (!levels_.empty() && levels_.back().inline_container);
  out_ += object ? '{' : '[';
  levels_.push_back({object, on_one_line});
}

void JsonWriter::close(bool object) {
  if (levels_.empty() || levels_.back().object != object)
    throw Error(std::string("JsonWriter: no open ") + (object ? "object" : "array") + " to close");
  const Level level = levels_.back();
  if (level.key_pending) throw Error("JsonWriter: a key without a value");
  levels_.pop_back();
  if (!level.inline_container && level.members > 0) newline_indent(levels_.size());
  out_ += object ? '}' : ']';
  if (levels_.empty()) done_ = true;
}

void JsonWriter::begin_object(bool inline_container) { open(true, inline_container); }
void JsonWriter::end_object() { close(true); }
void JsonWriter::begin_array(bool inline_container) { open(false, inline_container); }
void JsonWriter::end_array() { close(false); }

void JsonWriter::value(std::string_view text) {
  before_value();
  out_ += json_quoted(text);
  if (levels_.empty()) done_ = true;
}

void JsonWriter::value(double number) {
  const std::string formatted = json_number(number);  // throws before anything is written
  before_value();
  out_ += formatted;
  if (levels_.empty()) done_ = true;
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
  if (levels_.empty()) done_ = true;
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  if (levels_.empty()) done_ = true;
}

const std::string& JsonWriter::text() const {
  if (!levels_.empty()) throw Error("JsonWriter: the document still has an open container");
  return out_;
}

}  // namespace simtrain::calibration::tool
