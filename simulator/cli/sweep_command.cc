// simtrain sweep: expand a scenario file and run, list, collect or distribute its runs.
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "common/error.h"
#include "common/exit_codes.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/study/collect.h"
#include "simulator/study/runner.h"
#include "simulator/study/scenario_file.h"
#include "simulator/study/slurm_script.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

constexpr const char* kUsage =
    "usage: simtrain sweep SCENARIO.toml [-j N] [--results DIR] [--shard K/N] [--time-limit S]\n"
    "       simtrain sweep SCENARIO.toml --dry-run | --collect [-o CSV] | --slurm SCRIPT [--shards N]\n"
    "\n"
    "Runs every scenario of a study (scenarios/README.md) as its own `simtrain run`, N at a time, and keeps\n"
    "each finished run in the results directory (default results/<study name>): rerunning skips what is\n"
    "done, so a killed sweep resumes where it stopped.";

// A whole number, all of `text` (std::from_chars stops at the first non-digit; the rest must be empty).
bool whole_number(std::string_view text, int& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

std::pair<int, int> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  int k = 0, n = 0;
  if (slash == std::string::npos || !whole_number(std::string_view(text).substr(0, slash), k) ||
      !whole_number(std::string_view(text).substr(slash + 1), n))
    throw Error("--shard: expected K/N (e.g. 2/8), got '" + text + "'");
  return {k, n};
}

}  // namespace

int sweep_command(const Arguments& args) {
  po::options_description options("simtrain sweep options");
  options.add_options()("help,h", "show this help")("scenario", po::value<std::string>(),
                                                    "scenario file (TOML)")(
      "jobs,j", po::value<int>()->default_value(1), "runs at a time")(
      "results", po::value<std::string>(), "results directory (default: results/<study name>)")(
      "shard", po::value<std::string>(), "run only shard K of N (K/N), the same split on every machine")(
      "time-limit", po::value<double>(), "seconds a run may take before it is killed and recorded as failed")(
      "dry-run", "list the expanded runs and exit")("collect", "write the results table as CSV and exit")(
      "output,o", po::value<std::string>(), "CSV file for --collect (default: stdout)")(
      "slurm", po::value<std::string>(),
      "write a Slurm job-array script that runs the shards, then collects")(
      "shards", po::value<int>()->default_value(8), "shards (array tasks) of --slurm");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, kUsage, positional)) return 0;
  if (!vm.count("scenario")) throw Error("missing the scenario file (simtrain sweep SCENARIO.toml)");
  const std::string path = vm["scenario"].as<std::string>();
  const study::Study study = study::read_study(path, run_option_lookup());
  std::vector<study::Scenario> scenarios = study::expand(study, run_input_content());
  const std::string results = vm.count("results") ? vm["results"].as<std::string>() : "results/" + study.name;
  const int jobs = vm["jobs"].as<int>();
  // Every option is checked before anything is written.
  std::optional<std::pair<int, int>> shard;
  if (vm.count("shard")) shard = parse_shard(vm["shard"].as<std::string>());
  study::SweepOptions sweep;
  sweep.simtrain = std::filesystem::read_symlink("/proc/self/exe").string();
  sweep.jobs = jobs;
  sweep.skip_invalid = study.skip_invalid;
  sweep.time_limit_s = study.time_limit_s;
  if (vm.count("time-limit")) sweep.time_limit_s = vm["time-limit"].as<double>();

  if (vm.count("dry-run")) {
    for (const study::Scenario& s : scenarios) {
      std::string line = std::to_string(s.index) + " " + s.key() + "  simtrain run";
      for (const std::string& arg : s.run_arguments()) line += " " + arg;
      std::cout << line << "\n";
    }
    std::cout << scenarios.size() << " runs\n";
    return 0;
  }
  if (vm.count("slurm")) {
    const int shards = vm["shards"].as<int>();
    write_file_atomically(vm["slurm"].as<std::string>(), study::slurm_script(path, results, shards, jobs));
    std::cout << "wrote " << vm["slurm"].as<std::string>() << ": " << shards << " array tasks over "
              << scenarios.size() << " runs\n";
    return 0;
  }
  const study::ResultStore store(results);
  if (vm.count("collect")) {
    const std::string csv = study::to_csv(study::collect_table(study, scenarios, store));
    write_output_file(vm.count("output") ? vm["output"].as<std::string>() : "-", csv);
    return 0;
  }
  if (shard) scenarios = study::shard_of(scenarios, shard->first, shard->second);
  const study::SweepSummary summary = study::run_sweep(scenarios, store, sweep, stderr);
  std::printf(
      "%zu runs: %zu done before, %zu by other workers, %zu ok, %zu failed, %zu skipped in %.1f s (%.0f runs "
      "per minute); results in %s\n",
      summary.scenarios, summary.already_done, summary.run_elsewhere, summary.ok, summary.failed,
      summary.skipped, summary.wall_s,
      summary.wall_s > 0
          ? 60.0 * static_cast<double>(summary.ok + summary.failed + summary.skipped) / summary.wall_s
          : 0.0,
      results.c_str());
  return summary.failed > 0 ? kExitRunsFailed : kExitOk;
}

}  // namespace simtrain::cli
