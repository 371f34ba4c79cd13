// Specification of reading Megatron-LM's arguments: which tokens are Megatron's, and what each does to the
// plan and the model.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/megatron_arguments.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload {
namespace {

const GivenOption kNothingGiven = [](const std::string&) { return std::optional<std::string>(); };

MegatronPlan plan_of(std::vector<std::string> args, ParallelConfig base = {}) {
  const MegatronArguments megatron = take_megatron_arguments(args);
  REQUIRE(args.empty());
  return apply_megatron_arguments(megatron, base, kNothingGiven);
}

}  // namespace

TEST_CASE("Megatron's arguments are taken out of a command line, simtrain's stay in order") {
  std::vector<std::string> args = {"--gpus",
                                   "64",
                                   "--tensor-model-parallel-size",
                                   "8",
                                   "--fp16",
                                   "--data-path",
                                   "0.5",
                                   "a_text_document",
                                   "0.5",
                                   "b_text_document",
                                   "--platform",
                                   "dgx-a100"};
  const MegatronArguments megatron = take_megatron_arguments(args);
  CHECK(args == std::vector<std::string>{"--gpus", "64", "--platform", "dgx-a100"});
  REQUIRE(megatron.given.size() == 3);
  CHECK(megatron.given[0] == std::pair<std::string, std::string>{"tensor-model-parallel-size", "8"});
  CHECK(megatron.given[1].second.empty());
  // --data-path takes a weighted list of paths.
  CHECK(megatron.given[2].second == "0.5 a_text_document 0.5 b_text_document");
}

TEST_CASE("--seed is simtrain's unless the line is a Megatron line") {
  std::vector<std::string> own = {"--model", "resnet50", "--seed", "7"};
  CHECK(take_megatron_arguments(own).empty());
  CHECK(own.size() == 4);
  std::vector<std::string> pasted = {"--tensor-model-parallel-size", "8", "--seed", "1234"};
  CHECK(take_megatron_arguments(pasted).has("seed"));
  CHECK(pasted.empty());
}

TEST_CASE("--profile is Megatron's profiling switch only bare on a Megatron line; with a file, simtrain's") {
  std::vector<std::string> file = {"--tensor-model-parallel-size", "8", "--profile", "b200.json"};
  CHECK_FALSE(take_megatron_arguments(file).has("profile"));
  CHECK(file == std::vector<std::string>{"--profile", "b200.json"});
  std::vector<std::string> bare = {"--tensor-model-parallel-size", "8", "--profile", "--profile-step-start",
                                   "4"};
  const MegatronArguments megatron = take_megatron_arguments(bare);
  CHECK(megatron.has("profile"));
  CHECK(megatron.has("profile-step-start"));
  CHECK(bare.empty());
}

TEST_CASE("a model given by its shapes is Megatron's GPT: tied embeddings, 4h MLP, vocabulary padded by TP") {
  const MegatronPlan plan = plan_of({"--num-layers", "24", "--hidden-size", "2304", "--num-attention-heads",
                                     "24", "--seq-length", "2048", "--tensor-model-parallel-size", "2"});
  REQUIRE(plan.config.decoder);
  const TransformerConfig& t = plan.config.decoder->config;
  CHECK(t.ffn_hidden == 4 * 2304);
  CHECK(t.tied_embeddings);
  CHECK(t.vocab == 50432);  // 50,257 rounded up to a multiple of 128 x 2
  CHECK(plan.config.decoder->learned_positions == 2048);
  CHECK(plan.config.model == plan.config.decoder->name);
}

TEST_CASE("Llama-style switches: SwiGLU, RMSNorm, grouped queries, rotary positions, no biases, QK-norm") {
  const MegatronPlan plan = plan_of({"--num-layers",
                                     "32",
                                     "--hidden-size",
                                     "4096",
                                     "--num-attention-heads",
                                     "32",
                                     "--group-query-attention",
                                     "--num-query-groups",
                                     "8",
                                     "--swiglu",
                                     "--ffn-hidden-size",
                                     "14336",
                                     "--normalization",
                                     "RMSNorm",
                                     "--qk-layernorm",
                                     "--position-embedding-type",
                                     "rope",
                                     "--disable-bias-linear",
                                     "--untie-embeddings-and-output-weights",
                                     "--vocab-size",
                                     "128256",
                                     "--seq-length",
                                     "8192"});
  const TransformerConfig& t = plan.config.decoder->config;
  CHECK(t.kv_heads == 8);
  CHECK(t.gated_mlp);
  CHECK(t.rms_norm);
  CHECK(t.qk_norm);
  CHECK_FALSE(t.bias);
  CHECK_FALSE(t.tied_embeddings);
  CHECK(t.vocab == 128256);
  CHECK(plan.config.decoder->learned_positions == 0);
}

