// The generic decoder-only language model, laid out from a TransformerConfig: multi-head or grouped-query
// attention, plain or gated MLPs, dense or mixture-of-experts layers, named as Megatron-Core's GPTModel names
// its modules (these are the models people train with Megatron-style parallelism).
#include <string>

#include "common/error.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {
namespace {

Layer norm(const TransformerConfig& t, const std::string& name, std::int64_t tokens) {
  return t.rms_norm ? rmsnorm(name, tokens, t.hidden) : layernorm(name, tokens, t.hidden);
}

// fc1 -> activation -> fc2 over `tokens` rows, `ffn` wide. A gated MLP fuses gate and up projections into
// one fc1 of twice the width, as Megatron-Core does (same parameters, FLOPs and saved input as two GEMMs).
// `copies` > 1 lays out that many experts as one layer: the kernels carry the FLOPs of the rows actually
// routed (`tokens`), the parameters every expert's.
void mlp(std::vector<Layer>& layers, const TransformerConfig& t, const std::string& prefix,
         std::int64_t tokens, std::int64_t ffn, std::int64_t copies) {
  const std::int64_t fc1_width = t.gated_mlp ? 2 * ffn : ffn;
  Layer fc1 = linear(prefix + "linear_fc1", tokens, t.hidden, fc1_width, t.bias);
  Layer fc2 = linear(prefix + "linear_fc2", tokens, ffn, t.hidden, t.bias);
  fc1.parameters *= static_cast<double>(copies);
  fc2.parameters *= static_cast<double>(copies);
  layers.push_back(std::move(fc1));
  layers.push_back(t.gated_mlp ? swiglu(prefix + "activation_func", tokens, ffn)
                               : activation(prefix + "activation_func", "gelu", tokens * ffn));
  layers.push_back(std::move(fc2));
}

// A mixture-of-experts MLP: the router scores every expert per token, each token runs through its top-k
// routed experts (k times the rows of a dense MLP) and through every shared expert (as DeepSeekMoE does,
// one MLP `shared_experts` times as wide), and the outputs are summed with their routing weights.
void moe_mlp(std::vector<Layer>& layers, const TransformerConfig& t, const std::string& prefix,
             std::int64_t s) {
  layers.push_back(linear(prefix + "router", s, t.hidden, t.experts, false));
  mlp(layers, t, prefix + "experts.", s * t.experts_per_token, t.moe_ffn_hidden, t.experts);
  if (t.shared_experts > 0) {
    mlp(layers, t, prefix + "shared_experts.", s, std::int64_t{t.shared_experts} * t.moe_ffn_hidden, 1);
  }
  const std::int64_t outputs = t.experts_per_token + (t.shared_experts > 0 ? 1 : 0);
  layers.push_back(add(prefix + "combine", s * t.hidden, outputs, false));
}

}  // namespace

Model decoder(const DecoderSpec& spec) {
  const TransformerConfig& t = spec.config;
  // The zoo's tables and the TOML reader validate shapes field by field; this guards the builder itself.
  const bool moe_ok = t.experts == 0 ||
                      (t.experts_per_token > 0 && t.experts_per_token <= t.experts && t.moe_ffn_hidden > 0 &&
                       t.shared_experts >= 0 && t.first_moe_layer >= 0 && t.first_moe_layer < t.layers);
  const bool has_dense_layer = t.experts == 0 || t.first_moe_layer > 0;
  if (t.layers <= 0 || t.hidden <= 0 || t.heads <= 0 || t.kv_heads <= 0 || t.vocab <= 0 ||
      spec.seq_len <= 0 || t.hidden % t.heads != 0 || t.heads % t.kv_heads != 0 || !moe_ok ||
      (has_dense_layer && t.ffn_hidden <= 0)) {
    throw Error("model " + spec.name + ": inconsistent transformer shape");
  }
  const std::int64_t s = spec.seq_len, h = t.hidden, heads = t.heads, kv_heads = t.kv_heads;
  const std::int64_t head_dim = h / heads;
  Model model;
  model.name = spec.name;
  model.description = spec.description;
  model.sample_unit = "sequence";
  model.seq_len = spec.seq_len;
  model.transformer = t;
  auto& layers = model.layers;
  layers.push_back(embedding("embedding.word_embeddings", s, t.vocab, h));
  if (spec.learned_positions > 0) {
    layers.push_back(embedding("embedding.position_embeddings", s, spec.learned_positions, h));
    layers.push_back(add("embedding.add", s * h, 2, false));
  }
  if (spec.dropout) layers.push_back(dropout("embedding.dropout", s * h));
  for (int i = 0; i < t.layers; ++i) {
    const std::string prefix = "decoder.layers." + std::to_string(i) + ".";
    layers.push_back(norm(t, prefix + "input_layernorm", s));
    layers.push_back(
        linear(prefix + "self_attention.linear_qkv", s, h, (heads + 2 * kv_heads) * head_dim, t.bias));
    if (spec.learned_positions == 0) {
      layers.push_back(rope(prefix + "self_attention.rotary", s, (heads + kv_heads) * head_dim));
    }
    layers.push_back(
        attention(prefix + "self_attention.core_attention", s, t.heads, head_dim, t.causal, t.kv_heads));
    // Attention saved its output for backward: the projection's input costs nothing more.
    layers.push_back(input_already_saved(linear(prefix + "self_attention.linear_proj", s, h, h, t.bias)));
    if (spec.dropout) layers.push_back(dropout(prefix + "self_attention.dropout", s * h));
    layers.push_back(add(prefix + "self_attention.residual_add", s * h, 2, true));
    layers.push_back(norm(t, prefix + "pre_mlp_layernorm", s));
    if (t.experts > 0 && i >= t.first_moe_layer) {
      moe_mlp(layers, t, prefix + "mlp.", s);
    } else {
      mlp(layers, t, prefix + "mlp.", s, t.ffn_hidden, 1);
    }
    if (spec.dropout) layers.push_back(dropout(prefix + "mlp.dropout", s * h));
    layers.push_back(add(prefix + "mlp.residual_add", s * h, 2, true));
  }
  layers.push_back(norm(t, "decoder.final_layernorm", s));
  layers.push_back(linear("output_layer", s, h, t.vocab, false, t.tied_embeddings));
  layers.push_back(cross_entropy("loss", s, t.vocab));
  return model;
}

}  // namespace simtrain::workload::zoo
