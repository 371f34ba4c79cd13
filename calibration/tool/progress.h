// Progress on stderr: on a terminal one status line rewritten in place, otherwise plain lines (as ninja's
// line printer does), plus warnings that always stay visible.
#pragma once

#include <cstdio>
#include <string>

namespace simtrain::calibration::tool {

class Progress {
 public:
  // `smart_terminal`: rewrite one line instead of printing one per step.
  Progress(std::FILE* out, bool smart_terminal) : out_(out), smart_(smart_terminal) {}
  // Progress on the process's stderr, smart when stderr is a terminal.
  static Progress for_stderr();

  // Starts a family of `total` measurements ("gemm", 343).
  void begin(const std::string& family, int total);
  // One measurement done: "[gemm 12/343] fp16 4096x4096x4096 nt: 0.151 ms".
  void step(const std::string& what);
  // A line that stays: warnings, results of a family, the output path.
  void note(const std::string& line);
  void warn(const std::string& line) { note("warning: " + line); }

 private:
  void clear_status();

  std::FILE* out_;
  bool smart_;
  bool status_shown_ = false;
  std::string family_;
  int total_ = 0;
  int done_ = 0;
};

}  // namespace simtrain::calibration::tool
