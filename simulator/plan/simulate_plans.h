// Simulates the best plans of a search, each as its own `simtrain run` process (one SimGrid engine per
// process), several at a time, through the study runner (study/runner.h) and its result store, so that a
// search rerun with the same work directory does not simulate the same plan twice.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "simulator/plan/plan_search.h"

namespace simtrain::plan {

struct SimulationOptions {
  std::string simtrain;           // the executable to run, e.g. /proc/self/exe
  std::string platform;           // as given to the search
  std::string profile;            // empty = the platform's GPU
  std::string work_dir;           // the result store's directory
  std::string fidelity = "full";  // `simtrain run --fidelity`
  int jobs = 1;
  double time_limit_s = 0;  // per simulation; 0 = none
};

// Simulates plans[0 .. count) and fills in their `simulated`. Progress goes to `progress` (the runner's one
// line). A simulation that fails is recorded in the plan with its error; the others go on. Throws Error only
// when the work directory cannot be written.
void simulate_plans(std::vector<RankedPlan>& plans, std::size_t count, const SimulationOptions& options,
                    std::FILE* progress);

// A `simtrain run --json` Result as the figures a plan's report shows. Throws Error on malformed JSON.
SimulatedPlan simulated_from_result_json(const std::string& json_text);

}  // namespace simtrain::plan
