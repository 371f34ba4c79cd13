// Specification of selective recomputation by submodule (recompute_modules.h): Megatron's names and which
// forward steps the generated backward pass reruns for each module (what each takes out of the activation
// estimate: layer_activations_test.cc).
#include <doctest/doctest.h>

#include "tests/support/megatron_fixtures.h"

#include <set>
#include <string>

#include "common/error.h"
#include "simulator/workload/megatron_trace.h"
#include "simulator/workload/parallel_config.h"
#include "simulator/workload/recompute_modules.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// The names of the ops layer 1's backward reruns in micro-batch 0, without their prefix.
std::multiset<std::string> recomputed(const TransformerConfig& model, Recompute recompute,
                                      RecomputeModules modules) {
  ParallelConfig c = testing::megatron_plan(1, 1, 2, 1);
  c.ep = model.experts > 0 ? 2 : 1;
  c.recompute = recompute;
  c.recompute_modules = modules;
  const trace::Trace t = generate_megatron_trace(model, "model", c);
  const std::string prefix = "mb0.c0.layer1.recompute.";
  std::multiset<std::string> names;
  for (const trace::Op& op : t.programs[0].ops)
    if (op.name.rfind(prefix, 0) == 0) names.insert(op.name.substr(prefix.size()));
  return names;
}

bool has(const std::multiset<std::string>& names, const std::string& name) { return names.count(name) > 0; }

}  // namespace

TEST_CASE("Megatron's module names parse with commas or spaces and print back in one order") {
  CHECK(parse_recompute_modules("core_attn") == RecomputeModules{kRecomputeCoreAttention});
  CHECK(parse_recompute_modules("moe_act,layernorm") ==
        RecomputeModules{kRecomputeMoeActivation | kRecomputeLayerNorm});
  CHECK(parse_recompute_modules("moe_act layernorm") == parse_recompute_modules("layernorm,,moe_act"));
  CHECK(recompute_modules_string(kRecomputeMoeActivation | kRecomputeLayerNorm) == "layernorm,moe_act");
  CHECK(recompute_modules_string(kRecomputeMoe | kRecomputeMlp, ' ') == "mlp moe");
  for (const char* all : {"core_attn", "layernorm", "moe_act", "mla_up_proj", "mlp", "moe", "shared_experts"})
    CHECK(recompute_modules_string(*parse_recompute_modules(all)) == all);
  std::string why;
  CHECK_FALSE(parse_recompute_modules("moe_act,mhc", &why));
  CHECK(why.find("unknown module 'mhc'") != std::string::npos);
  CHECK_FALSE(parse_recompute_modules(" , ", &why));
  CHECK(why.find("no module given") != std::string::npos);
}

TEST_CASE("each module reruns its own forward steps before the layer's backward") {
  const TransformerConfig moe = testing::small_moe(2, 1);
  CHECK(recomputed(moe, Recompute::None, kRecomputeMoe).empty());
  CHECK(recomputed(moe, Recompute::Selective, kRecomputeCoreAttention) ==
        std::multiset<std::string>{"attention.fwd"});
  CHECK(recomputed(moe, Recompute::Selective, kRecomputeMoeActivation) ==
        std::multiset<std::string>{"moe.experts.act.fwd"});
  CHECK(recomputed(moe, Recompute::Selective, kRecomputeLayerNorm) ==
        std::multiset<std::string>{"input_norm.fwd", "mlp_norm.fwd"});
  // The shared expert's two GEMMs and activation, not the routed experts'.
  const auto shared = recomputed(moe, Recompute::Selective, kRecomputeSharedExperts);
  CHECK(shared ==
        std::multiset<std::string>{"moe.shared.fc1.fwd", "moe.shared.act.fwd", "moe.shared.fc2.fwd"});
  // The whole MoE layer: router, both all-to-alls, experts and the shared expert, not the norms.
  const auto whole = recomputed(moe, Recompute::Selective, kRecomputeMoe);
  for (const char* step : {"moe.router.fwd", "moe.dispatch_all_to_all", "moe.experts.fc1.fwd",
                           "moe.experts.act.fwd", "moe.combine_all_to_all", "moe.shared.fc2.fwd"})
    CHECK_MESSAGE(has(whole, step), step);
  CHECK_FALSE(has(whole, "mlp_norm.fwd"));
  CHECK_FALSE(has(whole, "attention.fwd"));
  // Full recomputation reruns all of it, and more than any one module.
  const auto full = recomputed(moe, Recompute::Full, 0);
  CHECK(full.size() > whole.size() + 2);
  for (const std::string& step : whole) CHECK(has(full, step));
  // A dense layer's MLP is `mlp`; the MoE modules select nothing in it.
  const TransformerConfig dense = testing::small_gpt(2);
  const auto mlp = recomputed(dense, Recompute::Selective, kRecomputeMlp);
  CHECK(has(mlp, "mlp.fc1.fwd"));
  CHECK(has(mlp, "mlp.act.fwd"));
  CHECK(has(mlp, "mlp.fc2.fwd"));
  CHECK_FALSE(has(mlp, "attention.fwd"));
}

TEST_CASE("a module the model lacks is refused in one line") {
  ParallelConfig c = testing::megatron_plan(1, 1, 2, 1);
  c.recompute = Recompute::Selective;
  c.recompute_modules = kRecomputeMlaUpProjection;
  CHECK_THROWS_WITH_AS(validate(c, testing::small_gpt(2), 2), doctest::Contains("mla_up_proj needs"), Error);
  c.recompute_modules = kRecomputeMoeActivation;
  CHECK_THROWS_WITH_AS(validate(c, testing::small_gpt(2), 2), doctest::Contains("moe and moe_act need"),
                       Error);
  c.recompute = Recompute::Full;  // the modules only matter under selective recomputation
  CHECK_NOTHROW(validate(c, testing::small_gpt(2), 2));
}
