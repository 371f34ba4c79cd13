// Specification of the model families of issue 16 (llm_models.cc, decoder_model.cc, attention_shape.h,
// transformer_parameters.cc): DeepSeek-V3 and Kimi K2 (multi-latent attention, fine-grained MoE with a shared
// expert and dense first layers, multi-token prediction), Qwen3 MoE (an explicit head size) and GPT-OSS
// (sliding-window attention on alternate layers): parameter counts against the published totals and active
// counts, FLOPs against closed forms, and the Megatron kernels against the model's FLOPs.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <map>

#include "simulator/workload/attention_shape.h"
#include "simulator/workload/attention_work.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/transformer_kernels.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// Published totals are quoted to 3-4 significant digits ("671 B", "30.5 B", "1.04 T"); active counts to 2-3
// ("37 B", "3.3 B", "32 B"): 2% covers the rounding and what the models leave out here (QK-norms, attention
// sinks, router biases: under 10^-5 of any total).
constexpr double kPublishedTolerance = 0.02;
// FLOPs closed forms leave out the norms (GEMM-free); they are under 10^-4 of a model's weights.
constexpr double kNormTolerance = 1e-4;

std::map<std::string, double> parameters_by_layer(const Model& model) {
  std::map<std::string, double> out;
  for (const Layer& layer : model.layers) out[layer.name] = layer.parameters;
  return out;
}

// The flash-attention score work of one forward pass over `seq` tokens, as the model's FLOPs count it.
double attention_flops(const TransformerConfig& t, double seq) {
  double total = 0;
  for (int i = 0; i < t.layers; ++i)
    total += 2 * seq * t.heads * attended_keys(t, i, seq) * (qk_head_dim(t) + v_head_dim(t));
  return total;
}

double gemm_flops(const std::vector<LayerStep>& steps) {
  double total = 0;
  for (const LayerStep& s : steps)
    if (s.type == LayerStep::Type::Kernel && s.kernel.kind == trace::ComputeKind::Gemm)
      total += s.kernel.flops;
  return total;
}

double attention_kernel_flops(const std::vector<LayerStep>& steps) {
  double total = 0;
  for (const LayerStep& s : steps)
    if (s.type != LayerStep::Type::Collective && s.kernel.kind == trace::ComputeKind::Attention)
      total += s.kernel.flops;
  return total;
}

}  // namespace

TEST_CASE("DeepSeek-V3 has 671 B parameters, 37 B active, and a 11.6 B multi-token-prediction module") {
  // DeepSeek-AI 2024 (DeepSeek-V3 technical report): 671 B total, 37 B activated per token; the Hugging Face
  // checkpoint's 685 B adds the MTP module (14 B with its own copies of the embedding and head, which
  // Megatron shares with the main model: 11.6 B without them).
  const Model model = build_model("deepseek-v3");
  const TransformerConfig& t = *model.transformer;
  const auto p = parameters_by_layer(model);
  double mtp = 0;
  for (const auto& [name, count] : p)
    if (name.starts_with("mtp.")) mtp += count;
  CHECK(model.parameters() - mtp == simtrain::testing::Approx(671e9).epsilon(kPublishedTolerance));
  CHECK(mtp == simtrain::testing::Approx(11.61e9).epsilon(0.001));
  const double idle_mtp_experts = (256 - 8) * 3 * 7168.0 * 2048;
  CHECK(model.active_parameters() - (mtp - idle_mtp_experts) ==
        simtrain::testing::Approx(37e9).epsilon(kPublishedTolerance));
  // Multi-latent attention's projections, layer 0 (Megatron-Core's names).
  CHECK(p.at("decoder.layers.0.self_attention.linear_q_down_proj") == 7168.0 * 1536);
  CHECK(p.at("decoder.layers.0.self_attention.linear_q_up_proj") == 1536.0 * 128 * (128 + 64));
  CHECK(p.at("decoder.layers.0.self_attention.linear_kv_down_proj") == 7168.0 * (512 + 64));
  CHECK(p.at("decoder.layers.0.self_attention.linear_kv_up_proj") == 512.0 * 128 * (128 + 128));
  CHECK(p.at("decoder.layers.0.self_attention.linear_proj") == 128.0 * 128 * 7168);
  // Dense first three layers, then 256 routed experts and one shared expert.
  CHECK(p.at("decoder.layers.2.mlp.linear_fc1") == 7168.0 * 2 * 18432);
  CHECK(p.count("decoder.layers.2.mlp.router") == 0);
  CHECK(p.at("decoder.layers.3.mlp.router") == 7168.0 * 256);
  CHECK(p.at("decoder.layers.3.mlp.shared_experts.linear_fc1") == 7168.0 * 2 * 2048);
  CHECK(p.at("mtp.layers.0.eh_proj") == 2 * 7168.0 * 7168);
  CHECK(t.mtp_layers == 1);
  CHECK(qk_head_dim(t) == 192);
  CHECK(v_head_dim(t) == 128);
}

