// Where a study keeps its finished runs: one JSON file per scenario, named by the scenario's key and written
// atomically the moment the run ends, so that a study killed at any instant loses no finished run, and a
// rerun (or another shard) skips every run already there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "simulator/study/scenario_file.h"

namespace simtrain::study {

// How a run ended.
enum class RunStatus { Ok, Failed, Skipped };
std::string_view to_string(RunStatus status);

// One finished run: the scenario's settings, how it ended, `simtrain run`'s Result JSON text when it
// succeeded, and the one-line error otherwise.
struct RunRecord {
  std::string key;
  std::vector<Setting> settings;
  RunStatus status = RunStatus::Ok;
  std::string error;
  std::string result_json;  // the Result as `simtrain run --json` wrote it; empty unless Ok
};

// A worker's exclusive right to run one scenario: an flock(2) on "<key>.claim" in the results directory, held
// while the run lasts. The kernel releases it when the worker dies, so a killed sweep blocks nobody.
class Claim {
 public:
  Claim(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  Claim(Claim&&) noexcept = default;
  Claim& operator=(Claim&&) noexcept = default;
  // Removes the claim file, then releases the lock.
  ~Claim();
  // Writes who holds the claim ("HOST.PID") into its file.
  void describe(const std::string& owner) const;

 private:
  std::string path_;
  UniqueFd fd_;
};

class ResultStore {
 public:
  // Creates `directory` when missing and removes the scratch and temporary files that killed sweeps of this
  // host left there (common/file_io.h, is_orphaned_scratch).
  explicit ResultStore(std::string directory);

  const std::string& directory() const { return directory_; }
  // Whether a record is there: a regular file; a link planted at its name is not a record.
  bool has(const std::string& key) const;
  // Throws Error naming the file when a record cannot be written or read back.
  void write(const RunRecord& record) const;
  std::optional<RunRecord> read(const std::string& key) const;
  // A new scratch file for a run's own output before it becomes a record, created exclusively under a name
  // nobody can guess ("<key>.<kind>.scratch.HOST.PID.RANDOM"), so that nothing planted there is followed.
  ScratchFile create_scratch(const std::string& key, const std::string& kind) const;
  // The right to run `key`, or nullopt when another worker holds it or the run is recorded already.
  // Concurrent sweeps of one study share its runs this way. Throws Error when the claim file cannot be opened
  // (a link planted at its name is refused, not followed).
  std::optional<Claim> claim(const std::string& key) const;

 private:
  std::string path_of(const std::string& key) const;
  std::string directory_;
};

}  // namespace simtrain::study
