// The plan search: enumerate the plans of a search space (search_space.h), estimate every one analytically
// (plan_estimate.h) and rank them by the user's objective, so that only the best few need a simulation.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/plan/plan_estimate.h"
#include "simulator/plan/search_space.h"
#include "simulator/platform/cluster_spec.h"

namespace simtrain::plan {

// What "best" means: the shortest iteration; the most tokens per second per GPU (which, at a fixed global
// batch, also means the fewest GPU-hours); or the least money per iteration at a GPU-hour price.
enum class Objective { Time, TokensPerGpu, Cost };
bool parse_objective(const std::string& text, Objective& out);  // "time", "tokens-per-gpu", "cost"
const char* to_string(Objective objective);

// What the simulation of a plan gave (the Result JSON of `simtrain run`), or why it failed.
struct SimulatedPlan {
  bool ok = false;
  std::string error;
  double iteration_time_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double compute_s = 0, exposed_comm_s = 0, bubble_s = 0;
  double peak_memory_bytes = 0;
};

struct RankedPlan {
  workload::ParallelConfig config;
  PlanEstimate estimate;
  std::optional<SimulatedPlan> simulated;
  double gpu_hour_price = 0;

  // Tokens per second per GPU, simulated when simulated, else estimated.
  double iteration_time_s() const;
  double tokens_per_s_per_gpu() const;
  double cost_per_iteration() const;  // gpus x iteration time x GPU-hour price
};

// The objective's figure of merit of a plan; lower is better.
double objective_score(const RankedPlan& plan, Objective objective);

struct PlanRequest {
  SearchSpace space;  // space.seq_len 0 = the model's default; memory_bytes 0 = the platform GPU's
  std::string platform = "dgx-a100";
  std::string profile;  // empty = the platform's GPU
  Objective objective = Objective::Time;
  double gpu_hour_price = 0;
};

struct SearchResult {
  SearchSpace space;  // resolved (sequence length, GPUs per node, GPU memory)
  workload::TransformerConfig model;
  std::string gpu;  // the profile's device name
  Enumeration enumeration;
  std::vector<RankedPlan> ranked;  // every plan that fits, best first by the estimate
  double enumerate_wall_s = 0, estimate_wall_s = 0;
};

// Throws Error (Infeasible) with explain_no_plan()'s line when no plan is left; Error (BadInput) on an
// unknown model or platform, or a model that is not a transformer.
SearchResult search_plans(const PlanRequest& request);

// Orders `plans` best first by `objective`, using simulated figures where a plan has them and the estimate
// otherwise: a simulation that failed or ran out of time (--time-limit) says nothing against the plan, whose
// estimate shares the simulator's validity and memory checks.
void rank_plans(std::vector<RankedPlan>& plans, Objective objective);

}  // namespace simtrain::plan