TEST_CASE("DeepSeek-V3's FLOPs: 2 per active weight and token, the attention square over 192 + 128 dims") {
  const Model model = build_model("deepseek-v3");
  const TransformerConfig& t = *model.transformer;
  const double s = 4096, embedding = 129280.0 * 7168;
  // The MTP module runs its own LM head GEMM over the shared (not re-counted) output weights, and its
  // layer's attention.
  const double mtp_head = 7168.0 * 129280;
  const double attention = attention_flops(t, s) * (t.layers + 1) / t.layers;
  CHECK(model.forward_flops_per_sample() ==
        simtrain::testing::Approx(2 * s * (model.active_parameters() - embedding + mtp_head) + attention)
            .epsilon(kNormTolerance));
  // Megatron's per-token count (the MFU numerator) agrees with the zoo's layer list.
  CHECK(forward_flops_per_token(t, 4096) * s ==
        simtrain::testing::Approx(model.forward_flops_per_sample()).epsilon(kNormTolerance));
}

TEST_CASE("Kimi K2 is DeepSeek-V3 with 64 heads, 384 experts, one dense layer: 1.04 T, 32 B active") {
  // Moonshot AI (Kimi K2 model card): 1.04 T total parameters, 32 B activated (32.6 B in the report).
  const Model model = build_model("kimi-k2");
  CHECK(model.parameters() == simtrain::testing::Approx(1.04e12).epsilon(kPublishedTolerance));
  CHECK(model.active_parameters() == simtrain::testing::Approx(32.6e9).epsilon(kPublishedTolerance));
  const TransformerConfig& t = *model.transformer;
  CHECK(t.heads == 64);
  CHECK(t.experts == 384);
  CHECK(t.first_moe_layer == 1);
  CHECK(t.mtp_layers == 0);
  const double s = 4096, embedding = 163840.0 * 7168;
  CHECK(model.forward_flops_per_sample() ==
        simtrain::testing::Approx(2 * s * (model.active_parameters() - embedding) + attention_flops(t, s))
            .epsilon(kNormTolerance));
}

TEST_CASE(
    "Qwen3 MoE: heads x head_dim (4,096) differs from hidden (2,048); 30.5 B / 3.3 B and 235 B / 22 B") {
  // Qwen team 2025 (Qwen3 technical report, Table 2 and the model cards): Qwen3-30B-A3B 30.5 B total,
  // 3.3 B activated; Qwen3-235B-A22B 235 B total, 22 B activated.
  const Model small = build_model("qwen3-30b-a3b");
  CHECK(small.parameters() == simtrain::testing::Approx(30.5e9).epsilon(kPublishedTolerance));
  CHECK(small.active_parameters() == simtrain::testing::Approx(3.3e9).epsilon(kPublishedTolerance));
  const auto p = parameters_by_layer(small);
  // q: 32 heads of 128, k and v: 4 heads of 128, from hidden 2,048; the output projection back to 2,048.
  CHECK(p.at("decoder.layers.0.self_attention.linear_qkv") == 2048.0 * (32 + 2 * 4) * 128);
  CHECK(p.at("decoder.layers.0.self_attention.linear_proj") == 32.0 * 128 * 2048);
  const double s = 4096;
  const TransformerConfig& t = *small.transformer;
  CHECK(small.forward_flops_per_sample() ==
        simtrain::testing::Approx(2 * s * (small.active_parameters() - 151936.0 * 2048) +
                                  48 * 4 * s * s * 32 * 128)
            .epsilon(kNormTolerance));
  CHECK(forward_flops_per_token(t, 4096) * s ==
        simtrain::testing::Approx(small.forward_flops_per_sample()).epsilon(kNormTolerance));

  const Model large = build_model("qwen3-235b-a22b");
  CHECK(large.parameters() == simtrain::testing::Approx(235e9).epsilon(kPublishedTolerance));
  CHECK(large.active_parameters() == simtrain::testing::Approx(22e9).epsilon(kPublishedTolerance));
}

