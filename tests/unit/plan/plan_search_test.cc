// The search: every plan estimated and ranked by the objective; no plan, one line that says why.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/plan/plan_search.h"

using namespace simtrain;
using namespace simtrain::plan;

namespace {

PlanRequest small_request() {
  PlanRequest r;
  r.space.model = "megatron-gpt-1.7b";
  r.space.min_gpus = r.space.max_gpus = 16;
  r.space.global_batch = 64;
  r.platform = "dgx-a100";
  return r;
}

}  // namespace

TEST_CASE(
    "plans come back best first by estimated iteration time, with the model's sequence and the GPU's "
    "memory") {
  const SearchResult result = search_plans(small_request());
  CHECK(result.space.seq_len == 2048);
  CHECK(result.space.memory_bytes > 70e9);
  REQUIRE(result.ranked.size() == result.enumeration.plans.size());
  for (std::size_t i = 1; i < result.ranked.size(); ++i)
    CHECK(result.ranked[i - 1].estimate.iteration_time_s <= result.ranked[i].estimate.iteration_time_s);
}

TEST_CASE("tokens per GPU over a range of cluster sizes prefers the smaller clusters' efficiency") {
  PlanRequest request = small_request();
  request.space.min_gpus = 8;
  request.space.max_gpus = 32;
  request.objective = Objective::TokensPerGpu;
  const SearchResult result = search_plans(request);
  for (std::size_t i = 1; i < result.ranked.size(); ++i)
    CHECK(result.ranked[i - 1].tokens_per_s_per_gpu() >= result.ranked[i].tokens_per_s_per_gpu());
  request.objective = Objective::Time;
  const SearchResult fastest = search_plans(request);
  CHECK(fastest.ranked.front().config.gpus >= result.ranked.front().config.gpus);
}

TEST_CASE("no plan left is one Infeasible error naming the constraint") {
  PlanRequest request = small_request();
  request.space.fixed = {{"pp", "5"}};
  try {
    search_plans(request);
    FAIL("expected an error");
  } catch (const Error& error) {
    CHECK(error.kind() == ErrorKind::Infeasible);
    CHECK_MESSAGE(std::string(error.what()).find("--fix pp=5: ") == 0, error.what());
    CHECK_MESSAGE(std::string(error.what()).find("nearest feasible: --fix pp=4") != std::string::npos,
                  error.what());
  }
}

TEST_CASE("a model that is not a transformer is bad input") {
  PlanRequest request = small_request();
  request.space.model = "resnet50";
  CHECK_THROWS_AS(search_plans(request), Error);
}

TEST_CASE("simulated figures rank a plan; one whose simulation failed keeps its estimate") {
  std::vector<RankedPlan> plans(3);
  for (int i = 0; i < 3; ++i) {
    plans[i].config.gpus = 8;
    plans[i].estimate.iteration_time_s = 1.0 + i;
    plans[i].estimate.tokens_per_iteration = 1e6;
  }
  plans[1].simulated = SimulatedPlan{};  // failed (or out of time): ranked by its estimate, 2 s
  plans[2].simulated = SimulatedPlan{true, "", 0.5};
  rank_plans(plans, Objective::Time);
  CHECK(plans[0].estimate.iteration_time_s == 3.0);  // simulated at 0.5 s
  CHECK(plans[1].estimate.iteration_time_s == 1.0);
  CHECK(plans[2].estimate.iteration_time_s == 2.0);
}

TEST_CASE("objective names") {
  Objective o;
  CHECK((parse_objective("cost", o) && o == Objective::Cost));
  CHECK((parse_objective("tokens-per-gpu", o) && o == Objective::TokensPerGpu));
  CHECK_FALSE(parse_objective("speed", o));
}
