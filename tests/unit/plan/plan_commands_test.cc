// A plan as the `simtrain run` command and the Megatron-LM arguments that run it.
#include <doctest/doctest.h>

#include "simulator/plan/plan_commands.h"

using namespace simtrain;
using namespace simtrain::plan;

namespace {

workload::ParallelConfig selene_gpt3() {
  workload::ParallelConfig c;
  c.model = "gpt3-175b";
  c.gpus = 1024;
  c.tp = 8;
  c.sp = true;
  c.pp = 8;
  c.vpp = 2;
  c.dp = 16;
  c.micro_batch = 1;
  c.global_batch = 1536;
  c.seq_len = 2048;
  c.distributed_optimizer = true;
  c.recompute = workload::Recompute::Selective;
  c.schedule = workload::PipelineSchedule::Interleaved;
  return c;
}

}  // namespace

TEST_CASE("the run command names every option of the plan that differs from run's defaults") {
  CHECK(run_command_line(selene_gpt3(), "dgx-a100") ==
        "simtrain run --model gpt3-175b --platform dgx-a100 --gpus 1024 --global-batch 1536 --seq-len 2048 "
        "--precision amp-bf16 --tp 8 --sp --pp 8 --vpp 2 --micro-batch 1 --recompute selective "
        "--distributed-optimizer");
}

TEST_CASE("full recomputation of some layers, or in groups, in simtrain's and Megatron's words") {
  workload::ParallelConfig c = selene_gpt3();
  c.recompute = workload::Recompute::Full;
  c.recompute_layers = {workload::RecomputedLayers::Rule::FirstOfChunk, 3};
  const std::string block = "--recompute-method block --recompute-num-layers 3";
  CHECK(run_command_line(c, "dgx-a100").find("--recompute full " + block) != std::string::npos);
  const workload::TransformerConfig gpt3 = *workload::build_model("gpt3-175b", {}).transformer;
  CHECK(megatron_arguments(c, gpt3).find("--recompute-granularity full " + block) != std::string::npos);
  // Every layer, 4 at a time; every layer one at a time.
  c.recompute_layers = {workload::RecomputedLayers::Rule::UniformGroups, 4};
  const std::string uniform = "--recompute-method uniform --recompute-num-layers 4";
  CHECK(run_command_line(c, "dgx-a100").find("--recompute full " + uniform) != std::string::npos);
  CHECK(megatron_arguments(c, gpt3).find("--recompute-granularity full " + uniform) != std::string::npos);
  c.recompute_layers = {};
  CHECK(run_command_line(c, "dgx-a100").find("--recompute-method") == std::string::npos);
  CHECK(megatron_arguments(c, gpt3).find("--recompute-granularity full --recompute-method uniform "
                                         "--recompute-num-layers 1") != std::string::npos);
}

TEST_CASE("a fused loss in simtrain's and Megatron's words; the unfused one is both defaults") {
  workload::ParallelConfig c = selene_gpt3();
  const workload::TransformerConfig gpt3 = *workload::build_model("gpt3-175b", {}).transformer;
  CHECK(run_command_line(c, "dgx-a100").find("cross-entropy") == std::string::npos);
  CHECK(megatron_arguments(c, gpt3).find("cross-entropy") == std::string::npos);
  c.cross_entropy_fusion = workload::CrossEntropyFusion::TransformerEngine;
  const std::string te = "--cross-entropy-loss-fusion --cross-entropy-fusion-impl te";
  CHECK(run_command_line(c, "dgx-a100").find(te) != std::string::npos);
  CHECK(megatron_arguments(c, gpt3).find(te) != std::string::npos);
  c.cross_entropy_fusion = workload::CrossEntropyFusion::Native;
  CHECK(run_command_line(c, "dgx-a100").find("--cross-entropy-fusion-impl native") != std::string::npos);
}

TEST_CASE("a platform path with a space is quoted for the shell") {
  CHECK(run_command_line(selene_gpt3(), "my specs/a.toml").find("--platform 'my specs/a.toml'") !=
        std::string::npos);
}

TEST_CASE("Megatron-LM arguments: parallel sizes, layers per virtual stage, batch and model shape") {
  const workload::TransformerConfig gpt3 = *workload::build_model("gpt3-175b", {}).transformer;
  const std::string args = megatron_arguments(selene_gpt3(), gpt3);
  for (const char* expected :
       {"--tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 --sequence-parallel",
        "--num-layers-per-virtual-pipeline-stage 6",
        "--micro-batch-size 1 --global-batch-size 1536 --seq-length 2048",
        "--num-layers 96 --hidden-size 12288 --num-attention-heads 96", "--bf16",
        "--recompute-granularity selective", "--use-distributed-optimizer"})
    CHECK_MESSAGE(args.find(expected) != std::string::npos, expected, " in ", args);
  CHECK(args.find("--group-query-attention") == std::string::npos);  // multi-head attention
}

TEST_CASE("run settings mark switches as true and leave out defaults") {
  workload::ParallelConfig c = selene_gpt3();
  c.vpp = 1;
  c.distributed_optimizer = false;
  c.zero = 1;
  const auto settings = run_settings(c, "dgx-a100");
  bool sp = false, vpp = false, zero = false;
  for (const study::Setting& s : settings) {
    sp |= s.option == "sp" && s.value == "true";
    vpp |= s.option == "vpp";
    zero |= s.option == "zero" && s.value == "1";
  }
  CHECK(sp);
  CHECK_FALSE(vpp);
  CHECK(zero);
}