TEST_CASE("GPT-OSS-120B: 116.8 B parameters, 5.1 B active; half its layers attend to 128 keys") {
  // OpenAI 2025 (gpt-oss model card, Table 1): 116.83 B total; 5.13 B active per token, a count that leaves
  // out the embedding table (0.58 B) but keeps the unembedding.
  const Model model = build_model("gpt-oss-120b");
  const TransformerConfig& t = *model.transformer;
  const double embedding = 201088.0 * 2880;
  CHECK(model.parameters() == simtrain::testing::Approx(116.83e9).epsilon(0.001));
  CHECK(model.active_parameters() - embedding ==
        simtrain::testing::Approx(5.13e9).epsilon(kPublishedTolerance));
  // Layer 0 slides (Hugging Face's layer_types start with sliding_attention), layer 1 attends to all.
  CHECK(is_local_attention_layer(t, 0));
  CHECK_FALSE(is_local_attention_layer(t, 1));
  CHECK(is_local_attention_layer(t, 34));
  CHECK_FALSE(is_local_attention_layer(t, 35));
  const double s = 4096;
  const double attention = 18 * 2 * s * 64 * (128 + s) * (64 + 64);
  CHECK(attention_flops(t, s) == simtrain::testing::Approx(attention));
  // GPT-OSS also has biases (1.5 M active ones beside 0.2 M norm weights, 3.3e-4 of its active weights),
  // which add no GEMM FLOPs.
  CHECK(model.forward_flops_per_sample() ==
        simtrain::testing::Approx(2 * s * (model.active_parameters() - embedding) + attention).epsilon(5e-4));
  CHECK(forward_flops_per_token(t, 4096) * s ==
        simtrain::testing::Approx(model.forward_flops_per_sample()).epsilon(kNormTolerance));
}

TEST_CASE("a sliding-window layer's attention kernel does the window's tiles, not the sequence's") {
  const TransformerConfig t = *build_model("gpt-oss-120b").transformer;
  LayerSharding shard;
  shard.seq_len = 4096;
  const double full = attention_kernel_flops(transformer_layer_steps(t, shard, true, false).forward);
  const double window = attention_kernel_flops(transformer_layer_steps(t, shard, true, true).forward);
  // 32 key tiles of 128; causal: 33/64 of them; a 128-key window: 2 tiles per query tile, 2/32.
  CHECK(flash_attention_tile_fraction(4096, true) == simtrain::testing::Approx(33.0 / 64));
  CHECK(sliding_window_tile_fraction(4096, 128) == simtrain::testing::Approx(2.0 / 32));
  CHECK(window / full == simtrain::testing::Approx((2.0 / 32) / (33.0 / 64)));
  // The window's query tiles each visit its 2 key tiles, the full layer's 16.5 of 32 on average.
  for (const LayerStep& s : transformer_layer_steps(t, shard, true, true).forward)
    if (s.type != LayerStep::Type::Collective && s.kernel.kind == trace::ComputeKind::Attention)
      CHECK(s.kernel.kv_tiles == simtrain::testing::Approx(2.0));
  for (const LayerStep& s : transformer_layer_steps(t, shard, true, false).forward)
    if (s.type != LayerStep::Type::Collective && s.kernel.kind == trace::ComputeKind::Attention)
      CHECK(s.kernel.kv_tiles == simtrain::testing::Approx(16.5));
}

