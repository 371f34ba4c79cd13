// Runs a function in a forked child process and returns the number it computed. SimGrid allows one engine
// per process, so each simulation in a unit test runs in a child of its own.
#pragma once

#include <cmath>
#include <functional>
#include <limits>

#include <sys/wait.h>
#include <unistd.h>

namespace simtrain::testing {

// Returns NaN when the child fails (throws, crashes, or exits without answering).
inline double in_child_process(const std::function<double()>& compute) {
  int fds[2];
  if (pipe(fds) != 0) return std::numeric_limits<double>::quiet_NaN();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    double value = std::numeric_limits<double>::quiet_NaN();
    try {
      value = compute();
    } catch (...) {
    }
    ssize_t written = write(fds[1], &value, sizeof value);
    _exit(written == sizeof value ? 0 : 1);
  }
  close(fds[1]);
  double value = std::numeric_limits<double>::quiet_NaN();
  if (read(fds[0], &value, sizeof value) != sizeof value) value = std::numeric_limits<double>::quiet_NaN();
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return value;
}

}  // namespace simtrain::testing
