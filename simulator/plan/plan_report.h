// The report of a plan search: the ranked table people read, and the same rows as JSON and CSV for tools
// (and for `simtrain plot pareto`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/plan/plan_search.h"
#include "simulator/study/collect.h"

namespace simtrain::plan {

// "tp8 sp pp8 vpp1 dp16 dist-opt mb1" (workload::megatron_parallelism plus the micro-batch).
std::string plan_label(const workload::ParallelConfig& config);

// The first `rows` plans as an aligned text table: rank, plan, GPUs, estimated and simulated iteration time,
// tokens/s/GPU, MFU, memory per GPU, exposed communication by dimension (tp, cp, ep, pp, dp; estimated) and
// the bubble (simulated where simulated).
std::string ranked_table(const std::vector<RankedPlan>& plans, std::size_t rows);

// One object per plan: its options, the estimate (with exposed communication by dimension) and, when
// simulated, the simulation's figures.
nlohmann::json plans_json(const std::vector<RankedPlan>& plans, std::size_t rows);

// The same rows, one line each, with a header line (the columns of plans_json, flattened).
std::string plans_csv(const std::vector<RankedPlan>& plans, std::size_t rows);

// The "plans" of a `simtrain plan --json` document as a table `simtrain plot --kind pareto` can draw: columns
// gpus, memory_bytes, iteration_time_s (simulated where simulated, else estimated) and status "ok". Throws
// Error when the document has no "plans" array of objects with those numbers.
study::StudyTable plans_table(const nlohmann::json& document);

// Spearman's correlation between estimated and simulated iteration times over the plans among the first
// `rows` whose simulation succeeded, and how many those were (nullopt when fewer than 3).
struct RankCorrelation {
  double spearman = 0;
  std::size_t plans = 0;
};
std::optional<RankCorrelation> estimate_rank_correlation(const std::vector<RankedPlan>& plans,
                                                         std::size_t rows);

}  // namespace simtrain::plan
