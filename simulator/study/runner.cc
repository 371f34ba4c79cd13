// Implements runner.h with fork/exec and a polling wait: each run's stdout is discarded, its stderr and its
// Result JSON go to scratch files, and the parent turns them into a record.
#include "simulator/study/runner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "common/error.h"
#include "common/exit_codes.h"
#include "common/file_io.h"

namespace simtrain::study {
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  const Scenario* scenario;
  Clock::time_point started;
  Claim claim;  // held until the record is written
  std::string json_path, stderr_path;
  bool timed_out = false;
};

// Starts `simtrain run` for one scenario; its stdout is discarded and its stderr goes to `stderr_file`.
pid_t start(const Scenario& scenario, const SweepOptions& options, const Running& run,
            const UniqueFd& stderr_file) {
  std::vector<std::string> args = {options.simtrain, "run"};
  for (const std::string& arg : scenario.run_arguments()) args.push_back(arg);
  args.insert(args.end(), {"--json", run.json_path, "--omit-wall-time"});
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error("sweep: cannot start a run: fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // a killed sweep takes its runs with it
    if (::getppid() != parent) ::_exit(127);  // it died before the line above took effect
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO), ::close(null);
    ::dup2(stderr_file.get(), STDERR_FILENO);  // dup2 clears close-on-exec on the copy
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    ::execv(options.simtrain.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// The last non-empty line of a file, or "".
std::string last_line(const std::string& path) {
  std::string text;
  try {
    text = read_scratch_file(path);
  } catch (const Error&) {
    return "";
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const std::size_t newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

RunRecord finish(const Running& run, int wait_status, const SweepOptions& options) {
  RunRecord record;
  record.key = run.scenario->key();
  record.settings = run.scenario->settings;
  const std::string message = last_line(run.stderr_path);
  if (run.timed_out) {
    record.status = RunStatus::Failed;
    record.error =
        "time limit of " + std::to_string(static_cast<long long>(options.time_limit_s)) + " s exceeded";
  } else if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    try {
      record.result_json = read_scratch_file(run.json_path);
      record.status = RunStatus::Ok;
    } catch (const Error& error) {
      record.status = RunStatus::Failed;
      record.error = std::string("no Result written: ") + error.what();
    }
  } else if (WIFEXITED(wait_status)) {
    // Only a plan that cannot run (exit 4) may be skipped: bad input such as a misspelt model (exit 2) is a
    // mistake in the study, and a fault (3) is a fault. The message is for people; it decides nothing.
    const bool infeasible = WEXITSTATUS(wait_status) == kExitInfeasible;
    record.status = infeasible && options.skip_invalid ? RunStatus::Skipped : RunStatus::Failed;
    record.error = message.empty() ? "exit status " + std::to_string(WEXITSTATUS(wait_status)) : message;
  } else {
    record.status = RunStatus::Failed;
    record.error =
        "killed by signal " + std::to_string(WTERMSIG(wait_status)) + (message.empty() ? "" : ": " + message);
  }
  std::error_code ignored;
  std::filesystem::remove(run.json_path, ignored);
  std::filesystem::remove(run.stderr_path, ignored);
  return record;
}

std::string clock_text(double seconds) {
  const long long s = static_cast<long long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  return text;
}

}  // namespace

std::vector<Scenario> shard_of(const std::vector<Scenario>& scenarios, int k, int n) {
  if (n < 1 || k < 1 || k > n)
    throw Error("--shard: expected K/N with 1 <= K <= N, got " + std::to_string(k) + "/" + std::to_string(n));
  std::vector<Scenario> shard;
  for (const Scenario& s : scenarios)
    if (s.index % static_cast<std::size_t>(n) == static_cast<std::size_t>(k - 1)) shard.push_back(s);
  return shard;
}

SweepSummary run_sweep(const std::vector<Scenario>& scenarios, const ResultStore& store,
                       const SweepOptions& options, std::FILE* progress) {
  const Clock::time_point begin = Clock::now();
  SweepSummary summary;
  summary.scenarios = scenarios.size();
  std::vector<const Scenario*> pending;
  for (const Scenario& s : scenarios) {
    if (store.has(s.key())) {
      ++summary.already_done;
    } else {
      pending.push_back(&s);
    }
  }
  const bool terminal = progress != nullptr && ::isatty(::fileno(progress));
  const std::size_t to_run = pending.size();
  std::map<pid_t, Running> running;
  std::size_t next = 0, finished = 0;
  auto report = [&](const RunRecord* record) {
    if (progress == nullptr) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
    const std::size_t left = to_run - summary.run_elsewhere - finished;
    const double eta = finished > 0 ? elapsed / static_cast<double>(finished) * static_cast<double>(left) : 0;
    std::string line = "sweep: " + std::to_string(summary.already_done + summary.run_elsewhere + finished) +
                       "/" + std::to_string(summary.scenarios) + " done, " + std::to_string(running.size()) +
                       " running, " + std::to_string(summary.failed) + " failed, " +
                       std::to_string(summary.skipped) + " skipped, " + clock_text(elapsed) + " elapsed";
    if (finished > 0 && left > 0) line += ", ETA " + clock_text(eta);
    if (terminal) {
      std::fprintf(progress, "\r\033[K%s", line.c_str());
    } else if (record != nullptr) {
      std::fprintf(progress, "%s [%s %s%s]\n", line.c_str(), record->key.c_str(),
                   std::string(to_string(record->status)).c_str(),
                   record->error.empty() ? "" : (": " + record->error).c_str());
    }
    std::fflush(progress);
  };
  report(nullptr);
  while (next < pending.size() || !running.empty()) {
    while (next < pending.size() && static_cast<int>(running.size()) < std::max(1, options.jobs)) {
      const Scenario& s = *pending[next++];
      std::optional<Claim> claim = store.claim(s.key());
      if (!claim) {
        // Another worker runs it, or has just recorded it.
        ++summary.run_elsewhere;
        continue;
      }
      // The run writes its Result over the (empty) JSON scratch file by renaming, and its stderr into the
      // other through the descriptor opened here: both names were created exclusively, by us.
      ScratchFile json = store.create_scratch(s.key(), "json");
      ScratchFile err = store.create_scratch(s.key(), "stderr");
      Running run{&s, Clock::now(), std::move(*claim), json.path, err.path};
      const pid_t child = start(s, options, run, err.fd);
      running.emplace(child, std::move(run));
      report(nullptr);
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      const RunRecord record = finish(running.at(pid), status, options);
      store.write(record);
      running.erase(pid);  // releases the claim, now that the record is there
      ++finished;
      ++(record.status == RunStatus::Ok        ? summary.ok
         : record.status == RunStatus::Skipped ? summary.skipped
                                               : summary.failed);
      report(&record);
      continue;
    }
    if (options.time_limit_s > 0) {
      for (auto& [child, run] : running) {
        const double age = std::chrono::duration<double>(Clock::now() - run.started).count();
        if (!run.timed_out && age > options.time_limit_s) {
          run.timed_out = true;
          ::kill(child, SIGKILL);
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (terminal) std::fputc('\n', progress);
  summary.wall_s = std::chrono::duration<double>(Clock::now() - begin).count();
  return summary;
}

}  // namespace simtrain::study