TEST_CASE(
    "Megatron's kernels of a DeepSeek-V3 MoE layer carry the model's GEMM FLOPs (MLA, router, experts)") {
  const TransformerConfig t = *build_model("deepseek-v3").transformer;
  LayerSharding shard;
  shard.seq_len = 4096;
  const LayerSteps moe = transformer_layer_steps(t, shard, true);
  const double tokens = 4096;
  const double core = 2.0 * t.heads * tokens * (192 + 128);
  CHECK(gemm_flops(moe.forward) ==
        simtrain::testing::Approx(tokens * (layer_forward_flops_per_token(t, 3, 4096) - core)));
  CHECK(attention_kernel_flops(moe.forward) ==
        simtrain::testing::Approx(tokens * core * flash_attention_tile_fraction(4096, true)));
  // Under TP 8 the up-projections and the output projection split by heads; the down-projections do not.
  shard.tp = 8;
  const LayerSteps split = transformer_layer_steps(t, shard, false);
  for (const LayerStep& step : split.forward) {
    if (step.name == "q_down_proj.fwd") CHECK(step.kernel.flops == 2 * tokens * 7168 * 1536);
    if (step.name == "q_up_proj.fwd") CHECK(step.kernel.flops == 2 * tokens * 1536 * 16 * 192);
  }
  // Parameters: the duplicated down-projections and latent norms stay whole on every TP rank.
  const PartParameters p = transformer_layer_parameters(t, shard, false);
  const double replicated = 7168.0 * 1536 + 7168.0 * 576 + 1536 + 512 + 2 * 7168;
  CHECK(p.per_gpu == simtrain::testing::Approx(replicated + (p.total - replicated) / 8));
}

TEST_CASE("the MTP module rides on the LM head: its layer, projection, head GEMM and loss") {
  const TransformerConfig t = *build_model("deepseek-v3").transformer;
  LayerSharding shard;
  shard.seq_len = 4096;
  const LayerSteps mtp = mtp_steps(t, shard);
  const double tokens = 4096;
  const double expected = tokens * (2 * 2 * 7168.0 * 7168 + 2 * 7168.0 * 129280 +
                                    layer_forward_flops_per_token(t, 60, 4096) - 2.0 * 128 * tokens * 320);
  CHECK(gemm_flops(mtp.forward) == simtrain::testing::Approx(expected));
  CHECK(mtp.backward.front().name.starts_with("mtp0."));
  const PartParameters p = mtp_parameters(t, shard);
  CHECK(p.total == simtrain::testing::Approx(11.61e9).epsilon(0.001));
}

TEST_CASE("Nemotron-H-8B: 24 Mamba-2, 4 attention and 24 MLP blocks, 8.1 B parameters") {
  // NVIDIA 2025 (Nemotron-H): "8B"; the Hugging Face checkpoint nvidia/Nemotron-H-8B-Base-8K holds
  // 8,100,852,736 parameters by a third-party count of its tensors (within 1.2e-5 of ours, which also counts
  // the 24 Mamba blocks' input norms).
  const Model model = build_model("nemotron-h-8b");
  const TransformerConfig& t = *model.transformer;
  CHECK(model.parameters() == simtrain::testing::Approx(8.1009e9).epsilon(1e-4));
  const auto p = parameters_by_layer(model);
  // in_proj to z and x (2 x 8,192), B and C (2 x 8 groups x 128) and dt (128 heads).
  CHECK(p.at("decoder.layers.0.mixer.in_proj") == 4096.0 * (2 * 8192 + 2 * 8 * 128 + 128));
  CHECK(p.at("decoder.layers.0.mixer.out_proj") == 8192.0 * 4096);
  CHECK(p.at("decoder.layers.1.mlp.linear_fc1") == 4096.0 * 21504);
  CHECK(p.at("decoder.layers.7.self_attention.linear_qkv") == 4096.0 * (32 + 2 * 8) * 128);
  CHECK(hybrid_block(t, 0) == 'M');
  CHECK(hybrid_block(t, 7) == '*');
  CHECK_FALSE(is_moe_layer(t, 1));
  // The model's FLOPs per token (Megatron's count) agree with the zoo's layer list.
  CHECK(forward_flops_per_token(t, 8192) * 8192 ==
        simtrain::testing::Approx(model.forward_flops_per_sample()).epsilon(kNormTolerance));
}

