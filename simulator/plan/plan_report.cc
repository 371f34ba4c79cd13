// Implements plan_report.h.
#include "simulator/plan/plan_report.h"

#include <fmt/format.h>

#include "common/error.h"
#include "simulator/plan/rank_correlation.h"
#include "simulator/workload/megatron_trace.h"

namespace simtrain::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string optional_seconds(const RankedPlan& p) {
  if (!p.simulated) return "-";
  if (!p.simulated->ok) return "failed";
  return fmt::format("{:.3f}", p.simulated->iteration_time_s);
}

// The columns of the JSON and CSV rows, in order.
const std::vector<std::string>& columns() {
  static const std::vector<std::string> names = {"rank",
                                                 "plan",
                                                 "gpus",
                                                 "tp",
                                                 "sp",
                                                 "pp",
                                                 "vpp",
                                                 "cp",
                                                 "ep",
                                                 "dp",
                                                 "micro_batch",
                                                 "recompute",
                                                 "recompute_num_layers",
                                                 "sharding",
                                                 "cpu_offloading_num_layers",
                                                 "estimated_iteration_time_s",
                                                 "simulated_iteration_time_s",
                                                 "tokens_per_s_per_gpu",
                                                 "mfu",
                                                 "memory_bytes",
                                                 "exposed_tp_s",
                                                 "exposed_cp_s",
                                                 "exposed_ep_s",
                                                 "exposed_pp_s",
                                                 "exposed_dp_s",
                                                 "estimated_offload_s",
                                                 "estimated_bubble_s",
                                                 "simulated_bubble_s",
                                                 "simulated_exposed_comm_s",
                                                 "cost_per_iteration",
                                                 "simulation_error"};
  return names;
}

}  // namespace

std::string plan_label(const workload::ParallelConfig& c) {
  return workload::megatron_parallelism(c, c.dp) + " mb" + std::to_string(c.micro_batch);
}

std::string ranked_table(const std::vector<RankedPlan>& plans, std::size_t rows) {
  std::string out = fmt::format("{:>4}  {:<48} {:>5} {:>9} {:>9} {:>8} {:>5} {:>7}  {:>31} {:>8}\n", "rank",
                                "plan", "gpus", "est s", "sim s", "tok/s/g", "mfu", "mem GiB",
                                "exposed tp/cp/ep/pp/dp ms (est)", "bubble s");
  for (std::size_t i = 0; i < std::min(rows, plans.size()); ++i) {
    const RankedPlan& p = plans[i];
    const ExposedCommunication& x = p.estimate.exposed;
    const double mfu = p.simulated && p.simulated->ok ? p.simulated->mfu : p.estimate.mfu;
    const double bubble = p.simulated && p.simulated->ok ? p.simulated->bubble_s : p.estimate.bubble_s;
    out += fmt::format("{:>4}  {:<48} {:>5} {:>9.3f} {:>9} {:>8.0f} {:>5.3f} {:>7.1f}  {:>31} {:>8.3f}\n",
                       i + 1, plan_label(p.config), p.config.gpus, p.estimate.iteration_time_s,
                       optional_seconds(p), p.tokens_per_s_per_gpu(), mfu, p.estimate.memory_bytes / kGiB,
                       fmt::format("{:.0f}/{:.0f}/{:.0f}/{:.0f}/{:.0f}", x.tp_s * 1e3, x.cp_s * 1e3,
                                   x.ep_s * 1e3, x.pp_s * 1e3, x.dp_s * 1e3),
                       bubble);
  }
  return out;
}

