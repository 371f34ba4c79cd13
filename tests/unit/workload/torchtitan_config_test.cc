// Specification of reading a torchtitan job TOML into a plan.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/torchtitan_config.h"

namespace simtrain::workload {
namespace {

ParallelConfig on_gpus(int gpus) {
  ParallelConfig c;
  c.gpus = gpus;
  return c;
}

constexpr const char* kLlama8b = R"(
[model]
name = "llama3"
flavor = "8B"
converters = ["float8"]

[training]
local_batch_size = 2
seq_len = 8192
steps = 100

[parallelism]
data_parallel_replicate_degree = 2
data_parallel_shard_degree = -1
tensor_parallel_degree = 2
enable_async_tensor_parallel = true

[activation_checkpoint]
mode = "selective"

[optimizer]
name = "AdamW"
)";

std::string error_of(const std::string& toml, int gpus = 16) {
  try {
    parse_torchtitan_config(toml, "job.toml", on_gpus(gpus));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("model, batches, HSDP x TP degrees, float8 and checkpointing as torchtitan reads them") {
  const TorchtitanPlan plan = parse_torchtitan_config(kLlama8b, "job.toml", on_gpus(16));
  const ParallelConfig& c = plan.config;
  CHECK(c.model == "llama3-8b");
  CHECK(c.tp == 2);
  CHECK(c.sp);
  CHECK(c.dp == 8);  // replicate 2 x shard 4 (the -1 takes the rest)
  CHECK(c.fsdp == FsdpMode::HybridShard);
  CHECK(c.micro_batch == 2);
  CHECK(c.global_batch == 16);
  CHECK(c.seq_len == 8192);
  CHECK(c.fp8);
  // Selective checkpointing of every second layer (torchtitan's default option): those layers in full.
  CHECK(c.recompute == Recompute::Full);
  CHECK(c.recompute_layers.rule == RecomputedLayers::Rule::EveryNth);
  CHECK(c.recompute_layers.n == 2);
  CHECK(plan.steps == 100);
  CHECK(c.tp_comm_overlap);  // async TP pipelines the sequence-parallel collectives with the matmuls
  CHECK(c.flash_attention);  // a fused kernel; which one the file does not say (the CLI picks SDPA's)
  CHECK(c.attention_kernel == trace::AttentionKernel::Fused);
  CHECK(plan.no_effect == std::vector<std::string>{"[optimizer]"});
  CHECK(c.quant_recipe == QuantRecipe::Tensorwise);  // torchao's float8 scales by each tensor's current amax
  CHECK(c.eager_pointwise);                          // not compiled: one ATen kernel per pointwise op
  CHECK(c.fsdp_reduce_in_fp32);                      // FSDP2's default reduce_dtype
}

TEST_CASE("torch.compile (either schema's switch) fuses the pointwise ops; 2024's [float8] turns float8 on") {
  const std::string base = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n";
  const auto read = [&](const std::string& rest) {
    return parse_torchtitan_config(base + rest, "job.toml", on_gpus(8)).config;
  };
  CHECK(read("").eager_pointwise);
  CHECK_FALSE(read("[training]\ncompile = true\n").eager_pointwise);
  CHECK(read("[training]\ncompile = false\n").eager_pointwise);
  CHECK_FALSE(read("[compile]\nenable = true\n").eager_pointwise);
  CHECK_FALSE(read("[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n").eager_pointwise);
  CHECK(read("[compile]\nenable = true\ncomponents = [\"loss\"]\n").eager_pointwise);
  CHECK(read("[compile]\nenable = false\n").eager_pointwise);
  const TorchtitanPlan float8 =
      parse_torchtitan_config(base + "[float8]\nenable_float8_linear = true\n", "job.toml", on_gpus(8));
  CHECK(float8.config.fp8);
  CHECK(float8.config.quant_recipe == QuantRecipe::Tensorwise);
  CHECK(float8.no_effect.empty());  // the section took effect
  CHECK_FALSE(read("[float8]\nenable_fsdp_float8_all_gather = true\n").fp8);
  CHECK_FALSE(read("[training]\nmixed_precision_reduce = \"bfloat16\"\n").fsdp_reduce_in_fp32);
  CHECK(error_of(base + "[training]\nmixed_precision_reduce = \"float16\"\n")
            .find("job.toml:5: training.mixed_precision_reduce: expected bfloat16 or float32") == 0);
  // Op-level selective checkpointing is its own recomputation policy.
  const ParallelConfig op =
      read("[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n");
  CHECK(op.recompute == Recompute::Selective);
  CHECK(op.recompute_modules == kRecomputeTorchtitanOps);
  // A layer count of 0 or 1 wraps every layer: full recomputation.
  const ParallelConfig every =
      read("[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"1\"\n");
  CHECK(every.recompute == Recompute::Full);
  CHECK(every.recompute_layers.rule == RecomputedLayers::Rule::All);
  const ParallelConfig third =
      read("[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"3\"\n");
  CHECK(third.recompute_layers.rule == RecomputedLayers::Rule::EveryNth);
  CHECK(third.recompute_layers.n == 3);
  CHECK(
      error_of(base + "[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"some\"\n")
          .find("job.toml:6: activation_checkpoint.selective_ac_option: expected \"op\" or a layer count") ==
      0);
  // Context parallelism alone shards: FSDP runs over the shard and context-parallel degrees together.
  const ParallelConfig cp =
      read("[parallelism]\ndata_parallel_shard_degree = 1\ncontext_parallel_degree = 8\n");
  CHECK(cp.fsdp == FsdpMode::FullShard);
  CHECK(cp.dp == 1);
  CHECK(error_of(base + "[compile]\nenable = true\ncomponents = \"model\"\n")
            .find("job.toml:6: compile.components: expected a list of strings") == 0);
}

TEST_CASE("torchtitan's file errors name the file, line and key") {
  CHECK(error_of(kLlama8b, 10) ==
        "job.toml: parallelism: 10 GPUs are not a multiple of tp x pp x cp x replicate = 4");
  CHECK(error_of("[model]\nname = \"llama3\"\nflavor = \"13B\"\n")
            .find("job.toml:3: model.flavor: torchtitan's llama3 13B is not in simtrain's zoo") == 0);
  CHECK(error_of("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\ntensor_parallel_degree = 2\n")
            .find("job.toml:5: training.tensor_parallel_degree: an older torchtitan schema") == 0);
  CHECK(error_of(
            "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\nenable_async_tensor_parallel = 1\n")
            .find("job.toml:5: parallelism.enable_async_tensor_parallel: expected true or false") == 0);
  CHECK(error_of("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[activation_checkpoint]\nmode = \"half\"\n")
            .find("job.toml:5: activation_checkpoint.mode: expected none, selective or full") == 0);
}

}  // namespace simtrain::workload