TEST_CASE("layers per virtual stage become model chunks per pipeline rank, and the schedule interleaves") {
  ParallelConfig base;
  base.model = "megatron-gpt-76b";  // 60 layers
  const MegatronPlan plan =
      plan_of({"--pipeline-model-parallel-size", "4", "--num-layers-per-virtual-pipeline-stage", "5"}, base);
  CHECK(plan.config.vpp == 3);
  CHECK(plan.config.schedule == PipelineSchedule::Interleaved);
  CHECK_THROWS_WITH_AS(
      plan_of({"--pipeline-model-parallel-size", "4", "--num-layers-per-virtual-pipeline-stage", "7"}, base),
      doctest::Contains("60 layers do not split into 4 stages of chunks of 7"), Error);
}

TEST_CASE("recomputation as Megatron names it") {
  ParallelConfig base;
  base.model = "gpt3-175b";  // 96 layers
  CHECK(plan_of({"--recompute-granularity", "selective"}, base).config.recompute == Recompute::Selective);
  CHECK(plan_of({"--recompute-granularity", "selective"}, base).config.recompute_modules ==
        kDefaultRecomputeModules);
  CHECK(
      plan_of({"--recompute-granularity", "selective", "--recompute-modules", "layernorm", "core_attn"}, base)
          .config.recompute_modules == (kRecomputeLayerNorm | kRecomputeCoreAttention));
  CHECK_THROWS_WITH_AS(plan_of({"--micro-batch-size", "1", "--recompute-modules", "layernorm"}, base),
                       doctest::Contains("--recompute-modules: applies to selective recomputation"), Error);
  CHECK_THROWS_WITH_AS(
      plan_of({"--recompute-granularity", "selective", "--recompute-modules", "gdp_qkv"}, base),
      doctest::Contains("unknown module 'gdp_qkv'"), Error);
  // Uniform over groups of 4 layers: all of them, 4 at a time.
  const ParallelConfig uniform = plan_of({"--recompute-granularity", "full", "--recompute-method", "uniform",
                                          "--recompute-num-layers", "4"},
                                         base)
                                     .config;
  CHECK(uniform.recompute == Recompute::Full);
  CHECK(uniform.recompute_layers.rule == RecomputedLayers::Rule::UniformGroups);
  CHECK(uniform.recompute_layers.n == 4);
  CHECK(plan_of({"--recompute-method", "uniform", "--recompute-num-layers", "1"}, base)
            .config.recompute_layers.rule == RecomputedLayers::Rule::All);
  CHECK_THROWS_WITH_AS(plan_of({"--recompute-method", "uniform", "--recompute-num-layers", "0"}, base),
                       doctest::Contains("--recompute-num-layers"), Error);
  // The SC21 scripts' --recompute-method alone, and block over every layer of a stage, are full.
  CHECK(plan_of({"--recompute-method", "uniform"}, base).config.recompute == Recompute::Full);
  CHECK(plan_of({"--pipeline-model-parallel-size", "8", "--recompute-granularity", "full",
                 "--recompute-method", "block", "--recompute-num-layers", "12"},
                base)
            .config.recompute == Recompute::Full);
  CHECK(plan_of({}, base).config.recompute == Recompute::None);
  // Block over fewer layers: those of each chunk in full, the others not at all.
  const ParallelConfig block = plan_of({"--pipeline-model-parallel-size", "8", "--recompute-granularity",
                                        "full", "--recompute-method", "block", "--recompute-num-layers", "3"},
                                       base)
                                   .config;
  CHECK(block.recompute == Recompute::Full);
  CHECK(block.recompute_layers.rule == RecomputedLayers::Rule::FirstOfChunk);
  CHECK(block.recompute_layers.n == 3);
}

