// Specification of what one transformer layer saves for backward (layer_activations.h): Korthikanti et al.'s
// closed forms at GPT-3's shapes, what each recomputed submodule takes out, and the tensors other shapes
// save (grouped-query attention, gated MLPs, routed experts, multi-latent attention, Mamba-2, quantized
// GEMM inputs).
#include <doctest/doctest.h>

#include "simulator/workload/layer_activations.h"
#include "simulator/workload/model_zoo.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// GPT-3 175B from the zoo: h 12288, 96 heads, a 4h GELU MLP, dropout.
TransformerConfig gpt3() { return *build_model("gpt3-175b").transformer; }

LayerActivationOptions options(int tp, bool sp, Recompute recompute, RecomputeModules modules = 0) {
  return {.tp = tp, .sp = sp, .recompute = recompute, .modules = modules};
}

// GPT-3's shapes with every layer a MoE of `experts` GPT-shaped experts, top-1, and `shared` shared ones.
TransformerConfig gpt3_moe(int shared = 0) {
  TransformerConfig m = gpt3();
  m.experts = 8;
  m.experts_per_token = 1;
  m.moe_ffn_hidden = 4 * m.hidden;
  m.shared_experts = shared;
  return m;
}

}  // namespace

TEST_CASE("Korthikanti et al. Table 2 at GPT-3 175B (s 2048, h 12288, a 96, b 1, t 8)") {
  const double sbh = 2048.0 * 12288;  // 5as/h = 5 * 96 * 2048 / 12288 = 80
  const auto bytes = [](int tp, bool sp, Recompute r) {
    return activation_bytes_per_layer(gpt3(), 2048, 1, options(tp, sp, r, kRecomputeCoreAttention));
  };
  // Hand-computed from the formulas; every value is an exact multiple of sbh/4, so equality is exact.
  CHECK(bytes(1, false, Recompute::None) == sbh * 114);        // 34 + 80
  CHECK(bytes(8, false, Recompute::None) == sbh * 23);         // 10 + 24/8 + 80/8
  CHECK(bytes(8, true, Recompute::None) == sbh * 14.25);       // (34 + 80) / 8
  CHECK(bytes(8, false, Recompute::Selective) == sbh * 13);    // 10 + 24/8
  CHECK(bytes(8, true, Recompute::Selective) == sbh * 4.25);   // 34 / 8
  CHECK(bytes(8, false, Recompute::Full) == sbh * 2);          // the layer input
  CHECK(bytes(8, true, Recompute::Full) == sbh * 2 / 8);       // sharded by SP
  CHECK(bytes(8, true, Recompute::Selective) == 106'954'752);  // bytes per layer
  CHECK(bytes(8, false, Recompute::None) == 578'813'952);
  // The paper's headline (abstract): sequence parallelism with selective recomputation cuts activation
  // memory about 5x against tensor parallelism alone; here 23 / 4.25 = 5.4.
  CHECK(bytes(8, false, Recompute::None) / bytes(8, true, Recompute::Selective) ==
        doctest::Approx(5.41).epsilon(0.01));
}

