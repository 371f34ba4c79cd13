// Runs a study's scenarios, each as its own `simtrain run` process (SimGrid allows one engine per process),
// a few at a time, recording every run in the ResultStore the moment it ends.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "simulator/study/result_store.h"
#include "simulator/study/scenario_file.h"

namespace simtrain::study {

struct SweepOptions {
  std::string simtrain;       // the executable to run, e.g. /proc/self/exe
  int jobs = 1;               // runs at a time
  double time_limit_s = 0;    // per run; 0 = none
  bool skip_invalid = false;  // record runs whose plan cannot run (exit 4) as skipped, not failed
};

struct SweepSummary {
  std::size_t scenarios = 0;      // in this sweep (this shard)
  std::size_t already_done = 0;   // found in the store and not run again
  std::size_t run_elsewhere = 0;  // claimed by a concurrent sweep of the same study, or recorded by it
  std::size_t ok = 0, failed = 0, skipped = 0;
  double wall_s = 0;
};

// The scenarios of shard `k` of `n` (1 <= k <= n): those whose index is k - 1 modulo n, the same split on
// every machine. Throws Error on k or n out of range.
std::vector<Scenario> shard_of(const std::vector<Scenario>& scenarios, int k, int n);

// Runs every scenario the store does not hold yet and no other worker has claimed (ResultStore::claim), so
// that sweeps of one study started at once on several machines share its runs. Progress goes to `progress`:
// one line rewritten in place on a terminal, a line per finished run otherwise. A run that fails, crashes or
// outlives the time limit is recorded with its error and the others go on. Throws Error only when the store
// cannot be written.
SweepSummary run_sweep(const std::vector<Scenario>& scenarios, const ResultStore& store,
                       const SweepOptions& options, std::FILE* progress);

}  // namespace simtrain::study
