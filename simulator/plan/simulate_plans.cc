// Implements simulate_plans.h: plans become study scenarios, the runner runs them, the store gives back their
// Result JSON.
#include "simulator/plan/simulate_plans.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "simulator/plan/plan_commands.h"
#include "simulator/study/result_store.h"
#include "simulator/study/runner.h"

namespace simtrain::plan {

SimulatedPlan simulated_from_result_json(const std::string& json_text) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error("simtrain run wrote a Result that is not JSON");
  SimulatedPlan s;
  s.ok = true;
  s.iteration_time_s = j.value("iteration_time_s", 0.0);
  s.tokens_per_s = j.value("tokens_per_s", 0.0);
  s.mfu = j.value("mfu", 0.0);
  s.peak_memory_bytes = j.value("peak_memory_bytes", 0.0);
  if (j.contains("breakdown") && j["breakdown"].is_object()) {
    const nlohmann::json& b = j["breakdown"];
    s.compute_s = b.value("compute_s", 0.0);
    s.exposed_comm_s = b.value("exposed_comm_s", 0.0);
    s.bubble_s = b.value("pipeline_bubble_s", 0.0);
  }
  return s;
}

void simulate_plans(std::vector<RankedPlan>& plans, std::size_t count, const SimulationOptions& options,
                    std::FILE* progress) {
  count = std::min(count, plans.size());
  std::vector<study::Scenario> scenarios;
  for (std::size_t i = 0; i < count; ++i) {
    study::Scenario s;
    s.index = i;
    s.settings = run_settings(plans[i].config, options.platform);
    if (!options.profile.empty()) s.settings.push_back({"profile", options.profile});
    s.settings.push_back({"fidelity", options.fidelity});
    scenarios.push_back(std::move(s));
  }
  const study::ResultStore store(options.work_dir);
  study::SweepOptions sweep;
  sweep.simtrain = options.simtrain;
  sweep.jobs = options.jobs;
  sweep.time_limit_s = options.time_limit_s;
  study::run_sweep(scenarios, store, sweep, progress);
  for (std::size_t i = 0; i < count; ++i) {
    const auto record = store.read(scenarios[i].key());
    SimulatedPlan simulated;
    if (!record) {
      simulated.error = "not simulated";
    } else if (record->status != study::RunStatus::Ok) {
      simulated.error = record->error.empty() ? std::string(study::to_string(record->status)) : record->error;
    } else {
      simulated = simulated_from_result_json(record->result_json);
    }
    plans[i].simulated = simulated;
  }
}

}  // namespace simtrain::plan
