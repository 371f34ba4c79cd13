// The plans a search enumerates: only those Megatron-LM would accept and that fit, honouring fixed values,
// and one line naming the constraint when none is left.
#include <doctest/doctest.h>

#include <set>

#include "common/error.h"
#include "simulator/plan/search_space.h"
#include "simulator/workload/parallel_memory.h"

using namespace simtrain;
using namespace simtrain::plan;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Megatron-LM GPT-1.7B (SC21 Table 1): 24 layers, 24 heads, hidden 2304, from the zoo.
workload::TransformerConfig small_gpt() {
  return *workload::build_model("megatron-gpt-1.7b", {}).transformer;
}

SearchSpace space_of(int gpus) {
  SearchSpace s;
  s.model = "megatron-gpt-1.7b";
  s.min_gpus = s.max_gpus = gpus;
  s.gpus_per_node = 8;
  s.global_batch = 64;
  s.seq_len = 2048;
  s.memory_bytes = 80 * kGiB;
  return s;
}

}  // namespace

TEST_CASE("every enumerated plan divides, fits and uses the GPUs asked for") {
  const SearchSpace space = space_of(16);
  const Enumeration e = enumerate_plans(space, small_gpt());
  REQUIRE(!e.plans.empty());
  CHECK(e.considered == e.plans.size() + e.invalid + e.over_memory);
  for (const workload::ParallelConfig& c : e.plans) {
    CHECK(c.tp * c.pp * c.cp * c.dp == 16);
    CHECK(c.tp <= 8);  // tensor parallelism stays inside a node
    CHECK(24 % c.tp == 0);
    CHECK(24 % (c.pp * c.vpp) == 0);
    CHECK(64 % (c.micro_batch * c.dp) == 0);
    CHECK(c.sp == (c.tp > 1));
    if (c.pp > 1) CHECK((c.zero < 2 && c.fsdp == workload::FsdpMode::None));
    CHECK(workload::estimate_parallel_memory(small_gpt(), c, 2048, c.dp).total_bytes() <= space.memory_bytes);
  }
}

TEST_CASE("fixed values are the only ones taken; --max-tp bounds tensor parallelism") {
  SearchSpace space = space_of(16);
  space.fixed = {{"tp", "2"}, {"sharding", "dist-opt"}};
  for (const workload::ParallelConfig& c : enumerate_plans(space, small_gpt()).plans) {
    CHECK(c.tp == 2);
    CHECK(c.distributed_optimizer);
  }
  space.fixed.clear();
  space.max_tp = 2;
  for (const workload::ParallelConfig& c : enumerate_plans(space, small_gpt()).plans) CHECK(c.tp <= 2);
}

TEST_CASE("a range of GPU counts gives whole nodes within the range") {
  SearchSpace space = space_of(16);
  space.min_gpus = 8;
  space.max_gpus = 32;
  std::set<int> sizes;
  for (const workload::ParallelConfig& c : enumerate_plans(space, small_gpt()).plans) {
    sizes.insert(c.gpus);
    CHECK(c.gpus % 8 == 0);
  }
  CHECK(sizes == std::set<int>{8, 16, 24, 32});
}

