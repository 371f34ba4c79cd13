// Reading a whole input file and writing an output file atomically, with errors that name the file. Every
// reader and writer of the project (profiles, traces, cluster specs, models, logs, results) goes through
// here, and so do the scratch files a study keeps in a results directory that others may share: they are
// created exclusively, never through a link someone planted at their name.
#pragma once

#include <string>

namespace simtrain {

// The file's bytes. Throws Error(path, "cannot read: ...") when it is missing, unreadable, a directory, or
// larger than kMaxInputFileBytes (common/input_limits.h).
std::string read_file(const std::string& path);

// read_file of a scratch file in a directory others may write to: a symbolic link planted at its name is
// refused rather than followed, so that nobody can make a record out of a file of their choice.
std::string read_scratch_file(const std::string& path);

// Writes `content` to `path` so that readers see the old file or the whole new one, never a part:
// - a missing or regular file is replaced: the content goes to a temporary file beside it, created
//   exclusively (O_EXCL|O_NOFOLLOW), flushed to disk and renamed over `path`;
// - a special file (a FIFO, a terminal, /dev/null) is written directly, and is never replaced;
// - a symbolic link is never replaced and is followed only to a special file (/dev/stdout is one): a link to
//   a regular file, to a directory or to nothing is refused, since in a shared directory anyone may plant one
//   to make us overwrite their choice of file; name the target instead.
// A failed write leaves no temporary file. Throws Error(path, "cannot write: ..." or "cannot replace: ...").
void write_file_atomically(const std::string& path, const std::string& content);

// write_file_atomically, or standard output when `path` is "-".
void write_output_file(const std::string& path, const std::string& content);

// The temporary name write_file_atomically uses beside `path`: "PATH.tmp.HOST.PID" (see scratch_owner).
std::string temporary_path_beside(const std::string& path);

// "HOST.PID" of this process, with the dots of the host name replaced: the owner mark of scratch and
// temporary file names, from which a later process tells the files of a dead process on this host.
std::string scratch_owner();

// True when `file_name` is a scratch or temporary file ("….tmp.HOST.PID…", "….scratch.HOST.PID…") left by a
// process of this host that is no longer alive. Files of other hosts are never orphans here: they may be
// live.
bool is_orphaned_scratch(const std::string& file_name);

// A file descriptor that closes itself.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Creates a new, empty file at `path` for writing, exclusively: throws Error(path, ...) when anything is
// already there (a file, a directory, a symbolic link, which is not followed).
UniqueFd create_exclusively(const std::string& path);

// A new scratch file "STEM.KIND.HOST.PID.RANDOM", created exclusively; its name cannot be guessed in advance.
struct ScratchFile {
  std::string path;
  UniqueFd fd;
};
ScratchFile create_scratch_file(const std::string& stem, const std::string& kind);

}  // namespace simtrain