TEST_CASE("CUDA graphs as Megatron names them, --cuda-graph-scope being --cuda-graph-modules' older name") {
  ParallelConfig base;
  base.model = "gpt3-175b";
  const CudaGraphs te =
      plan_of({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-modules", "attn", "moe_router"}, base)
          .config.cuda_graphs;
  CHECK(te.impl == CudaGraphs::Impl::PerLayer);
  CHECK(te.modules == (kGraphAttention | kGraphMoeRouter));
  CHECK(
      plan_of({"--micro-batch-size", "1", "--cuda-graph-impl", "local", "--cuda-graph-scope", "mamba"}, base)
          .config.cuda_graphs.modules == kGraphMamba);
  CHECK(plan_of({"--micro-batch-size", "1", "--cuda-graph-impl", "full_iteration"}, base)
            .config.cuda_graphs.impl == CudaGraphs::Impl::FullIteration);
  CHECK_THROWS_WITH_AS(plan_of({"--cuda-graph-impl", "full_iteration", "--cuda-graph-modules", "attn"}, base),
                       doctest::Contains("needs --cuda-graph-impl local or transformer_engine"), Error);
}

TEST_CASE("Megatron's defaults: gradient reduction after backward unless told, FP8 over bf16") {
  ParallelConfig base;
  base.model = "gpt3-175b";
  CHECK_FALSE(plan_of({"--tensor-model-parallel-size", "8"}, base).config.overlap_grad_reduce);
  CHECK(plan_of({"--overlap-grad-reduce"}, base).config.overlap_grad_reduce);
  CHECK(plan_of({"--DDP-impl", "torch"}, base).config.overlap_grad_reduce);
  const MegatronPlan fp8 = plan_of({"--bf16", "--fp8-format", "hybrid"}, base);
  CHECK(fp8.config.fp8);
  CHECK(fp8.config.precision == Precision::AMP_BF16);
}

TEST_CASE("16-bit first and last layers: one of each by default, the counts only with the switch") {
  ParallelConfig base;
  base.model = "gpt3-175b";
  const std::vector<std::string> mxfp8 = {"--bf16", "--fp8-format", "e4m3", "--fp8-recipe", "mxfp8"};
  const auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = mxfp8;
    args.insert(args.end(), more.begin(), more.end());
    const ParallelConfig c = plan_of(args, base).config;
    return std::pair{c.bf16_layers_at_start, c.bf16_layers_at_end};
  };
  CHECK(with({}) == std::pair{0, 0});
  CHECK(with({"--first-last-layers-bf16"}) == std::pair{1, 1});
  CHECK(with({"--first-last-layers-bf16", "--num-layers-at-start-in-bf16", "0", "--num-layers-at-end-in-bf16",
              "14"}) == std::pair{0, 14});
  // Megatron reads the counts only with the switch.
  CHECK(with({"--num-layers-at-end-in-bf16", "14"}) == std::pair{0, 0});
}

TEST_CASE("a Megatron name agrees with its simtrain alias or is an error") {
  std::vector<std::string> args = {"--tensor-model-parallel-size", "8"};
  const MegatronArguments megatron = take_megatron_arguments(args);
  ParallelConfig base;
  base.model = "gpt3-175b";
  const GivenOption tp8 = [](const std::string& o) {
    return o == "tp" ? std::optional<std::string>("8") : std::nullopt;
  };
  const GivenOption tp4 = [](const std::string& o) {
    return o == "tp" ? std::optional<std::string>("4") : std::nullopt;
  };
  CHECK(apply_megatron_arguments(megatron, base, tp8).config.tp == 8);
  CHECK_THROWS_WITH_AS(apply_megatron_arguments(megatron, base, tp4),
                       "--tensor-model-parallel-size 8 and --tp 4 disagree: give one of them", Error);
}

TEST_CASE("arguments that do not change a step's time are listed back") {
  ParallelConfig base;
  base.model = "gpt3-175b";
  const MegatronPlan plan = plan_of({"--lr", "6e-5", "--train-iters", "100", "--vocab-file", "v.json"}, base);
  CHECK(plan.ignored == std::vector<std::string>{"--lr", "--vocab-file"});
  CHECK(plan.train_iters == 100);
}

}  // namespace simtrain::workload

