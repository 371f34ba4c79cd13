// The progress line `simtrain run` keeps on stderr for runs longer than about 2 s: what it is doing and,
// while simulating, the simulated time and events so far. Only when stderr is a terminal whose TERM is not
// "dumb": logs, pipes and scripts see nothing of it. Cleared when the run ends. SIMTRAIN_PROGRESS_AFTER
// (seconds) changes how long a run must take before the line appears.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

namespace simtrain::cli {

class ProgressLine {
 public:
  ProgressLine();
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The callback for RunRequest::progress; empty when the line is not shown.
  std::function<void(const char* phase, double simulated_s, std::uint64_t advances)> callback();

 private:
  void update(const char* phase, double simulated_s, std::uint64_t advances);

  bool enabled_ = false;
  double quiet_for_s_ = 2;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace simtrain::cli
