// Specification of FSDP's units over a recorded step: runs of consecutive gradients that close at the wrap
// policy's parameter count, their backward spans, and their forward spans placed by backward GPU time.
#include <doctest/doctest.h>

#include "simulator/trace/fsdp_units.h"

namespace simtrain::trace {

TEST_CASE("a unit closes once it holds the policy's parameters; the rest form the last unit") {
  // fp32 gradients of 40, 40, 40, 40 and 10 parameters, complete after activities 10, 12, 15, 18, 19.
  const std::vector<GradientReady> grads = {{160, DType::FP32, 10},
                                            {160, DType::FP32, 12},
                                            {160, DType::FP32, 15},
                                            {160, DType::FP32, 18},
                                            {40, DType::FP32, 19}};
  const std::vector<FsdpUnit> units = plan_fsdp_units(grads, 80, 8);
  REQUIRE(units.size() == 3);
  CHECK(units[0].bytes == 320);
  CHECK(units[0].gradients == 2);
  CHECK(units[0].backward_first == 8);
  CHECK(units[0].ready_after == 12);
  CHECK(units[1].backward_first == 13);
  CHECK(units[1].ready_after == 18);
  CHECK(units[2].bytes == 40);
  CHECK(units[2].backward_first == 19);
}

TEST_CASE("parameters are counted in elements of their dtype") {
  const std::vector<GradientReady> grads = {{100, DType::BF16, 3}, {100, DType::BF16, 4}};
  CHECK(plan_fsdp_units(grads, 50, 2).size() == 2);   // 50 bf16 parameters each
  CHECK(plan_fsdp_units(grads, 100, 2).size() == 1);  // both fit one unit of 100
}

TEST_CASE("forward runs the units in reverse, each for its backward's share of GPU time") {
  // Forward: activities 0-9, 1 s each. Backward: unit 0 takes activities 10-11 (2 s), unit 1 12-19 (8 s).
  std::vector<double> seconds(20, 1.0);
  std::vector<FsdpUnit> units(2);
  units[0].backward_first = 10, units[0].ready_after = 11;
  units[1].backward_first = 12, units[1].ready_after = 19;
  place_fsdp_forward(units, seconds, 10);
  // Unit 1 runs first in forward, for 80% of it; unit 0 starts after 8 of the 10 forward activities.
  CHECK(units[1].forward_first == 0);
  CHECK(units[0].forward_first == 8);
}

TEST_CASE("units keep distinct forward starts even when backward time is all in one of them") {
  std::vector<double> seconds(6, 1.0);
  std::vector<FsdpUnit> units(3);
  units[0].backward_first = 3, units[0].ready_after = 3;
  units[1].backward_first = 4, units[1].ready_after = 4;
  units[2].backward_first = 5, units[2].ready_after = 5;
  seconds[3] = seconds[4] = 0;  // units 0 and 1 took no backward time
  place_fsdp_forward(units, seconds, 3);
  CHECK(units[2].forward_first == 0);
  CHECK(units[1].forward_first == 1);
  CHECK(units[0].forward_first == 2);
}

}  // namespace simtrain::trace
