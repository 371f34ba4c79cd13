// Implements file_io.h with stdio and POSIX calls (open with O_EXCL|O_NOFOLLOW, lstat, fsync), which report
// errno.
#include "common/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <random>

#include "common/error.h"
#include "common/input_limits.h"

namespace simtrain {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw Error(path, 0, "", what + ": " + std::strerror(error));
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  std::string host(name);
  // Owner marks are split on dots.
  std::replace(host.begin(), host.end(), '.', '_');
  return host.empty() ? "host" : host;
}

void write_all(int fd, const std::string& content, const std::string& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot write", n < 0 ? errno : EIO);
    done += static_cast<std::size_t>(n);
  }
}

bool special(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

// A FIFO, a terminal or a device like /dev/null takes the content as it comes; replacing it by a regular file
// would break whoever else uses it. The type is checked again on the open descriptor, so that a name swapped
// for a regular file in between is not written into.
void write_special_file(const std::string& path, const std::string& content, bool through_link) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (through_link ? 0 : O_NOFOLLOW)));
  if (fd.get() < 0) fail(path, "cannot write", errno);
  struct stat opened {};
  if (::fstat(fd.get(), &opened) != 0) fail(path, "cannot write", errno);
  if (!special(opened.st_mode)) throw Error(path, 0, "", "cannot write: changed while being opened");
  write_all(fd.get(), content, path);
}

void replace_regular_file(const std::string& path, const std::string& content) {
  const std::string temporary = temporary_path_beside(path);
  UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (fd.get() < 0 && errno == EEXIST) {
    // The name carries this process's id and this process writes one file at a time, so a regular file there
    // is the leftover of a dead process that had the same id. Anything else (a link, a directory) is not
    // ours.
    struct stat there {};
    if (::lstat(temporary.c_str(), &there) == 0 && S_ISREG(there.st_mode) && ::unlink(temporary.c_str()) == 0)
      fd = UniqueFd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    else
      errno = EEXIST;
  }
  if (fd.get() < 0) fail(path, "cannot write", errno);
  try {
    write_all(fd.get(), content, path);
    if (::fsync(fd.get()) != 0) fail(path, "cannot write", errno);
    if (::close(fd.release()) != 0) fail(path, "cannot write", errno);
  } catch (const Error&) {
    ::unlink(temporary.c_str());
    throw;
  }
  // rename() replaces the name itself; it never follows a link that appeared there meanwhile.
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(path, "cannot replace", error);
  }
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

std::string scratch_owner() { return host_name() + "." + std::to_string(::getpid()); }

std::string temporary_path_beside(const std::string& path) { return path + ".tmp." + scratch_owner(); }

bool is_orphaned_scratch(const std::string& file_name) {
  const std::string host = host_name() + ".";
  for (const std::string kind : {".tmp.", ".scratch."}) {
    const std::size_t at = file_name.find(kind + host);
    if (at == std::string::npos) continue;
    const char* digits = file_name.c_str() + at + kind.size() + host.size();
    char* end = nullptr;
    const long pid = std::strtol(digits, &end, 10);
    if (end == digits || (*end != '\0' && *end != '.') || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  }
  return false;
}

UniqueFd create_exclusively(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail(path, "cannot create", errno);
  return fd;
}

ScratchFile create_scratch_file(const std::string& stem, const std::string& kind) {
  std::random_device entropy;
  for (int attempt = 0;; ++attempt) {
    char random[17];
    const unsigned long long bits = (static_cast<unsigned long long>(entropy()) << 32) ^ entropy();
    std::snprintf(random, sizeof random, "%016llx", bits);
    const std::string path = stem + "." + kind + "." + scratch_owner() + "." + random;
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
    if (fd.get() >= 0) return {path, std::move(fd)};
    if (errno != EEXIST || attempt == 8) fail(path, "cannot create", errno);
  }
}

namespace {

std::string read_descriptor(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags));
  if (fd.get() < 0) fail(path, "cannot read", errno);
  struct stat status {};
  if (::fstat(fd.get(), &status) == 0 && S_ISDIR(status.st_mode))
    throw Error(path, 0, "", "cannot read: is a directory");
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n == 0) return bytes;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot read", errno);
    if (bytes.size() + static_cast<std::size_t>(n) > kMaxInputFileBytes)
      throw Error(path, 0, "",
                  "cannot read: larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                      " MiB, the most simtrain reads from one input file");
    bytes.append(buffer, static_cast<std::size_t>(n));
  }
}

}  // namespace

std::string read_file(const std::string& path) { return read_descriptor(path, 0); }

std::string read_scratch_file(const std::string& path) { return read_descriptor(path, O_NOFOLLOW); }

void write_file_atomically(const std::string& path, const std::string& content) {
  struct stat there {};
  if (::lstat(path.c_str(), &there) != 0) {
    if (errno != ENOENT) fail(path, "cannot write", errno);
    return replace_regular_file(path, content);
  }
  if (S_ISDIR(there.st_mode)) throw Error(path, 0, "", "cannot write: is a directory");
  if (S_ISREG(there.st_mode)) return replace_regular_file(path, content);
  if (S_ISLNK(there.st_mode)) {
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0 && special(target.st_mode))
      return write_special_file(path, content, true);
    throw Error(path, 0, "",
                "cannot write: a symbolic link, neither followed nor replaced (name the file it points to)");
  }
  if (special(there.st_mode)) return write_special_file(path, content, false);
  throw Error(path, 0, "", "cannot write: not a regular file, FIFO or character device");
}

void write_output_file(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content << std::flush;
    if (!std::cout) throw Error("-", 0, "", "cannot write to standard output");
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace simtrain
