// Specification of simulator/study/runner.h: shards partition a study, the same way everywhere, and a run's
// record says how it ended from its exit status alone.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "common/error.h"
#include "simulator/study/runner.h"
#include "tests/support/temporary_directory.h"

using namespace simtrain;
using namespace simtrain::study;

TEST_CASE("shards partition the scenarios by index, every scenario in exactly one shard") {
  std::vector<Scenario> scenarios(10);
  for (std::size_t i = 0; i < scenarios.size(); ++i) scenarios[i].index = i * 3;  // gaps, as exclusions leave
  std::multiset<std::size_t> seen;
  for (int k = 1; k <= 4; ++k)
    for (const Scenario& s : shard_of(scenarios, k, 4)) {
      CHECK(s.index % 4 == static_cast<std::size_t>(k - 1));
      seen.insert(s.index);
    }
  CHECK(seen.size() == scenarios.size());
  for (const Scenario& s : scenarios) CHECK(seen.count(s.index) == 1);
  CHECK(shard_of(scenarios, 1, 1).size() == scenarios.size());
  CHECK_THROWS_AS(shard_of(scenarios, 0, 4), Error);
  CHECK_THROWS_AS(shard_of(scenarios, 5, 4), Error);
}

using simtrain::testing::TemporaryDirectory;

namespace {

// A stand-in for `simtrain run` whose exit status the test chooses through --model, as common/exit_codes.h
// defines them: the runner must decide from the status alone.
std::string fake_simtrain(const std::filesystem::path& dir) {
  const std::string path = (dir / "fake-simtrain").string();
  std::ofstream(path) << R"(#!/bin/sh
json=""; model=""
while [ $# -gt 0 ]; do
  case "$1" in --json) json=$2; shift ;; --model) model=$2; shift ;; esac
  shift
done
case "$model" in
  typo) echo "simtrain run: error: unknown model 'typo'" >&2; exit 2 ;;
  huge) echo "simtrain run: error: does not fit in GPU memory" >&2; exit 4 ;;
  crash) echo "simtrain run: internal error: bad_alloc" >&2; exit 3 ;;
  old) echo "simtrain run: error: --tp 3: not divisible" >&2; exit 1 ;;
esac
printf '{"iteration_time_s": 1}\n' >"$json"
)";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

std::vector<Scenario> scenarios_of_models(const std::vector<std::string>& models) {
  std::vector<Scenario> scenarios;
  for (const std::string& model : models) {
    Scenario s;
    s.index = scenarios.size();
    s.settings = {{"model", model, 0}};
    s.axis_values = s.settings;
    scenarios.push_back(s);
  }
  return scenarios;
}

}  // namespace

TEST_CASE("a run is skipped only when its plan cannot run (exit 4), whatever its message says") {
  const TemporaryDirectory dir("simtrain_runner_status");
  const ResultStore store((dir.path / "results").string());
  const std::vector<Scenario> scenarios = scenarios_of_models({"fine", "typo", "huge", "crash", "old"});
  SweepOptions options;
  options.simtrain = fake_simtrain(dir.path);
  options.skip_invalid = true;
  const SweepSummary summary = run_sweep(scenarios, store, options, nullptr);
  CHECK(summary.ok == 1);
  CHECK(summary.skipped == 1);
  CHECK(summary.failed == 3);
  const auto status = [&](std::size_t i) { return store.read(scenarios[i].key())->status; };
  CHECK(status(0) == RunStatus::Ok);
  CHECK(status(1) == RunStatus::Failed);   // bad input: a mistake in the study
  CHECK(status(2) == RunStatus::Skipped);  // infeasible
  CHECK(status(3) == RunStatus::Failed);   // a fault
  CHECK(status(4) == RunStatus::Failed);   // ": error: " in the message and exit 1 decide nothing
  CHECK(store.read(scenarios[1].key())->error == "simtrain run: error: unknown model 'typo'");
}

TEST_CASE("without skip_invalid an infeasible plan is a failure") {
  const TemporaryDirectory dir("simtrain_runner_strict");
  const ResultStore store((dir.path / "results").string());
  const std::vector<Scenario> scenarios = scenarios_of_models({"huge"});
  SweepOptions options;
  options.simtrain = fake_simtrain(dir.path);
  const SweepSummary summary = run_sweep(scenarios, store, options, nullptr);
  CHECK(summary.failed == 1);
  CHECK(store.read(scenarios[0].key())->status == RunStatus::Failed);
}
