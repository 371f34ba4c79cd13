// A replay in a forked child process, beside the caller's own. SimGrid allows one engine per process, so a
// run that needs two replays (micro_batch_extrapolation.h) runs one of them in a child, which also lets the
// two use two cores at once.
#pragma once

#include <sys/types.h>
#include <functional>
#include <string>

#include "simulator/engine/replay.h"

namespace simtrain::run {

class ReplayInChild {
 public:
  // Forks; the child runs `replay` and hands its result (timeline events aside) back through a pipe. Call
  // it before this process creates its own SimGrid engine. Throws Error when the child cannot be started.
  explicit ReplayInChild(const std::function<engine::ReplayResult()>& replay);
  // Kills and reaps a child whose result was not collected (the caller's own replay threw).
  ~ReplayInChild();
  ReplayInChild(const ReplayInChild&) = delete;
  ReplayInChild& operator=(const ReplayInChild&) = delete;

  // Waits for the child and returns its result; an Error the child threw is thrown again here, with its
  // kind, and a child that died is an Error too.
  engine::ReplayResult result();

 private:
  pid_t pid_ = -1;
  int from_child_ = -1;
};

}  // namespace simtrain::run
