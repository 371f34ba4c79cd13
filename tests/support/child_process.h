// Runs a piece of a test in a forked child process. SimGrid allows one s4u::Engine per process, so each
// test that needs an engine builds it in a child and hands back the numbers it measured.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace simtrain::testing {

// Runs `body` in a child and returns its numbers; an exception in the child comes back as a
// std::runtime_error carrying its what() (prefixed by "child: "), a crash as a std::runtime_error too.
inline std::vector<double> run_in_child(const std::function<std::vector<double>()>& body) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // or buffered output would be printed twice
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(fds[0]);
    std::ostringstream out;
    out.precision(17);
    try {
      const std::vector<double> values = body();
      out << "ok";
      for (const double value : values) out << ' ' << value;
    } catch (const std::exception& error) {
      out << "error " << error.what();
    }
    const std::string text = out.str();
    size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = write(fds[1], text.data() + written, text.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    _exit(0);  // not exit(): the parent's doctest state and SimGrid's atexit handlers stay untouched
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) {
    throw std::runtime_error("child crashed (status " + std::to_string(status) + "): " + text);
  }
  if (text.rfind("error ", 0) == 0) throw std::runtime_error("child: " + text.substr(6));
  std::istringstream in(text.substr(2));
  std::vector<double> values;
  for (double value = 0; in >> value;) values.push_back(value);
  return values;
}

// The one-number form: NaN when the child throws or crashes, so a test can CHECK on the value alone.
inline double in_child_process(const std::function<double()>& compute) {
  try {
    const std::vector<double> values = run_in_child([&] { return std::vector<double>{compute()}; });
    return values.empty() ? std::numeric_limits<double>::quiet_NaN() : values[0];
  } catch (const std::runtime_error&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace simtrain::testing
