// Where a study keeps its finished runs: one JSON file per scenario, named by the scenario's key and written
// atomically the moment the run ends, so that a study killed at any instant loses no finished run, and a
// rerun (or another shard) skips every run already there.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

class ResultStore {
 public:
  // Creates `directory` when missing and removes the scratch files a killed sweep left there.
  explicit ResultStore(std::string directory);

  const std::string& directory() const { return directory_; }
  bool has(const std::string& key) const;
  // Throws Error naming the file when a record cannot be written or read back.
  void write(const RunRecord& record) const;
  std::optional<RunRecord> read(const std::string& key) const;
  // Where a run's own output goes before it becomes a record; named with this host and process id.
  std::string scratch_path(const std::string& key, const std::string& suffix) const;

 private:
  std::string path_of(const std::string& key) const;
  std::string directory_;
};

}  // namespace simtrain::study