TEST_CASE("a fixed value that does not divide: its constraint and the nearest value that does") {
  SearchSpace space = space_of(16);
  space.fixed = {{"tp", "3"}};
  const workload::TransformerConfig model = small_gpt();
  const Enumeration e = enumerate_plans(space, model);
  CHECK(e.plans.empty());
  const std::string line = explain_no_plan(space, model, e);
  CHECK_MESSAGE(line.find("--fix tp=3:") == 0, line);
  CHECK_MESSAGE(line.find("--gpus 16: no multiple of tp 3") != std::string::npos, line);
  CHECK_MESSAGE(line.find("nearest feasible: --fix tp=2") != std::string::npos, line);
  CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("a model that fits on no plan: the memory it needs and a cluster size where it fits") {
  SearchSpace space = space_of(8);
  space.memory_bytes = 4 * kGiB;
  const Enumeration e = enumerate_plans(space, small_gpt());
  CHECK(e.plans.empty());
  CHECK(e.over_memory > 0);
  const std::string line = explain_no_plan(space, small_gpt(), e);
  CHECK_MESSAGE(line.find("does not fit in GPU memory on any plan") != std::string::npos, line);
  CHECK_MESSAGE(line.find("nearest feasible: --gpus ") != std::string::npos, line);
}

TEST_CASE("--fix parsing: keys, values and repeats") {
  std::map<std::string, std::string> fixed;
  parse_fixed("tp=8,pp=4", fixed);
  CHECK(fixed == std::map<std::string, std::string>{{"pp", "4"}, {"tp", "8"}});
  CHECK_THROWS_WITH_AS(parse_fixed("tp=2", fixed), "--fix: tp= given twice", Error);
  CHECK_THROWS_WITH_AS(parse_fixed("xp=2", fixed), doctest::Contains("unknown key 'xp'"), Error);
  CHECK_THROWS_WITH_AS(parse_fixed("vpp=0", fixed), doctest::Contains("--fix vpp=0: expected a whole number"),
                       Error);
  CHECK_THROWS_WITH_AS(parse_fixed("recompute=most", fixed), doctest::Contains("none, selective or full"),
                       Error);
  CHECK_THROWS_AS(parse_fixed("tp", fixed), Error);
}

TEST_CASE("sharding names round-trip through the plan") {
  for (Sharding s : {Sharding::None, Sharding::DistributedOptimizer, Sharding::Zero1, Sharding::Zero2,
                     Sharding::Zero3, Sharding::Fsdp, Sharding::HybridFsdp}) {
    workload::ParallelConfig c;
    apply_sharding(s, c);
    CHECK(sharding_of(c) == s);
    Sharding parsed;
    REQUIRE(parse_sharding(to_string(s), parsed));
    CHECK(parsed == s);
  }
}

TEST_CASE("a plan that fits only by offloading activations keeps the fewest layers' in host memory") {
  // GPT-1.7B at micro-batch 8 with neither recomputation nor a pipeline holds about 28 GiB of activations on
  // one GPU of a data-parallel group: a 24 GiB GPU takes it only with some layers offloaded.
  SearchSpace space = space_of(8);
  space.fixed = {{"tp", "1"},          {"pp", "1"},           {"cp", "1"},
                 {"micro-batch", "8"}, {"recompute", "none"}, {"sharding", "dist-opt"}};
  space.memory_bytes = 24 * kGiB;
  const workload::TransformerConfig model = small_gpt();
  const Enumeration e = enumerate_plans(space, model);
  REQUIRE(e.plans.size() == 1);
  CHECK(e.offloaded == 1);
  CHECK(e.over_memory == 0);
  workload::ParallelConfig c = e.plans[0];
  REQUIRE(c.cpu_offloading_layers > 0);
  REQUIRE(c.cpu_offloading_layers < model.layers);
  const auto memory = [&](int layers) {
    c.cpu_offloading_layers = layers;
    return workload::estimate_parallel_memory(model, c, space.seq_len, c.dp).total_bytes();
  };
  const int chosen = e.plans[0].cpu_offloading_layers;
  CHECK(memory(chosen) <= space.memory_bytes);
  CHECK(memory(chosen - 1) > space.memory_bytes);  // one layer fewer would not fit

  space.offload = false;  // --no-offload
  const Enumeration refused = enumerate_plans(space, model);
  CHECK(refused.plans.empty());
  CHECK(refused.over_memory == 1);
}

TEST_CASE("a plan that fits recomputing some layers recomputes the fewest of each chunk that fit") {
  // The same GPT-1.7B at micro-batch 8 on a 24 GiB GPU, with offloading off: recomputing every layer fits,
  // and so does recomputing only the first layers of the one chunk.
  SearchSpace space = space_of(8);
  space.fixed = {{"tp", "1"}, {"pp", "1"}, {"cp", "1"}, {"micro-batch", "8"}, {"sharding", "dist-opt"}};
  space.memory_bytes = 24 * kGiB;
  space.offload = false;
  const workload::TransformerConfig model = small_gpt();
  const Enumeration e = enumerate_plans(space, model);
  REQUIRE(e.plans.size() == 1);  // neither none nor selective fits
  CHECK(e.recompute_some == 1);
  workload::ParallelConfig c = e.plans[0];
  REQUIRE(c.recompute == workload::Recompute::Full);
  REQUIRE(c.recompute_layers.rule == workload::RecomputedLayers::Rule::FirstOfChunk);
  const int chosen = c.recompute_layers.n;
  REQUIRE(chosen > 0);
  REQUIRE(chosen < model.layers);
  const auto memory = [&](int layers) {
    c.recompute_layers.n = layers;
    return workload::estimate_parallel_memory(model, c, space.seq_len, c.dp).total_bytes();
  };
  CHECK(memory(chosen) <= space.memory_bytes);
  CHECK(memory(chosen - 1) > space.memory_bytes);  // one layer fewer would not fit

  space.fixed["recompute"] = "full";  // as fixed, every layer
  const Enumeration fixed = enumerate_plans(space, model);
  REQUIRE(fixed.plans.size() == 1);
  CHECK(fixed.plans[0].recompute_layers.rule == workload::RecomputedLayers::Rule::All);
}
