// Implements file_io.h with stdio and POSIX calls (fsync), which report errno.
#include "common/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <unistd.h>

#include "common/error.h"

namespace simtrain {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw Error(path, 0, "", what + ": " + std::strerror(error));
}

}  // namespace

std::string temporary_path_beside(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

std::string read_file(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw Error(path, 0, "", "cannot read: is a directory");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) fail(path, "cannot read", errno);
  std::string bytes;
  char buffer[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) bytes.append(buffer, n);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) fail(path, "cannot read", error);
  return bytes;
}

void write_file_atomically(const std::string& path, const std::string& content) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) throw Error(path, 0, "", "cannot write: is a directory");
  const std::string temporary = temporary_path_beside(path);
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) fail(path, "cannot write", errno);
  const bool written = std::fwrite(content.data(), 1, content.size(), file) == content.size();
  const int write_error = errno;
  const bool flushed = std::fflush(file) == 0 && ::fsync(::fileno(file)) == 0;
  const int flush_error = errno;
  const bool closed = std::fclose(file) == 0;
  if (!written || !flushed || !closed) {
    std::remove(temporary.c_str());
    fail(path, "cannot write", !written ? write_error : flush_error);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    std::remove(temporary.c_str());
    fail(path, "cannot replace", error);
  }
}

}  // namespace simtrain
