// Implements result_store.h with nlohmann-json records, common/file_io's atomic writer and flock(2) claims.
#include "simulator/study/result_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::study {

namespace fs = std::filesystem;

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Skipped:
      return "skipped";
  }
  return "failed";
}

Claim::~Claim() {
  // Unlinked before the lock goes: a worker that opened this file meanwhile gets the lock next, then finds
  // the record written (ResultStore::claim looks after locking) and leaves the scenario alone.
  if (fd_.get() >= 0) ::unlink(path_.c_str());
}

void Claim::describe(const std::string& owner) const {
  // The lock is the claim; the text is only a courtesy to a person looking at the directory.
  if (::ftruncate(fd_.get(), 0) == 0 && ::write(fd_.get(), owner.data(), owner.size()) < 0) return;
}

ResultStore::ResultStore(std::string directory) : directory_(std::move(directory)) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error || !fs::is_directory(directory_))
    throw Error(directory_, 0, "", "cannot create the results directory: " + error.message());
  // Scratch and temporary files of a sweep that was killed on this host (their runs start again). Other
  // sweeps, on this host or others, may be writing here too: only files of dead processes of this host go.
  for (const auto& entry : fs::directory_iterator(directory_)) {
    if (is_orphaned_scratch(entry.path().filename().string())) fs::remove(entry.path(), error);
  }
}

std::string ResultStore::path_of(const std::string& key) const { return directory_ + "/" + key + ".json"; }

ScratchFile ResultStore::create_scratch(const std::string& key, const std::string& kind) const {
  return create_scratch_file(directory_ + "/" + key + "." + kind, "scratch");
}

bool ResultStore::has(const std::string& key) const {
  struct stat there {};
  return ::lstat(path_of(key).c_str(), &there) == 0 && S_ISREG(there.st_mode);
}

std::optional<Claim> ResultStore::claim(const std::string& key) const {
  const std::string path = directory_ + "/" + key + ".claim";
  // Not O_TRUNC, not O_EXCL: a claim file left by a killed worker is reused; O_NOFOLLOW refuses a planted
  // link.
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (fd.get() < 0) {
    const int error = errno;
    if (error == ELOOP)
      throw Error(path, 0, "", "a symbolic link where a claim file belongs: not followed; remove it");
    throw Error(path, 0, "", std::string("cannot open the claim file: ") + std::strerror(error));
  }
  struct stat opened {};
  // A hard link planted there would make describe() truncate someone's file.
  if (::fstat(fd.get(), &opened) != 0 || !S_ISREG(opened.st_mode) || opened.st_nlink != 1)
    throw Error(path, 0, "", "not a regular file where a claim file belongs; remove it");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return std::nullopt;
    throw Error(path, 0, "", std::string("cannot lock the claim file: ") + std::strerror(errno));
  }
  Claim claim(path, std::move(fd));
  if (has(key)) return std::nullopt;  // finished by the worker that held it before us; `claim` cleans up
  claim.describe(scratch_owner() + "\n");
  return claim;
}

void ResultStore::write(const RunRecord& record) const {
  nlohmann::ordered_json j;
  j["key"] = record.key;
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  for (const Setting& s : record.settings) settings[s.option] = s.value;
  j["settings"] = settings;
  j["status"] = to_string(record.status);
  if (!record.error.empty()) j["error"] = record.error;
  if (record.status == RunStatus::Ok) {
    try {
      j["result"] = nlohmann::ordered_json::parse(record.result_json);
    } catch (const nlohmann::json::exception& error) {
      throw Error(path_of(record.key), 0, "result",
                  std::string("the run's Result is not JSON: ") + error.what());
    }
  }
  write_file_atomically(path_of(record.key), j.dump(1) + "\n");
}

std::optional<RunRecord> ResultStore::read(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  const std::string path = path_of(key);
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(read_file(path));
  } catch (const nlohmann::json::exception& error) {
    throw Error(path, 0, "", std::string("not a run record: ") + error.what());
  }
  RunRecord record;
  record.key = j.value("key", "");
  if (record.key != key) throw Error(path, 0, "key", "does not match the file name");
  for (const auto& [option, value] : j.at("settings").items())
    record.settings.push_back({option, value.get<std::string>(), 0});
  const std::string status = j.value("status", "");
  record.status = status == "ok"        ? RunStatus::Ok
                  : status == "skipped" ? RunStatus::Skipped
                                        : RunStatus::Failed;
  record.error = j.value("error", "");
  if (j.contains("result")) record.result_json = j["result"].dump();
  return record;
}

}  // namespace simtrain::study