TEST_CASE("a Mamba-2 block's Megatron kernels: GEMMs split over TP, the scan by heads, parameters likewise") {
  const TransformerConfig t = *build_model("nemotron-h-8b").transformer;
  LayerSharding shard;
  shard.seq_len = 8192;
  shard.tp = 2;
  const LayerSteps mamba = hybrid_layer_steps(t, shard, 'M');
  const double tokens = 8192, gemm_weights = 4096.0 * (2 * 8192 + 2 * 8 * 128 + 128) + 8192.0 * 4096;
  CHECK(gemm_flops(mamba.forward) == simtrain::testing::Approx(tokens * 2 * gemm_weights / 2));
  // The scan's tensor-core kernels: per token and local head Q P (the causal half of each 128-token chunk's
  // square) + 4 N P and the gate's 5 P, per local group 2 Q N.
  CHECK(attention_kernel_flops(mamba.forward) ==
        simtrain::testing::Approx(tokens * (64 * (128 * 64 + 4 * 128 * 64 + 5 * 64) + 4 * 2 * 128 * 128)));
  // One sequence per micro-batch needs no (sequence, batch) -> (batch, sequence) copies; two do.
  const auto copies = [&](int micro_batch) {
    shard.micro_batch = micro_batch;
    int n = 0;
    for (const LayerStep& step : hybrid_layer_steps(t, shard, 'M').forward)
      n += step.name.find(".transpose") != std::string::npos;
    return n;
  };
  CHECK(copies(1) == 0);
  CHECK(copies(2) == 2);
  shard.micro_batch = 1;
  const PartParameters p = hybrid_layer_parameters(t, shard, 'M');
  CHECK(p.per_gpu == simtrain::testing::Approx((p.total - 4096) / 2 + 4096));
  // An MLP block is a layer's MLP half: its GEMMs and nothing of attention.
  CHECK(gemm_flops(hybrid_layer_steps(t, shard, '-').forward) ==
        simtrain::testing::Approx(tokens * 2 * 2 * 4096 * 21504 / 2));
  CHECK(attention_kernel_flops(hybrid_layer_steps(t, shard, '-').forward) == 0);
}

TEST_CASE("Nemotron 3 Nano: 31.6 B parameters, 3.2 B active; 23 Mamba, 6 attention and 23 MoE blocks") {
  // NVIDIA's Nemotron 3 Nano 30B-A3B model card: 31.6 B total, about 3.2 B active per token without the
  // embeddings (3.6 B with them).
  const Model model = build_model("nemotron-3-nano");
  const TransformerConfig& t = *model.transformer;
  const double embedding = 131072.0 * 2688;
  CHECK(model.parameters() == simtrain::testing::Approx(31.6e9).epsilon(kPublishedTolerance));
  CHECK(model.active_parameters() - embedding ==
        simtrain::testing::Approx(3.2e9).epsilon(0.05));  // "about 3.2 B": two digits
  std::map<char, int> blocks;
  for (int i = 0; i < t.layers; ++i) ++blocks[hybrid_block(t, i)];
  CHECK(blocks['M'] == 23);
  CHECK(blocks['*'] == 6);
  CHECK(blocks['E'] == 23);
}