nlohmann::json plans_json(const std::vector<RankedPlan>& plans, std::size_t rows) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < std::min(rows, plans.size()); ++i) {
    const RankedPlan& p = plans[i];
    const workload::ParallelConfig& c = p.config;
    nlohmann::json j;
    j["rank"] = i + 1;
    j["plan"] = plan_label(c);
    j["gpus"] = c.gpus;
    j["tp"] = c.tp;
    j["sp"] = c.sp;
    j["pp"] = c.pp;
    j["vpp"] = c.vpp;
    j["cp"] = c.cp;
    j["ep"] = c.ep;
    j["dp"] = c.dp;
    j["micro_batch"] = c.micro_batch;
    j["recompute"] = std::string(workload::to_string(c.recompute));
    // Under block recomputation, the layers of each model chunk recomputed; otherwise null (all or none).
    j["recompute_num_layers"] =
        c.recompute == workload::Recompute::Full &&
                c.recompute_layers.rule == workload::RecomputedLayers::Rule::FirstOfChunk
            ? nlohmann::json(c.recompute_layers.n)
            : nlohmann::json();
    j["sharding"] = to_string(sharding_of(c));
    j["cpu_offloading_num_layers"] = c.cpu_offloading_layers;
    j["estimated_iteration_time_s"] = p.estimate.iteration_time_s;
    j["simulated_iteration_time_s"] =
        p.simulated && p.simulated->ok ? nlohmann::json(p.simulated->iteration_time_s) : nlohmann::json();
    j["tokens_per_s_per_gpu"] = p.tokens_per_s_per_gpu();
    j["mfu"] = p.simulated && p.simulated->ok ? p.simulated->mfu : p.estimate.mfu;
    j["memory_bytes"] = p.estimate.memory_bytes;
    j["exposed_tp_s"] = p.estimate.exposed.tp_s;
    j["exposed_cp_s"] = p.estimate.exposed.cp_s;
    j["exposed_ep_s"] = p.estimate.exposed.ep_s;
    j["exposed_pp_s"] = p.estimate.exposed.pp_s;
    j["exposed_dp_s"] = p.estimate.exposed.dp_s;
    j["estimated_offload_s"] = p.estimate.offload_s;
    j["estimated_bubble_s"] = p.estimate.bubble_s;
    j["simulated_bubble_s"] =
        p.simulated && p.simulated->ok ? nlohmann::json(p.simulated->bubble_s) : nlohmann::json();
    j["simulated_exposed_comm_s"] =
        p.simulated && p.simulated->ok ? nlohmann::json(p.simulated->exposed_comm_s) : nlohmann::json();
    j["cost_per_iteration"] = p.cost_per_iteration();
    j["simulation_error"] =
        p.simulated && !p.simulated->ok ? nlohmann::json(p.simulated->error) : nlohmann::json();
    list.push_back(std::move(j));
  }
  return list;
}

std::string plans_csv(const std::vector<RankedPlan>& plans, std::size_t rows) {
  std::string out;
  for (const std::string& name : columns()) out += (out.empty() ? "" : ",") + name;
  out += "\n";
  for (const nlohmann::json& row : plans_json(plans, rows)) {
    std::string line;
    for (std::size_t i = 0; i < columns().size(); ++i) {
      const nlohmann::json& value = row[columns()[i]];
      std::string cell;
      if (value.is_string()) {
        cell = value.get<std::string>();
        if (cell.find_first_of(",\"\n") != std::string::npos) {
          std::string quoted = "\"";
          for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          cell = quoted + "\"";
        }
      } else if (!value.is_null()) {
        cell = value.dump();
      }
      line += (i ? "," : "") + cell;
    }
    out += line + "\n";
  }
  return out;
}

study::StudyTable plans_table(const nlohmann::json& document) {
  if (!document.is_object() || !document.contains("plans") || !document["plans"].is_array())
    throw Error("not a simtrain plan --json document: no \"plans\" array");
  study::StudyTable table;
  table.columns = {"status", "gpus", "memory_bytes", "iteration_time_s"};
  const auto number = [](const nlohmann::json& row, const char* key) {
    if (!row.contains(key) || !row[key].is_number())
      throw Error(std::string("a plan has no number '") + key + "'");
    return fmt::format("{:.17g}", row[key].get<double>());
  };
  for (const nlohmann::json& row : document["plans"]) {
    if (!row.is_object()) throw Error("a plan is not a JSON object");
    const bool simulated =
        row.contains("simulated_iteration_time_s") && row["simulated_iteration_time_s"].is_number();
    table.rows.push_back({{"status", "ok"},
                          {"gpus", number(row, "gpus")},
                          {"memory_bytes", number(row, "memory_bytes")},
                          {"iteration_time_s", number(row, simulated ? "simulated_iteration_time_s"
                                                                     : "estimated_iteration_time_s")}});
  }
  return table;
}

std::optional<RankCorrelation> estimate_rank_correlation(const std::vector<RankedPlan>& plans,
                                                         std::size_t rows) {
  std::vector<double> estimated, simulated;
  for (std::size_t i = 0; i < std::min(rows, plans.size()); ++i)
    if (plans[i].simulated && plans[i].simulated->ok) {
      estimated.push_back(plans[i].estimate.iteration_time_s);
      simulated.push_back(plans[i].simulated->iteration_time_s);
    }
  if (estimated.size() < 3) return std::nullopt;
  return RankCorrelation{spearman(estimated, simulated), estimated.size()};
}

}  // namespace simtrain::plan
