// Specification of MoE parallel folding in the Megatron generator (ParallelConfig::etp below tp): a
// pipeline stage's ranks regrouped as etp x ep x expert-data-parallel, expert parallelism spanning the
// tensor-parallel ranks, and each expert's FFN split over etp ranks instead of tp.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "tests/support/megatron_fixtures.h"

#include <set>
#include <string>

#include "simulator/workload/megatron_trace.h"
#include "simulator/workload/transformer_kernels.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

using testing::small_moe;

const trace::CommunicatorGroup& group(const trace::Trace& t, const std::string& name) {
  for (const trace::CommunicatorGroup& g : t.groups)
    if (g.name == name) return g;
  FAIL("no group " << name);
  return t.groups.front();
}

// TP 2 x DP 4 on one stage (8 GPUs), with expert parallelism 8: possible only folded (etp 1).
ParallelConfig folded(int etp) {
  ParallelConfig c = testing::megatron_plan(2, 1, 4, 1);
  c.sp = true;
  c.ep = etp == 1 ? 8 : 4;
  c.etp = etp;
  return c;
}

}  // namespace

TEST_CASE("folded, expert parallelism spans the tensor-parallel ranks") {
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", folded(1));
  const trace::CommunicatorGroup& ep = group(t, "ep");
  REQUIRE(ep.communicators.size() == 1);
  CHECK(ep.communicators[0] == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // One expert-data-parallel rank each: every rank holds its own experts.
  CHECK(group(t, "edp").communicators.size() == 8);
  for (const trace::CommunicatorGroup& g : t.groups) CHECK(g.name != "etp");
}

TEST_CASE("etp 2 under tp 2 is Megatron's default layout; with a wider tp the ranks regroup etp-fastest") {
  ParallelConfig c = testing::megatron_plan(4, 1, 2, 1);
  c.sp = true;
  c.ep = 2;
  c.etp = 2;  // 8 ranks of a stage, tp 4 x dp 2, as etp 2 x ep 2 x edp 2
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
  CHECK(group(t, "etp").communicators == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(group(t, "ep").communicators == std::vector<std::vector<int>>{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(group(t, "edp").communicators == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
}

TEST_CASE("folded, each rank's experts are whole: no expert-TP gather, the FFN is not split") {
  const TransformerConfig m = small_moe();
  LayerSharding tp_experts;
  tp_experts.tp = tp_experts.etp = 2;
  tp_experts.sp = true;
  tp_experts.ep = 4;
  tp_experts.seq_len = 128;
  LayerSharding whole = tp_experts;
  whole.etp = 1;
  whole.ep = 8;
  const auto steps_named = [](const LayerSteps& s, const std::string& name) {
    for (const LayerStep& step : s.forward)
      if (step.name == name) return step;
    FAIL("no step " << name);
    return s.forward.front();
  };
  const LayerSteps split = transformer_layer_steps(m, tp_experts, true);
  const LayerSteps folded_steps = transformer_layer_steps(m, whole, true);
  std::set<std::string> names;
  for (const LayerStep& step : folded_steps.forward) names.insert(step.name);
  CHECK(names.count("moe.tp_all_gather") == 0);
  CHECK(names.count("moe.tp_all_gather") == 0);
  // The same slots reach fewer ranks' worth of FFN: half the rows of the TP-split GEMM, each twice as wide.
  const LayerStep a = steps_named(split, "moe.experts.fc1.fwd"),
                  b = steps_named(folded_steps, "moe.experts.fc1.fwd");
  CHECK(b.kernel.flops == simtrain::testing::Approx(a.kernel.flops));
  CHECK(b.kernel.shape[1] == 2 * a.kernel.shape[1]);
  // Parameters: a rank holds experts / (etp x ep) either way.
  CHECK(transformer_layer_parameters(m, whole, true).expert_per_gpu ==
        simtrain::testing::Approx(transformer_layer_parameters(m, tp_experts, true).expert_per_gpu));
}
