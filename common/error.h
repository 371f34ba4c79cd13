// The project's one error type: every piece of bad input becomes an Error that says where it was found
// (file, line, field), so that a command-line driver can print it as one line and exit non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace simtrain {

class Error : public std::runtime_error {
 public:
  // A problem with no particular source location (an option value, an impossible configuration).
  explicit Error(const std::string& message);
  // A problem found in `file` at `line` (0 when unknown) in `field` (empty when the file itself is bad).
  Error(const std::string& file, int line, const std::string& field, const std::string& message);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const std::string& field() const noexcept { return field_; }
  // The message without the location prefix.
  const std::string& message() const noexcept { return message_; }

 private:
  std::string file_;
  int line_ = 0;
  std::string field_;
  std::string message_;
};

}  // namespace simtrain