namespace simtrain::workload {

TEST_CASE("Megatron's uneven pipeline splits: first/last stage layers, embedding and loss in the split") {
  ParallelConfig base;
  base.model = "llama3.1-405b";  // 126 layers
  const MegatronPlan accounted =
      plan_of({"--pipeline-model-parallel-size", "8", "--virtual-pipeline-model-parallel-size", "8",
               "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split"},
              base);
  CHECK(accounted.config.pp_embedding_in_split);
  CHECK(accounted.config.pp_loss_in_split);
  CHECK(accounted.config.vpp == 8);
  base.model = "deepseek-v3";  // 61 layers
  const MegatronPlan uneven =
      plan_of({"--pipeline-model-parallel-size", "16", "--decoder-first-pipeline-num-layers", "3",
               "--decoder-last-pipeline-num-layers", "2"},
              base);
  CHECK(uneven.config.pp_first_layers == 3);
  CHECK(uneven.config.pp_last_layers == 2);
}

TEST_CASE("token dropping padded to capacity: static expert shapes of capacity x the even share") {
  const MegatronPlan padded = plan_of({"--expert-model-parallel-size", "2", "--moe-expert-capacity-factor",
                                       "1.25", "--moe-pad-expert-input-to-capacity"});
  CHECK(padded.config.moe_pad_to_capacity);
  CHECK(padded.config.capacity_factor == 1.25);
  CHECK_FALSE(plan_of({"--expert-model-parallel-size", "2"}).config.moe_pad_to_capacity);
  CHECK_THROWS_WITH_AS(plan_of({"--expert-model-parallel-size", "2", "--moe-pad-expert-input-to-capacity"}),
                       "--moe-pad-expert-input-to-capacity: needs --moe-expert-capacity-factor", Error);
  CHECK_THROWS_WITH_AS(plan_of({"--expert-model-parallel-size", "2", "--moe-expert-capacity-factor", "-1",
                                "--moe-pad-expert-input-to-capacity"}),
                       "--moe-expert-capacity-factor: must be in (0, 64], got -1.000000", Error);
}

TEST_CASE("a model given by its shapes: head size, multi-latent attention, windows, shared experts, MTP") {
  const MegatronPlan qwen = plan_of({"--num-layers",
                                     "48",
                                     "--hidden-size",
                                     "2048",
                                     "--num-attention-heads",
                                     "32",
                                     "--group-query-attention",
                                     "--num-query-groups",
                                     "4",
                                     "--kv-channels",
                                     "128",
                                     "--seq-length",
                                     "4096",
                                     "--num-experts",
                                     "128",
                                     "--moe-router-topk",
                                     "8",
                                     "--moe-ffn-hidden-size",
                                     "768",
                                     "--swiglu"});
  REQUIRE(qwen.config.decoder);
  CHECK(qwen.config.decoder->config.head_dim == 128);
  const MegatronPlan deepseek = plan_of({"--num-layers",
                                         "61",
                                         "--hidden-size",
                                         "7168",
                                         "--num-attention-heads",
                                         "128",
                                         "--seq-length",
                                         "4096",
                                         "--ffn-hidden-size",
                                         "18432",
                                         "--num-experts",
                                         "256",
                                         "--moe-router-topk",
                                         "8",
                                         "--moe-ffn-hidden-size",
                                         "2048",
                                         "--moe-shared-expert-intermediate-size",
                                         "2048",
                                         "--moe-layer-freq",
                                         "([0]*3+[1]*58)",
                                         "--multi-latent-attention",
                                         "--q-lora-rank",
                                         "1536",
                                         "--kv-lora-rank",
                                         "512",
                                         "--qk-head-dim",
                                         "128",
                                         "--qk-pos-emb-head-dim",
                                         "64",
                                         "--v-head-dim",
                                         "128",
                                         "--mtp-num-layers",
                                         "1",
                                         "--moe-grouped-gemm",
                                         "--moe-router-force-load-balancing",
                                         "--moe-token-dispatcher-type",
                                         "alltoall"});
  CHECK(deepseek.config.moe_dispatcher == TokenDispatcher::AllToAll);
  const TransformerConfig& t = deepseek.config.decoder->config;
  CHECK(t.shared_experts == 1);
  CHECK(t.first_moe_layer == 3);
  CHECK(t.q_lora_rank == 1536);
  CHECK(t.kv_lora_rank == 512);
  CHECK(t.qk_rope_head_dim == 64);
  CHECK(t.mtp_layers == 1);
  const MegatronPlan oss =
      plan_of({"--num-layers", "36", "--hidden-size", "2880", "--num-attention-heads", "64", "--kv-channels",
               "64", "--seq-length", "4096", "--window-size", "(128,0)", "--window-attn-skip-freq", "2"});
  CHECK(oss.config.decoder->config.window_size == 128);
  CHECK(oss.config.decoder->config.window_skip_freq == 2);
  const MegatronPlan latent =
      plan_of({"--num-layers", "4", "--hidden-size", "512", "--num-attention-heads", "8", "--seq-length",
               "128", "--num-experts", "8", "--moe-latent-size", "128"});
  CHECK(latent.config.decoder->config.moe_latent == 128);
  CHECK_THROWS_WITH_AS(plan_of({"--num-layers", "4", "--hidden-size", "512", "--num-attention-heads", "8",
                                "--seq-length", "128", "--moe-latent-size", "128"}),
                       doctest::Contains("--moe-latent-size: give --num-experts with it"), Error);
  CHECK_THROWS_WITH_AS(
      plan_of({"--num-layers", "4", "--hidden-size", "512", "--num-attention-heads", "8", "--seq-length",
               "128", "--num-experts", "8", "--moe-layer-freq", "([0]*1+[1]*2)"}),
      doctest::Contains("--moe-layer-freq ([0]*1+[1]*2): 3 layers where the model has 4"), Error);
  // Every other layer MoE from layer 0 (Megatron's integer 2): an explicit pattern, half the layers routed.
  const MegatronPlan alternate =
      plan_of({"--num-layers", "4", "--hidden-size", "512", "--num-attention-heads", "8", "--seq-length",
               "128", "--num-experts", "8", "--moe-layer-freq", "2"});
  CHECK(alternate.config.decoder->config.moe_layers == std::vector<std::uint8_t>{1, 0, 1, 0});
  CHECK(is_moe_layer(alternate.config.decoder->config, 0));
  CHECK_FALSE(is_moe_layer(alternate.config.decoder->config, 1));
  CHECK_THROWS_WITH_AS(plan_of({"--num-layers", "2", "--hidden-size", "512", "--num-attention-heads", "8",
                                "--seq-length", "128", "--num-experts", "8", "--moe-layer-freq", "[0,0]"}),
                       doctest::Contains("--moe-layer-freq [0,0]: makes no layer a MoE layer"), Error);
  for (const auto& [name, dispatcher] :
       {std::pair{"allgather", TokenDispatcher::AllGather}, std::pair{"flex", TokenDispatcher::Flex}})
    CHECK(plan_of({"--num-layers", "4", "--hidden-size", "512", "--num-attention-heads", "8", "--seq-length",
                   "128", "--num-experts", "8", "--moe-token-dispatcher-type", name})
              .config.moe_dispatcher == dispatcher);
  // The flex dispatcher's kernels: DeepEP's unless --moe-flex-dispatcher-backend says HybridEP's.
  const auto flex_backend = [](std::vector<std::string> backend) {
    std::vector<std::string> args = {
        "--num-layers", "4",   "--hidden-size", "512", "--num-attention-heads",       "8",
        "--seq-length", "128", "--num-experts", "8",   "--moe-token-dispatcher-type", "flex"};
    args.insert(args.end(), backend.begin(), backend.end());
    return plan_of(args).config.moe_flex_backend;
  };
  CHECK(flex_backend({}) == FlexBackend::DeepEP);
  CHECK(flex_backend({"--moe-flex-dispatcher-backend", "hybridep"}) == FlexBackend::HybridEP);
  CHECK_THROWS_WITH_AS(flex_backend({"--moe-flex-dispatcher-backend", "ncclep"}),
                       doctest::Contains("moe-flex-dispatcher-backend"), Error);
  CHECK(plan_of({"--bf16", "--grad-reduce-in-bf16"}).config.grad_reduce_in_bf16);
  // --attention-backend: Transformer Engine's cuDNN attention, the FlashAttention-2 package, or unfused.
  CHECK(plan_of({"--attention-backend", "fused"}).config.flash_attention);
  CHECK(plan_of({"--attention-backend", "fused"}).config.attention_kernel == trace::AttentionKernel::Fused);
  CHECK(plan_of({"--attention-backend", "flash"}).config.attention_kernel ==
        trace::AttentionKernel::FlashAttention2);
  CHECK_FALSE(plan_of({"--attention-backend", "local"}).config.flash_attention);
  CHECK_FALSE(plan_of({"--attention-backend", "unfused"}).config.flash_attention);
  CHECK(plan_of({"--attention-backend", "auto"}).config.flash_attention);
  CHECK_THROWS_WITH_AS(plan_of({"--attention-backend", "sdpa"}), doctest::Contains("--attention-backend"),
                       Error);
  // --train-samples: the samples over the global batch are the job's steps.
  CHECK(plan_of({"--global-batch-size", "128", "--train-samples", "1000"}).train_iters == 7);
  CHECK_THROWS_WITH_AS(
      plan_of({"--global-batch-size", "128", "--train-samples", "1000", "--train-iters", "5"}),
      doctest::Contains("--train-samples and --train-iters: give one of them"), Error);
  // Sequence parallelism without tensor parallelism is turned off, as Megatron-LM does.
  CHECK_FALSE(plan_of({"--sequence-parallel"}).config.sp);
  CHECK_FALSE(plan_of({"--bf16"}).config.grad_reduce_in_bf16);
}

}  // namespace simtrain::workload
