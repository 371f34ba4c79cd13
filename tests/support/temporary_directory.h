// A fresh directory for one test's files, named after the test and the process (so that concurrent test
// binaries do not share it), removed with everything in it when the test ends.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace simtrain::testing {

struct TemporaryDirectory {
  std::filesystem::path path;

  explicit TemporaryDirectory(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TemporaryDirectory() { std::filesystem::remove_all(path); }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  // The path of `name` inside the directory.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

}  // namespace simtrain::testing
