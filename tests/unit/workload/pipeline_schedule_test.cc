// Specification of the pipeline schedules: the exact orders of GPipe, 1F1B and interleaved 1F1B for small
// cases (as Megatron-LM's schedules.py produces them), and the bubble each implies.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>

#include "common/error.h"
#include "simulator/workload/pipeline_schedule.h"

using namespace simtrain;
using namespace simtrain::workload;

TEST_CASE("GPipe runs every forward, then every backward in reverse micro-batch order") {
  const PipelineOrder order = gpipe_order(2, 3);
  REQUIRE(order.size() == 2);
  CHECK(to_string(order[0], false) == "F0 F1 F2 B2 B1 B0");
  CHECK(to_string(order[1], false) == "F0 F1 F2 B2 B1 B0");
}

TEST_CASE("1F1B warms up with pp - stage - 1 forwards, alternates, then drains (pp 4, 8 micro-batches)") {
  const PipelineOrder order = one_f_one_b_order(4, 8);
  REQUIRE(order.size() == 4);
  CHECK(to_string(order[0], false) == "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7");
  CHECK(to_string(order[1], false) == "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7");
  CHECK(to_string(order[2], false) == "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7");
  CHECK(to_string(order[3], false) == "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7");
}

TEST_CASE("1F1B with fewer micro-batches than stages is all warm-up on the first stages") {
  const PipelineOrder order = one_f_one_b_order(4, 2);
  CHECK(to_string(order[0], false) == "F0 F1 B0 B1");
  CHECK(to_string(order[3], false) == "F0 B0 F1 B1");
}

TEST_CASE("the combined 1F1B warms up one more forward, so each forward is followed by another's backward") {
  // No pipeline (Megatron-Core's combined_1f1b_schedule_for_no_pipelining): F0, then F(i + 1) with B(i).
  CHECK(to_string(one_f_one_b_order(1, 4, 1)[0], false) == "F0 F1 B0 F2 B1 F3 B2 B3");
  CHECK(to_string(pipeline_order(PipelineSchedule::OneFOneB, 1, 4, 1, true)[0], false) ==
        "F0 F1 B0 F2 B1 F3 B2 B3");
  // Interleaved, last stage: (2 - 1) * 4 + 1 = 5 warm-up forwards.
  const PipelineOrder order = pipeline_order(PipelineSchedule::Interleaved, 4, 8, 2, true);
  CHECK(to_string(order[3], true) ==
        "F0.0 F1.0 F2.0 F3.0 F0.1 "
        "F1.1 B0.1 F2.1 B1.1 F3.1 B2.1 F4.0 B3.1 F5.0 B0.0 F6.0 B1.0 F7.0 B2.0 F4.1 B3.0 "
        "F5.1 B4.1 F6.1 B5.1 F7.1 B6.1 "
        "B7.1 B4.0 B5.0 B6.0 B7.0");
  // Every forward of the steady phase is then followed by a backward of another micro-batch.
  for (const auto& steps : order)
    for (std::size_t i = 0; i + 1 < steps.size(); ++i)
      if (steps[i].steady && steps[i].forward) {
        CHECK(steps[i + 1].steady);
        CHECK(!steps[i + 1].forward);
        CHECK(steps[i].micro_batch != steps[i + 1].micro_batch);
      }
  // The last stage's steady phase: 11 pairs; warm-up and cool-down are not.
  CHECK(std::count_if(order[3].begin(), order[3].end(), [](const PipelineStep& s) { return s.steady; }) ==
        22);
  CHECK(!order[3][4].steady);  // F0.1, the extra warm-up forward
  CHECK(order[3][5].steady);   // F1.1, paired with B0.1
  // All warm-up (as many micro-batches as stages; one micro-batch without a pipeline): nothing is paired,
  // although a forward is followed by a backward.
  for (const PipelineOrder& all_warmup : {pipeline_order(PipelineSchedule::Interleaved, 2, 2, 2, true),
                                          pipeline_order(PipelineSchedule::OneFOneB, 1, 1, 1, true)})
    for (const auto& steps : all_warmup)
      for (const PipelineStep& s : steps) CHECK(!s.steady);
}

