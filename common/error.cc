// Implements error.h: the one-line "file:line: field: message" form of errors.
#include "common/error.h"

namespace simtrain {
namespace {

std::string located(const std::string& file, int line, const std::string& field, const std::string& message) {
  std::string text;
  if (!file.empty()) {
    text += file;
    if (line > 0) text += ":" + std::to_string(line);
    text += ": ";
  }
  if (!field.empty()) text += field + ": ";
  return text + message;
}

}  // namespace

Error::Error(const std::string& message, ErrorKind kind)
    : std::runtime_error(message), message_(message), kind_(kind) {}

Error::Error(const std::string& file, int line, const std::string& field, const std::string& message,
             ErrorKind kind)
    : std::runtime_error(located(file, line, field, message)),
      file_(file),
      line_(line),
      field_(field),
      message_(message),
      kind_(kind) {}

}  // namespace simtrain