TEST_CASE("each recomputed module takes its own tensors out") {
  // s 2048, h 12288, b 1: every term is an exact multiple of s*b*h / 8, so equality is exact.
  const double sbh = 2048.0 * 12288;
  const auto bytes = [](const TransformerConfig& m, bool sp, RecomputeModules modules) {
    return activation_bytes_per_layer(m, 2048, 1, options(8, sp, Recompute::Selective, modules));
  };
  const TransformerConfig dense = gpt3();
  // The norms' outputs (the QKV and fc1 inputs): 4 replicated (split under SP).
  CHECK(bytes(dense, false, kRecomputeCoreAttention | kRecomputeLayerNorm) == sbh * 9);
  CHECK(bytes(dense, true, kRecomputeCoreAttention | kRecomputeLayerNorm) == sbh * 30 / 8);
  // A dense MLP but its input: its mask (1) and 16/t of the 19.
  CHECK(bytes(dense, false, kRecomputeCoreAttention | kRecomputeMlp) == sbh * 10);
  CHECK(bytes(dense, true, kRecomputeCoreAttention | kRecomputeMlp) == sbh * 17 / 8);
  // Without core_attn the scores stay (unfused attention): 5as/h = 80, over t.
  CHECK(bytes(dense, false, kRecomputeLayerNorm) == sbh * 19);
  // A top-1 MoE layer of GPT-shaped experts keeps the router's input (2, replicated, in place of the fc1
  // input) and per routed copy the fc1 input and the GELU's input and output (18/t): 10 + 26/t.
  const TransformerConfig moe = gpt3_moe();
  CHECK(bytes(moe, false, kRecomputeCoreAttention) == sbh * 13.25);
  CHECK(bytes(moe, false, kRecomputeCoreAttention | kRecomputeMlp) == sbh * 13.25);  // mlp: dense layers only
  // moe: all but the layer's input and the router's (the mask and the 18/t of the routed copy).
  CHECK(bytes(moe, false, kRecomputeCoreAttention | kRecomputeMoe) == sbh * 10);
  // moe_act: the activation's output, the second GEMM's input (8/t).
  CHECK(bytes(moe, false, kRecomputeCoreAttention | kRecomputeMoeActivation) == sbh * 12.25);
  CHECK(bytes(moe, false, kRecomputeCoreAttention | kRecomputeMoe | kRecomputeMoeActivation) == sbh * 10);
  // A shared expert saves the dense MLP's 16/t; shared_experts drops it.
  const TransformerConfig shared = gpt3_moe(1);
  CHECK(bytes(shared, false, kRecomputeCoreAttention) == sbh * 15.25);
  CHECK(bytes(shared, false, kRecomputeCoreAttention | kRecomputeSharedExperts) == sbh * 13.25);
}

TEST_CASE("FP8 recipes save the GEMMs' inputs in one byte (and a scale per block)") {
  const double sbh = 2048.0 * 12288;
  LayerActivationOptions o = options(8, false, Recompute::Selective, kRecomputeCoreAttention);
  o.gemm_input_bytes = 1;
  // Replicated: norm inputs 2 + 2, GEMM inputs 1 + 1, masks 1 + 1. Split: Q, K, V 6, the output 2 and its
  // FP8 copy 1, the GELU's input 8 and output 4.
  CHECK(activation_bytes_per_layer(gpt3(), 2048, 1, o) == sbh * (8 + 21.0 / 8));
  ParallelConfig c;
  CHECK(gemm_input_bytes(c) == 2);
  c.fp8 = true;
  c.quant_recipe = QuantRecipe::Tensorwise;
  CHECK(gemm_input_bytes(c) == 1);
  c.quant_recipe = QuantRecipe::MXFP8;
  CHECK(gemm_input_bytes(c) == 1 + 1.0 / 32);
  c.quant_recipe = QuantRecipe::NVFP4;
  CHECK(gemm_input_bytes(c) == 0.5 + 1.0 / 16);
}

