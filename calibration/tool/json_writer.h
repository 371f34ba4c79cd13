// A small JSON writer, so that simtrain-calibrate builds on GPU machines that have no JSON library: objects,
// arrays, escaped strings and numbers that read back exactly (%.17g).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace simtrain::calibration::tool {

// Writes one JSON document into a string. Containers opened with `inline_container` stay on one line (a
// table row, a shape); the others put each member on its own indented line. Misuse (a value where a key
// is due, closing the wrong container) and non-finite numbers throw Error.
class JsonWriter {
 public:
  void begin_object(bool inline_container = false);
  void end_object();
  void begin_array(bool inline_container = false);
  void end_array();
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(double number);
  void value(std::int64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void value(bool flag);
  // key(name) then value(v).
  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  // The document; throws Error while a container is still open.
  const std::string& text() const;

 private:
  struct Level {
    bool object;
    bool inline_container;
    int members = 0;
    bool key_pending = false;
  };
  void before_value();
  void open(bool object, bool inline_container);
  void close(bool object);
  void newline_indent(std::size_t depth);

  std::string out_;
  std::vector<Level> levels_;
  bool done_ = false;
};

// `text` as a JSON string literal, quotes included.
std::string json_quoted(std::string_view text);
// `number` as JSON text that reads back as the same double; throws Error for NaN and infinities.
std::string json_number(double number);

}  // namespace simtrain::calibration::tool