TEST_CASE("Nemotron 3.5 Lightning: Nano with two MTP depths of one module, its weights held once") {
  const Model nano = build_model("nemotron-3-nano");
  const Model lightning = build_model("nemotron-3.5-lightning");
  const TransformerConfig& t = *lightning.transformer;
  CHECK(t.mtp_layers == 2);
  const auto p = parameters_by_layer(lightning);
  double depth[2] = {0, 0};
  for (const auto& [name, count] : p)
    for (int k = 0; k < 2; ++k)
      if (name.starts_with("mtp.layers." + std::to_string(k) + ".")) depth[k] += count;
  // The module (attention and MoE, "*E", with its norms and 2h -> h projection) counted at its first depth.
  CHECK(p.at("mtp.layers.0.eh_proj") == 2 * 2688.0 * 2688);
  CHECK(depth[1] == 0);
  CHECK(lightning.parameters() - nano.parameters() == simtrain::testing::Approx(depth[0]).epsilon(1e-12));
  const double idle_experts = (128 - 6) * 2 * 2688.0 * 1856;
  CHECK(lightning.active_parameters() - nano.active_parameters() ==
        simtrain::testing::Approx(depth[0] - idle_experts).epsilon(1e-12));
  // The Megatron path's parameters agree: one module, however many depths.
  TransformerConfig once = t;
  once.mtp_layers = 1;
  once.mtp_repeated_layer = false;
  const LayerSharding shard;
  CHECK(mtp_parameters(t, shard).total == simtrain::testing::Approx(mtp_parameters(once, shard).total));
  CHECK(mtp_parameters(t, shard).total == simtrain::testing::Approx(depth[0]).epsilon(1e-9));
  // Each depth runs the module and the LM head: twice one depth's FLOPs, and Megatron's count agrees.
  const double s = 8192;
  CHECK(forward_flops_per_token(t, 8192) - forward_flops_per_token(*nano.transformer, 8192) ==
        simtrain::testing::Approx(
            2 * (forward_flops_per_token(once, 8192) - forward_flops_per_token(*nano.transformer, 8192))));
  CHECK(forward_flops_per_token(t, 8192) * s ==
        simtrain::testing::Approx(lightning.forward_flops_per_sample()).epsilon(kNormTolerance));
}

TEST_CASE("Nemotron 3 Super: 120 B parameters, 12 B active; its latent MoE dispatches 1,024-wide rows") {
  // Megatron-Bridge's Nemotron 3 Super page: 120 B parameters in total, 12 B active; both without the MTP
  // module, the active ones without the embedding and the output layer.
  const Model model = build_model("nemotron-3-super");
  const TransformerConfig& t = *model.transformer;
  double mtp = 0;
  for (const auto& [name, count] : parameters_by_layer(model))
    if (name.starts_with("mtp.")) mtp += count;
  const double tables = 2 * 131072.0 * 4096, idle_mtp_experts = (512 - 22) * 2 * 1024.0 * 2688;
  CHECK(model.parameters() - mtp == simtrain::testing::Approx(120e9).epsilon(kPublishedTolerance));
  CHECK(model.active_parameters() - tables - (mtp - idle_mtp_experts) ==
        simtrain::testing::Approx(12e9).epsilon(0.05));  // "12 B": two digits

  // One MoE block on one GPU (EP 1): the router and the shared expert on the full hidden state, the two
  // latent projections, and the 22 routed experts latent-wide.
  LayerSharding shard;
  shard.seq_len = 8192;
  const double tokens = 8192;
  const double expected =
      2 * 4096.0 * 512 + 2 * 2 * 4096.0 * 5376 + 2 * 2 * 4096.0 * 1024 + 22 * 2 * 2 * 1024.0 * 2688;
  CHECK(gemm_flops(hybrid_layer_steps(t, shard, 'E').forward) ==
        simtrain::testing::Approx(tokens * expected));
  CHECK(layer_forward_flops_per_token(t, 1, 8192) == simtrain::testing::Approx(expected));
  // Under EP 8 the all-to-alls carry latent rows: 22 copies of each token, 1,024 wide, in bf16.
  shard.ep = 8;
  double dispatched = 0;
  for (const LayerStep& s : hybrid_layer_steps(t, shard, 'E').forward)
    if (s.type == LayerStep::Type::Collective && s.name == "moe.dispatch_all_to_all") dispatched = s.bytes;
  CHECK(dispatched == simtrain::testing::Approx(tokens * 22 * 1024 * 2));
}

