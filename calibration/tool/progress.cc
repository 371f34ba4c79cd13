// Writing progress lines, rewriting the status line on terminals.
#include "calibration/tool/progress.h"

#include <unistd.h>

namespace simtrain::calibration::tool {

Progress Progress::for_stderr() { return Progress(stderr, ::isatty(STDERR_FILENO) == 1); }

void Progress::clear_status() {
  if (status_shown_) std::fputs("\r\033[K", out_);
  status_shown_ = false;
}

void Progress::begin(const std::string& family, int total) {
  family_ = family;
  total_ = total;
  done_ = 0;
}

void Progress::step(const std::string& what) {
  ++done_;
  const std::string line =
      "[" + family_ + " " + std::to_string(done_) + "/" + std::to_string(total_) + "] " + what;
  if (smart_) {
    clear_status();
    std::fputs(line.c_str(), out_);
    status_shown_ = true;
  } else {
    std::fprintf(out_, "%s\n", line.c_str());
  }
  std::fflush(out_);
}

void Progress::note(const std::string& line) {
  clear_status();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

}  // namespace simtrain::calibration::tool