TEST_CASE("interleaved 1F1B follows Megatron's chunk order (pp 4, 8 micro-batches, vpp 2)") {
  const PipelineOrder order = interleaved_order(4, 8, 2);
  REQUIRE(order.size() == 4);
  // Stage 0: warm-up (4 - 0 - 1) * 2 + (2 - 1) * 4 = 10 forwards; forwards visit chunk 0 for micro-batches
  // 0-3, chunk 1 for 0-3, chunk 0 for 4-7, chunk 1 for 4-7; backwards the same groups with chunks reversed.
  CHECK(to_string(order[0], true) ==
        "F0.0 F1.0 F2.0 F3.0 F0.1 F1.1 F2.1 F3.1 F4.0 F5.0 "
        "F6.0 B0.1 F7.0 B1.1 F4.1 B2.1 F5.1 B3.1 F6.1 B0.0 F7.1 B1.0 "
        "B2.0 B3.0 B4.1 B5.1 B6.1 B7.1 B4.0 B5.0 B6.0 B7.0");
  // Stage 3: warm-up (2 - 1) * 4 = 4 forwards.
  CHECK(to_string(order[3], true) ==
        "F0.0 F1.0 F2.0 F3.0 "
        "F0.1 B0.1 F1.1 B1.1 F2.1 B2.1 F3.1 B3.1 F4.0 B0.0 F5.0 B1.0 F6.0 B2.0 F7.0 B3.0 "
        "F4.1 B4.1 F5.1 B5.1 F6.1 B6.1 F7.1 B7.1 "
        "B4.0 B5.0 B6.0 B7.0");
}

TEST_CASE("every schedule runs each (micro-batch, chunk) forward and backward exactly once per stage") {
  for (const PipelineOrder& order :
       {gpipe_order(3, 5), one_f_one_b_order(3, 5), interleaved_order(3, 6, 3), interleaved_order(2, 2, 2)}) {
    for (const auto& steps : order) {
      std::vector<int> seen(2 * 6 * 3, 0);
      for (const PipelineStep& s : steps) ++seen[((s.forward ? 0 : 1) * 6 + s.micro_batch) * 3 + s.chunk];
      int once = 0;
      for (int count : seen) {
        CHECK(count <= 1);
        once += count;
      }
      CHECK(once == static_cast<int>(steps.size()));
    }
  }
}

TEST_CASE("the interleaved schedule needs micro-batches in multiples of the pipeline size") {
  CHECK_THROWS_AS(interleaved_order(4, 6, 2), Error);
  CHECK_THROWS_AS(pipeline_order(PipelineSchedule::GPipe, 4, 8, 2), Error);
}

// Unit-time simulation, forward 1 and backward 2 (backward costs twice the forward): the bubble fractions
// are exact, so the tolerance only absorbs floating-point rounding.
TEST_CASE("1F1B and GPipe have a bubble of (pp - 1) / m, interleaved (pp - 1) / (m * vpp)") {
  const IdealPipelineRun one_f_one_b = simulate_ideal_pipeline(one_f_one_b_order(4, 8), 1, 1, 2);
  CHECK(one_f_one_b.makespan_s == simtrain::testing::Approx((8 + 4 - 1) * 3.0));
  CHECK(one_f_one_b.bubble_fraction == simtrain::testing::Approx(3.0 / 8));
  CHECK(simulate_ideal_pipeline(gpipe_order(4, 8), 1, 1, 2).bubble_fraction ==
        simtrain::testing::Approx(3.0 / 8));
  // Each chunk holds half the stage's layers: forward 0.5, backward 1 per chunk.
  const IdealPipelineRun interleaved = simulate_ideal_pipeline(interleaved_order(4, 8, 2), 2, 0.5, 1);
  CHECK(interleaved.busy_s == simtrain::testing::Approx(8 * 3.0));
  CHECK(interleaved.bubble_fraction == simtrain::testing::Approx(3.0 / 16));
  CHECK(simulate_ideal_pipeline(interleaved_order(8, 16, 4), 4, 0.25, 0.5).bubble_fraction ==
        simtrain::testing::Approx(7.0 / 64));
  CHECK(simulate_ideal_pipeline(one_f_one_b_order(1, 4), 1, 1, 2).bubble_fraction ==
        simtrain::testing::Approx(0.0));
}

TEST_CASE("an order in which a step waits for a later step of its own stage is reported as a deadlock") {
  PipelineOrder order = one_f_one_b_order(2, 2);
  std::swap(order[1][0], order[1][1]);  // stage 1 would run B0 before F0
  CHECK_THROWS_AS(simulate_ideal_pipeline(order, 1, 1, 2), Error);
}
