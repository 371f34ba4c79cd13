// Implements result_store.h with nlohmann-json records and common/file_io's atomic writer.
#include "simulator/study/result_store.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"

namespace simtrain::study {

namespace fs = std::filesystem;

namespace {

// This machine's name, without dots (scratch names are split on them).
std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "host";
  std::string host(name);
  std::replace(host.begin(), host.end(), '.', '_');
  return host.empty() ? "host" : host;
}

}  // namespace

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

ResultStore::ResultStore(std::string directory) : directory_(std::move(directory)) {
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error || !fs::is_directory(directory_))
    throw Error(directory_, 0, "", "cannot create the results directory: " + error.message());
  // Scratch files of a sweep that was killed on this host (their runs start again): named with the host and
  // a process id that is no live process. Other shards, on this host or others, may be writing here too.
  const std::string mine = ".scratch." + host_name() + ".";
  for (const auto& entry : fs::directory_iterator(directory_)) {
    const std::string name = entry.path().filename().string();
    const std::size_t at = name.find(mine);
    if (at == std::string::npos) continue;
    const long pid = std::strtol(name.c_str() + at + mine.size(), nullptr, 10);
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove(entry.path(), error);
  }
}

std::string ResultStore::path_of(const std::string& key) const { return directory_ + "/" + key + ".json"; }

std::string ResultStore::scratch_path(const std::string& key, const std::string& suffix) const {
  return directory_ + "/" + key + ".scratch." + host_name() + "." + std::to_string(::getpid()) + "." + suffix;
}

bool ResultStore::has(const std::string& key) const { return fs::exists(path_of(key)); }

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
