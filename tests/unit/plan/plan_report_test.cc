// The ranked table, JSON and CSV of a search, and the estimate's rank correlation with the simulation.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>

#include "simulator/plan/plan_report.h"

using namespace simtrain;
using namespace simtrain::plan;

namespace {

std::vector<RankedPlan> three_plans() {
  std::vector<RankedPlan> plans(3);
  for (int i = 0; i < 3; ++i) {
    RankedPlan& p = plans[i];
    p.config.model = "gpt3-175b";
    p.config.gpus = 1024;
    p.config.tp = 8;
    p.config.sp = true;
    p.config.pp = 8 * (i + 1);
    p.config.dp = 16 / (i + 1);
    p.estimate.iteration_time_s = 10.0 + i;
    p.estimate.tokens_per_iteration = 1536 * 2048;
    p.estimate.memory_bytes = 40e9;
    p.estimate.exposed.dp_s = 0.25;
    p.simulated = SimulatedPlan{true, "", 11.0 + 2 * i};
  }
  return plans;
}

}  // namespace

TEST_CASE("the label is the run's parallelism string and the micro-batch") {
  CHECK(plan_label(three_plans()[0].config) == "tp8 sp pp8 vpp1 dp16 mb1");
}

TEST_CASE("the table has a header and one line per row asked for") {
  const std::string table = ranked_table(three_plans(), 2);
  CHECK(std::count(table.begin(), table.end(), '\n') == 3);
  CHECK(table.find("tp8 sp pp8 vpp1 dp16 mb1") != std::string::npos);
  CHECK(table.find("11.000") != std::string::npos);       // simulated time
  CHECK(table.find("0/0/0/0/250") != std::string::npos);  // exposed dp in ms
}

TEST_CASE("JSON rows carry the plan, the estimate and the simulation; CSV the same columns") {
  const nlohmann::json rows = plans_json(three_plans(), 3);
  REQUIRE(rows.size() == 3);
  CHECK(rows[1]["pp"] == 16);
  CHECK(rows[1]["estimated_iteration_time_s"] == 11.0);
  CHECK(rows[1]["simulated_iteration_time_s"] == 13.0);
  CHECK(rows[1]["simulation_error"].is_null());
  const std::string csv = plans_csv(three_plans(), 3);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);
  CHECK(csv.rfind("rank,plan,gpus,tp,", 0) == 0);
}

TEST_CASE("rank correlation over the simulated plans; none with fewer than three") {
  const auto rho = estimate_rank_correlation(three_plans(), 3);
  REQUIRE(rho.has_value());
  CHECK(rho->spearman == simtrain::testing::Approx(1));
  CHECK(rho->plans == 3);
  std::vector<RankedPlan> one_failed = three_plans();
  one_failed.push_back(one_failed.back());
  one_failed.back().simulated = SimulatedPlan{};  // its simulation failed: not counted
  CHECK(estimate_rank_correlation(one_failed, 4)->plans == 3);
  CHECK_FALSE(estimate_rank_correlation(three_plans(), 2).has_value());
}
