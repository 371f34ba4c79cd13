// The figures a plan's report takes from `simtrain run --json`.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/plan/simulate_plans.h"

using namespace simtrain;
using namespace simtrain::plan;

TEST_CASE("a Result's iteration time, throughput, MFU, breakdown and memory") {
  const SimulatedPlan s = simulated_from_result_json(R"({"iteration_time_s": 2.5, "tokens_per_s": 1000,
      "mfu": 0.5, "peak_memory_bytes": 7e10,
      "breakdown": {"compute_s": 2, "exposed_comm_s": 0.3, "pipeline_bubble_s": 0.2}})");
  CHECK(s.ok);
  CHECK(s.iteration_time_s == 2.5);
  CHECK(s.tokens_per_s == 1000);
  CHECK(s.mfu == 0.5);
  CHECK(s.peak_memory_bytes == 7e10);
  CHECK(s.compute_s == 2);
  CHECK(s.exposed_comm_s == 0.3);
  CHECK(s.bubble_s == 0.2);
}

TEST_CASE("text that is not a JSON object is an error") {
  CHECK_THROWS_AS(simulated_from_result_json("not json"), Error);
  CHECK_THROWS_AS(simulated_from_result_json("[1, 2]"), Error);
}
