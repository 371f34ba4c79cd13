// The project's one error type: every piece of bad input becomes an Error that says where it was found
// (file, line, field) and what kind of problem it is, so that a command-line driver can print it as one line
// and exit with the status of its kind (common/exit_codes.h).
#pragma once

#include <stdexcept>
#include <string>

namespace simtrain {

// What an Error says about the input, so that callers (a study's runner, a script) can tell a typo from a
// plan that cannot run without reading message text.
enum class ErrorKind {
  BadInput,    // the input is wrong: an unknown name, a malformed file, a value out of range
  Infeasible,  // the input is well-formed but the plan cannot run: it does not divide, or does not fit in
               // GPU memory (without --allow-oom)
};

class Error : public std::runtime_error {
 public:
  // A problem with no particular source location (an option value, an impossible configuration).
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::BadInput);
  // A problem found in `file` at `line` (0 when unknown) in `field` (empty when the file itself is bad).
  Error(const std::string& file, int line, const std::string& field, const std::string& message,
        ErrorKind kind = ErrorKind::BadInput);

  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }
  const std::string& field() const noexcept { return field_; }
  // The message without the location prefix.
  const std::string& message() const noexcept { return message_; }
  ErrorKind kind() const noexcept { return kind_; }

 private:
  std::string file_;
  int line_ = 0;
  std::string field_;
  std::string message_;
  ErrorKind kind_ = ErrorKind::BadInput;
};

}  // namespace simtrain