TEST_CASE("a Llama layer saves its grouped K and V and both halves of its SwiGLU, and no masks") {
  const TransformerConfig m = *build_model("llama2-70b").transformer;
  REQUIRE(m.kv_heads == 8);
  const double h = 8192, kv = 8 * 128, f = 28672;
  // Two norms' inputs and outputs 8h replicated; Q 2h, K and V 4 kv, the output 2h, gate and up 4f, the
  // product 2f split: all over t under SP, flash attention.
  const double per_token = (8 * h + 2 * h + 4 * kv + 2 * h + 4 * f + 2 * f) / 8;
  CHECK(activation_bytes_per_layer(m, 4096, 2,
                                   options(8, true, Recompute::Selective, kRecomputeCoreAttention)) ==
        doctest::Approx(per_token * 4096 * 2));
  CHECK(per_token == 34'304);
  // Korthikanti's GPT count would have given 34 h / t.
  CHECK(per_token < 34 * h / 8);
  // Under FP8 the four GEMM inputs (two replicated, the attention output's and the product's copies) are one
  // byte: 6h replicated; Q, K, V, the output 3h, and 5f split.
  LayerActivationOptions fp8 = options(8, true, Recompute::Selective, kRecomputeCoreAttention);
  fp8.gemm_input_bytes = 1;
  CHECK(activation_bytes_per_layer(m, 4096, 2, fp8) ==
        doctest::Approx((6 * h + 2 * h + 4 * kv + 3 * h + 5 * f) / 8 * 4096 * 2));
  CHECK((6 * h + 2 * h + 4 * kv + 3 * h + 5 * f) / 8 == 29'696);
}

TEST_CASE("torchtitan's op-level checkpointing keeps the layer's input and the outputs it saves") {
  // Llama-3 8B: h 4096, 32 heads of 128, 8 KV heads, SwiGLU of 14,336. Saved: the input, q and v (the
  // first and third matmuls), the attention's output and its fp32 log-sum-exp per head, the gate and down
  // projections' outputs (the fifth and seventh); k, the output projection, up and every pointwise op rerun.
  const TransformerConfig m = *build_model("llama3-8b").transformer;
  const double h = 4096, kv = 8 * 128, f = 14336;
  const double per_token = 2 * (h + h + kv + h + f + h) + 4 * 32;
  CHECK(per_token == 63'616);
  const auto op_sac = [&](int tp) {
    return activation_bytes_per_layer(m, 8192, 1,
                                      options(tp, tp > 1, Recompute::Selective, kRecomputeTorchtitanOps));
  };
  CHECK(op_sac(1) == doctest::Approx(per_token * 8192));
  // Less than half of what the layer keeps without it.
  CHECK(op_sac(1) < 0.5 * activation_bytes_per_layer(
                              m, 8192, 1, options(1, false, Recompute::Selective, kRecomputeCoreAttention)));
  // Under TP with sequence parallelism all but the down projection's partial sums split over the ranks.
  CHECK(op_sac(8) == doctest::Approx(((per_token - 2 * h) / 8 + 2 * h) * 8192));
}

TEST_CASE("multi-latent attention keeps its latents; mla_up_proj drops the up-projected Q, K and V") {
  const TransformerConfig m = *build_model("deepseek-v3").transformer;
  REQUIRE(m.kv_lora_rank > 0);
  const auto per_token = [&](RecomputeModules modules) {
    return saved_activation_bytes_per_token(m, 0, 4096, options(1, false, Recompute::Selective, modules));
  };
  const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const double up = 2.0 * m.heads * (qk + qk + m.v_head_dim);
  CHECK(per_token(kRecomputeCoreAttention) - per_token(kRecomputeCoreAttention | kRecomputeMlaUpProjection) ==
        doctest::Approx(up));
}

TEST_CASE("a Mamba-2 layer keeps in_proj's output and the scan's output, not its chunk states") {
  const TransformerConfig m = *build_model("nemotron-h-8b").transformer;
  int mamba = -1;
  for (int i = 0; i < m.layers && mamba < 0; ++i)
    if (m.hybrid_pattern[static_cast<std::size_t>(i)] == 'M') mamba = i;
  REQUIRE(mamba >= 0);
  const double inner = static_cast<double>(m.mamba_heads) * m.mamba_head_dim;
  const double projected = 2 * inner + 2.0 * m.mamba_groups * m.mamba_state + m.mamba_heads;
  // Norm input and in_proj's input 4h, in_proj's output and the scan's output in 16 bits, out_proj's input.
  CHECK(saved_activation_bytes_per_token(m, mamba, 8192, options(1, false, Recompute::None)) ==
        doctest::Approx(4.0 * m.hidden + 2 * (projected + inner) + 2 * inner));
}
