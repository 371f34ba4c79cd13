// Implements plan_search.h: resolves the model, platform and profile, enumerates, estimates and ranks.
#include "simulator/plan/plan_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/run/simulation.h"

namespace simtrain::plan {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

bool parse_objective(const std::string& text, Objective& out) {
  if (text == "time")
    out = Objective::Time;
  else if (text == "tokens-per-gpu")
    out = Objective::TokensPerGpu;
  else if (text == "cost")
    out = Objective::Cost;
  else
    return false;
  return true;
}

const char* to_string(Objective objective) {
  switch (objective) {
    case Objective::Time:
      return "time";
    case Objective::TokensPerGpu:
      return "tokens-per-gpu";
    case Objective::Cost:
      return "cost";
  }
  return "time";
}

double RankedPlan::iteration_time_s() const {
  return simulated && simulated->ok ? simulated->iteration_time_s : estimate.iteration_time_s;
}

double RankedPlan::tokens_per_s_per_gpu() const {
  return estimate.tokens_per_iteration / (iteration_time_s() * config.gpus);
}

double RankedPlan::cost_per_iteration() const {
  return config.gpus * iteration_time_s() / 3600 * gpu_hour_price;
}

double objective_score(const RankedPlan& plan, Objective objective) {
  switch (objective) {
    case Objective::Time:
      return plan.iteration_time_s();
    case Objective::TokensPerGpu:
      return -plan.tokens_per_s_per_gpu();
    case Objective::Cost:
      // GPU-seconds when no price is given: the same order.
      return plan.config.gpus * plan.iteration_time_s() * (plan.gpu_hour_price > 0 ? plan.gpu_hour_price : 1);
  }
  return plan.iteration_time_s();
}

void rank_plans(std::vector<RankedPlan>& plans, Objective objective) {
  std::stable_sort(plans.begin(), plans.end(), [&](const RankedPlan& a, const RankedPlan& b) {
    return objective_score(a, objective) < objective_score(b, objective);
  });
}

SearchResult search_plans(const PlanRequest& request) {
  SearchResult out;
  workload::ModelOptions options;
  options.seq_len = request.space.seq_len;
  const workload::Model model = workload::build_model(request.space.model, options);
  if (!model.transformer)
    throw Error("--model " + request.space.model + ": plans split transformer models; this one is not",
                ErrorKind::BadInput);
  out.model = *model.transformer;
  // The estimate prices attention + MLP layers; a hybrid model's Mamba blocks are not in it yet.
  if (!out.model.hybrid_pattern.empty())
    throw Error("--model " + request.space.model + ": plans for hybrid (Mamba) models are not searched yet",
                ErrorKind::BadInput);
  out.space = request.space;
  if (out.space.seq_len == 0) out.space.seq_len = model.seq_len;
  if (out.space.global_batch < 1) throw Error("--global-batch: must be at least 1");

  platform::ClusterSpec spec = platform::load_cluster_spec(request.platform);
  calibration::CalibrationProfile profile =
      calibration::load_profile(request.profile.empty() ? spec.gpu : request.profile);
  run::apply_platform_to_profile(spec, profile);
  out.gpu = profile.device.name;
  out.space.gpus_per_node = spec.gpus_per_node;
  if (out.space.memory_bytes <= 0) out.space.memory_bytes = profile.device.memory_bytes;

  auto started = std::chrono::steady_clock::now();
  out.enumeration = enumerate_plans(out.space, out.model);
  out.enumerate_wall_s = seconds_since(started);
  if (out.enumeration.plans.empty())
    throw Error(explain_no_plan(out.space, out.model, out.enumeration), ErrorKind::Infeasible);

  started = std::chrono::steady_clock::now();
  const cost::ComputeCostModel compute(profile);
  // Route latencies depend on how many nodes the job spans: one network model per job size.
  std::map<int, NetworkEstimate> networks;
  out.ranked.reserve(out.enumeration.plans.size());
  for (const workload::ParallelConfig& config : out.enumeration.plans) {
    auto it = networks.find(config.gpus);
    if (it == networks.end()) {
      platform::ClusterSpec sized = spec;
      sized.nodes = std::max(1, (config.gpus + spec.gpus_per_node - 1) / spec.gpus_per_node);
      it = networks.emplace(config.gpus, NetworkEstimate(sized, profile.efficiencies)).first;
    }
    const EstimateContext context{&out.model, &compute, &it->second};
    RankedPlan plan;
    plan.config = config;
    plan.gpu_hour_price = request.gpu_hour_price;
    plan.estimate = estimate_plan(config, context);
    out.ranked.push_back(std::move(plan));
  }
  rank_plans(out.ranked, request.objective);
  out.estimate_wall_s = seconds_since(started);
  return out;
}

}  // namespace simtrain::plan