TEST_CASE("Llama 4 Scout and Maverick: 109 B and 400 B parameters, 17 B active; MoE on alternate layers") {
  // Meta's model cards: Scout 109 B total, Maverick 400 B; both 17 B active (embedding and head counted).
  const Model scout = build_model("llama4-scout"), maverick = build_model("llama4-maverick");
  CHECK(scout.parameters() == simtrain::testing::Approx(109e9).epsilon(kPublishedTolerance));
  CHECK(maverick.parameters() == simtrain::testing::Approx(400e9).epsilon(kPublishedTolerance));
  CHECK(scout.active_parameters() == simtrain::testing::Approx(17e9).epsilon(kPublishedTolerance));
  CHECK(maverick.active_parameters() == simtrain::testing::Approx(17e9).epsilon(kPublishedTolerance));
  // Maverick's MoE layers are 1, 3, 5, ... (interleave_moe_layer_step 2); every Scout layer is MoE.
  const TransformerConfig& m = *maverick.transformer;
  CHECK_FALSE(is_moe_layer(m, 0));
  CHECK(is_moe_layer(m, 1));
  CHECK(is_moe_layer(m, 47));
  CHECK(moe_layer_share(m) == 0.5);
  CHECK(moe_layer_share(*scout.transformer) == 1.0);
  // Every 4th layer (3, 7, ...) has no RoPE and attends globally; the others within 8,192-token chunks.
  CHECK(is_local_attention_layer(m, 0));
  CHECK(is_local_attention_layer(m, 2));
  CHECK_FALSE(is_local_attention_layer(m, 3));
  CHECK_FALSE(is_local_attention_layer(m, 47));
}

TEST_CASE("a chunked layer attends within its chunks: FLOPs and kernels of the chunks' squares") {
  const TransformerConfig t = *build_model("llama4-scout").transformer;
  // Within one chunk nothing changes; past it each query sees its own chunk, the last one what is left.
  CHECK(attended_keys(t, 0, 8192) == 8192);
  CHECK(attended_keys(t, 0, 16384) == 8192);
  CHECK(attended_keys(t, 0, 12288) == simtrain::testing::Approx((8192.0 * 8192 + 4096.0 * 4096) / 12288));
  CHECK(attended_keys(t, 3, 16384) == 16384);  // a global layer
  LayerSharding shard;
  shard.micro_batch = 2;
  shard.seq_len = 16384;
  const LayerSteps chunked = transformer_layer_steps(t, shard, true, true);
  const LayerSteps global = transformer_layer_steps(t, shard, true, false);
  // Two causal 8,192-token squares (65 of 128 tiles each) against one 16,384-token square (129 of 256).
  const double chunk_work = 2 * 8192.0 * 8192 * flash_attention_tile_fraction(8192, true);
  const double global_work = 16384.0 * 16384 * flash_attention_tile_fraction(16384, true);
  CHECK(flash_attention_tile_fraction(8192, true) == simtrain::testing::Approx(65.0 / 128));
  CHECK(attention_kernel_flops(chunked.forward) / attention_kernel_flops(global.forward) ==
        simtrain::testing::Approx(chunk_work / global_work));
  // The kernel runs the chunks as a batch: 2 sequences x 2 chunks of 8,192 tokens.
  for (const LayerStep& s : chunked.forward)
    if (s.type != LayerStep::Type::Collective && s.kernel.kind == trace::ComputeKind::Attention)
      CHECK(s.kernel.shape == std::vector<std::int64_t>{4, 40, 8192, 128});
  // At the chunk's length the two layers are the same.
  shard.seq_len = 8192;
  CHECK(attention_kernel_flops(transformer_layer_steps(t, shard, true, true).forward) ==
        attention_kernel_flops(transformer_layer_steps(t, shard, true, false).forward));
  // The model's own layer list agrees with Megatron's kernels on the whole forward pass.
  const Model model = build_model("llama4-scout", {.seq_len = 16384});
  CHECK(forward_flops_per_token(t, 16384) * 16384 ==
        simtrain::testing::Approx(model.forward_flops_per_sample()).epsilon(kNormTolerance));
}
