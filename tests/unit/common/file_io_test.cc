// Specification of common/file_io.h: outputs replace regular files atomically, are written into special files
// as they are, and never follow a link planted at their name or at their scratch names.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "common/file_io.h"
#include "tests/support/temporary_directory.h"

using namespace simtrain;
namespace fs = std::filesystem;

using simtrain::testing::TemporaryDirectory;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("a regular file is replaced whole, and nothing is left beside it") {
  const TemporaryDirectory dir("simtrain_file_io_replace");
  write_file_atomically(dir / "out.json", "old");
  write_file_atomically(dir / "out.json", "new");
  CHECK(slurp(dir / "out.json") == "new");
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("a symbolic link at the destination is neither followed nor replaced") {
  const TemporaryDirectory dir("simtrain_file_io_link");
  write_file_atomically(dir / "victim", "precious");
  fs::create_symlink(dir / "victim", dir / "out.json");
  CHECK_THROWS_WITH_AS(write_file_atomically(dir / "out.json", "overwritten"),
                       doctest::Contains("a symbolic link, neither followed nor replaced"), Error);
  CHECK(slurp(dir / "victim") == "precious");
  CHECK(fs::is_symlink(dir / "out.json"));
  // A dangling link could create the file of someone else's choosing.
  fs::create_symlink(dir / "created-elsewhere", dir / "dangling.json");
  CHECK_THROWS_AS(write_file_atomically(dir / "dangling.json", "x"), Error);
  CHECK_FALSE(fs::exists(dir / "created-elsewhere"));
}

TEST_CASE("a link planted at the temporary name is not followed: the write refuses it") {
  const TemporaryDirectory dir("simtrain_file_io_tmp_link");
  write_file_atomically(dir / "victim", "precious");
  const std::string out = dir / "out.json";
  fs::create_symlink(dir / "victim", temporary_path_beside(out));
  CHECK_THROWS_WITH_AS(write_file_atomically(out, "overwritten"), doctest::Contains("cannot write"), Error);
  CHECK(slurp(dir / "victim") == "precious");
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("a special file is written into, not replaced by a regular file") {
  const TemporaryDirectory dir("simtrain_file_io_fifo");
  const std::string fifo = dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  // The FIFO's reader: opening for writing waits for it.
  const pid_t reader = ::fork();
  if (reader == 0) {
    std::ifstream in(fifo);
    std::stringstream text;
    text << in.rdbuf();
    std::ofstream(fifo + ".got") << text.str();
    ::_exit(0);
  }
  write_file_atomically(fifo, "through the pipe");
  int status = 0;
  ::waitpid(reader, &status, 0);
  struct stat after {};
  REQUIRE(::lstat(fifo.c_str(), &after) == 0);
  CHECK(S_ISFIFO(after.st_mode));
  CHECK(slurp(fifo + ".got") == "through the pipe");
  // Through a link, a special file is still written into (the way /dev/stdout is).
  fs::create_symlink("/dev/null", dir / "null-link");
  write_file_atomically(dir / "null-link", "discarded");
  CHECK(fs::is_symlink(dir / "null-link"));
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("scratch files are created exclusively under names that cannot be guessed") {
  const TemporaryDirectory dir("simtrain_file_io_scratch");
  const ScratchFile a = create_scratch_file(dir / "key.json", "scratch");
  const ScratchFile b = create_scratch_file(dir / "key.json", "scratch");
  CHECK(a.path != b.path);
  CHECK(a.path.find(".scratch." + scratch_owner() + ".") != std::string::npos);
  CHECK(a.fd.get() >= 0);
  fs::create_symlink(dir / "victim", dir / "planted");
  CHECK_THROWS_AS(create_exclusively(dir / "planted"), Error);
  CHECK_FALSE(fs::exists(dir / "victim"));
}

TEST_CASE("only scratch files of dead processes of this host are orphans") {
  const std::string owner = scratch_owner();
  const std::string host = owner.substr(0, owner.rfind('.'));
  CHECK_FALSE(is_orphaned_scratch("abc.json.tmp." + owner));  // this live process
  CHECK_FALSE(is_orphaned_scratch("abc.json.scratch." + owner + ".0123456789abcdef"));
  // Process ids above the kernel's pid_max (4194304 at most) are never alive.
  CHECK(is_orphaned_scratch("abc.json.tmp." + host + ".99999999"));
  CHECK(is_orphaned_scratch("abc.stderr.scratch." + host + ".99999999.0123456789abcdef"));
  CHECK_FALSE(is_orphaned_scratch("abc.json.tmp.another-host.99999999"));
  CHECK_FALSE(is_orphaned_scratch("abc.json"));
}

TEST_CASE("a scratch file is read only where it is, never through a link planted at its name") {
  TemporaryDirectory dir("file-io-read-scratch");
  {
    std::ofstream(dir / "record.json") << "{\"iteration_time_s\": 1}";
    std::ofstream(dir / "secret") << "not a result";
  }
  CHECK(read_scratch_file(dir / "record.json") == "{\"iteration_time_s\": 1}");
  fs::create_symlink(dir / "secret", dir / "planted.json");
  CHECK(read_file(dir / "planted.json") == "not a result");  // inputs a user names may be links
  CHECK_THROWS_AS(read_scratch_file(dir / "planted.json"), Error);
  CHECK_THROWS_WITH_AS(read_file(dir.path.string()), doctest::Contains("is a directory"), Error);
}
