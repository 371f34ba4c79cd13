// The generic decoder-only language model, laid out from a TransformerConfig: multi-head or grouped-query
// attention, plain or gated MLPs, dense or mixture-of-experts layers, named as Megatron-Core's GPTModel names
// its modules (these are the models people train with Megatron-style parallelism).
#include <algorithm>
#include <string>

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/transformer_kernels.h"
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
// `width` is the MLP's input and output width: the hidden size, or a latent MoE's latent size.
void mlp(std::vector<Layer>& layers, const TransformerConfig& t, const std::string& prefix,
         std::int64_t tokens, std::int64_t ffn, std::int64_t copies, std::int64_t width) {
  const std::int64_t fc1_width = t.gated_mlp ? 2 * ffn : ffn;
  Layer fc1 = linear(prefix + "linear_fc1", tokens, width, fc1_width, t.bias);
  Layer fc2 = linear(prefix + "linear_fc2", tokens, ffn, width, t.bias);
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
  const std::int64_t width = routed_expert_width(t);
  if (t.moe_latent > 0) layers.push_back(linear(prefix + "fc1_latent_proj", s, t.hidden, width, t.bias));
  mlp(layers, t, prefix + "experts.", s * t.experts_per_token, t.moe_ffn_hidden, t.experts, width);
  if (t.moe_latent > 0) layers.push_back(linear(prefix + "fc2_latent_proj", s, width, t.hidden, t.bias));
  if (t.shared_experts > 0) {
    mlp(layers, t, prefix + "shared_experts.", s, std::int64_t{t.shared_experts} * t.moe_ffn_hidden, 1,
        t.hidden);
  }
  const std::int64_t outputs = t.experts_per_token + (t.shared_experts > 0 ? 1 : 0);
  layers.push_back(add(prefix + "combine", s * t.hidden, outputs, false));
}

// Self-attention of layer `i`: projections, rotary embedding, the fused core and the output projection.
// Multi-latent attention (DeepSeek-V3) projects queries and keys/values through normalised latents and
// splits heads into a rotary and a position-free part; a sliding-window layer records its window.
void self_attention(std::vector<Layer>& layers, const TransformerConfig& t, const std::string& prefix,
                    std::int64_t s, int i, bool rotary) {
  const std::int64_t h = t.hidden, heads = t.heads;
  const auto qk = static_cast<std::int64_t>(qk_head_dim(t)), v = static_cast<std::int64_t>(v_head_dim(t));
  const auto kv = static_cast<std::int64_t>(kv_heads(t));
  const std::string a = prefix + "self_attention.";
  if (is_mla(t)) {
    if (t.q_lora_rank > 0) {
      layers.push_back(linear(a + "linear_q_down_proj", s, h, t.q_lora_rank, false));
      layers.push_back(rmsnorm(a + "q_layernorm", s, t.q_lora_rank));
      layers.push_back(linear(a + "linear_q_up_proj", s, t.q_lora_rank, heads * qk, false));
    } else {
      layers.push_back(linear(a + "linear_q_proj", s, h, heads * qk, false));
    }
    layers.push_back(input_already_saved(
        linear(a + "linear_kv_down_proj", s, h, std::int64_t{t.kv_lora_rank} + t.qk_rope_head_dim, false)));
    layers.push_back(rmsnorm(a + "kv_layernorm", s, t.kv_lora_rank));
    layers.push_back(linear(a + "linear_kv_up_proj", s, t.kv_lora_rank,
                            heads * (std::int64_t{t.qk_nope_head_dim} + v), false));
    layers.push_back(rope(a + "rotary", s, (heads + 1) * std::int64_t{t.qk_rope_head_dim}));
  } else {
    layers.push_back(linear(a + "linear_qkv", s, h, (heads + 2 * kv) * qk, t.bias));
    if (rotary) layers.push_back(rope(a + "rotary", s, (heads + kv) * qk));
  }
  Layer core = attention(a + "core_attention", s, heads, qk, t.causal, kv);
  // dims {seq, heads, head_dim, causal, kv_heads, v_head_dim, window, chunk}: layer_types.cc,
  // layer_kernels.cc.
  const bool local = is_local_attention_layer(t, i);
  core.dims.push_back(v);
  core.dims.push_back(local ? t.window_size : 0);
  core.dims.push_back(local ? t.attention_chunk : 0);
  if (v != qk) {
    // Q, K, V and O with values and outputs v wide, and the log-sum-exp.
    core.saved_activation_elements_per_sample =
        static_cast<double>(s) * (heads * qk + kv * qk + kv * v + heads * v + heads);
  }
  layers.push_back(std::move(core));
  // Attention saved its output for backward: the projection's input costs nothing more.
  layers.push_back(input_already_saved(linear(a + "linear_proj", s, heads * v, h, t.bias)));
}

// The Mamba-2 mixer of a hybrid layer (Megatron-Core's MambaMixer names): in_proj to z, x, B, C and dt;
// the conv1d, SSD scan and gated norm as one layer holding their parameters; out_proj.
void mamba_mixer(std::vector<Layer>& layers, const TransformerConfig& t, const std::string& prefix,
                 std::int64_t s) {
  const std::int64_t inner = std::int64_t{t.mamba_heads} * t.mamba_head_dim;
  const std::int64_t bc = 2 * std::int64_t{t.mamba_groups} * t.mamba_state;
  layers.push_back(linear(prefix + "mixer.in_proj", s, t.hidden, 2 * inner + bc + t.mamba_heads, false));
  Layer ssm;
  ssm.name = prefix + "mixer.ssm";
  ssm.type = "mamba_ssm";
  ssm.dims = {s, t.mamba_heads, t.mamba_head_dim, t.mamba_state, t.mamba_groups, t.mamba_conv_kernel};
  ssm.parameters = static_cast<double>((inner + bc) * (t.mamba_conv_kernel + 1) + 3 * t.mamba_heads + inner);
  // The conv1d's input, the scan's x, B, C, dt and output, and z for the gated norm.
  ssm.saved_activation_elements_per_sample =
      static_cast<double>(s) * (2 * (inner + bc) + 2 * inner + t.mamba_heads);
  layers.push_back(std::move(ssm));
  layers.push_back(input_already_saved(linear(prefix + "mixer.out_proj", s, inner, t.hidden, false)));
}

}  // namespace

Model decoder(const DecoderSpec& spec) {
  const TransformerConfig& t = spec.config;
  // The zoo's tables and the TOML reader validate shapes field by field; this guards the builder itself.
  const bool moe_ok =
      t.experts == 0 ||
      (t.experts_per_token > 0 && t.experts_per_token <= t.experts && t.moe_ffn_hidden > 0 &&
       t.shared_experts >= 0 && t.first_moe_layer >= 0 && t.first_moe_layer < t.layers &&
       t.moe_layer_step >= 1 && (t.moe_layers.empty() || static_cast<int>(t.moe_layers.size()) == t.layers));
  const bool has_dense_layer = t.experts == 0 || t.first_moe_layer > 0 || t.moe_layer_step > 1 ||
                               std::find(t.moe_layers.begin(), t.moe_layers.end(), 0) != t.moe_layers.end();
  const bool mla_ok = t.kv_lora_rank == 0 || (t.q_lora_rank >= 0 && t.qk_nope_head_dim > 0 &&
                                              t.qk_rope_head_dim > 0 && t.v_head_dim > 0);
  const bool hybrid_ok =
      t.hybrid_pattern.empty() ||
      (static_cast<int>(t.hybrid_pattern.size()) == t.layers &&
       t.hybrid_pattern.find_first_not_of("M*-E") == std::string::npos &&
       (t.hybrid_pattern.find('E') == std::string::npos || t.experts > 0) &&
       (t.hybrid_pattern.find('M') == std::string::npos ||
        (t.mamba_heads > 0 && t.mamba_head_dim > 0 && t.mamba_state > 0 && t.mamba_groups > 0 &&
         t.mamba_heads % t.mamba_groups == 0 && t.mamba_conv_kernel > 0)));
  const bool head_ok = t.head_dim > 0 || is_mla(t) || (t.heads > 0 && t.hidden % t.heads == 0);
  if (t.layers <= 0 || t.hidden <= 0 || t.heads <= 0 || t.kv_heads <= 0 || t.vocab <= 0 ||
      spec.seq_len <= 0 || !head_ok || t.heads % t.kv_heads != 0 || !moe_ok || !mla_ok || t.window_size < 0 ||
      t.mtp_layers < 0 || !hybrid_ok || (has_dense_layer && t.ffn_hidden <= 0)) {
    throw Error("model " + spec.name + ": inconsistent transformer shape");
  }
  const std::int64_t s = spec.seq_len, h = t.hidden;
  Model model;
  model.name = spec.name;
  model.description = spec.description;
  model.sample_unit = "sequence";
  model.seq_len = spec.seq_len;
  model.transformer = t;
  model.transformer->dropout = spec.dropout;
  auto& layers = model.layers;
  layers.push_back(embedding("embedding.word_embeddings", s, t.vocab, h));
  if (spec.learned_positions > 0) {
    layers.push_back(embedding("embedding.position_embeddings", s, spec.learned_positions, h));
    layers.push_back(add("embedding.add", s * h, 2, false));
  }
  if (spec.dropout) layers.push_back(dropout("embedding.dropout", s * h));
  // The model's layers, then DeepSeek-V3's multi-token-prediction modules (mtp.layers.k), each a norm of
  // the hidden state and of the next token's embedding (the main embedding table, shared), their
  // concatenation projected back to hidden, and a layer numbered after the model's (MoE when its last is).
  // Hybrid models: one block per layer, each with its norm and residual.
  for (int i = 0; i < (t.hybrid_pattern.empty() ? 0 : t.layers); ++i) {
    const char block = t.hybrid_pattern[static_cast<std::size_t>(i)];
    const std::string prefix = "decoder.layers." + std::to_string(i) + ".";
    layers.push_back(norm(t, prefix + "norm", s));
    if (block == 'M') {
      mamba_mixer(layers, t, prefix, s);
    } else if (block == '*') {
      self_attention(layers, t, prefix, s, i, spec.learned_positions == 0);
    } else if (block == 'E') {
      moe_mlp(layers, t, prefix + "mlp.", s);
    } else {
      mlp(layers, t, prefix + "mlp.", s, t.ffn_hidden, 1, t.hidden);
    }
    layers.push_back(add(prefix + "residual_add", s * h, 2, true));
  }
  for (int n = t.hybrid_pattern.empty() ? 0 : t.layers; n < t.layers + t.mtp_layers; ++n) {
    const bool mtp = n >= t.layers;
    const int i = mtp ? t.layers - 1 : n;
    const std::string prefix = mtp ? "mtp.layers." + std::to_string(n - t.layers) + "."
                                   : "decoder.layers." + std::to_string(i) + ".";
    const std::size_t module_start = layers.size();
    if (mtp) {
      layers.push_back(norm(t, prefix + "enorm", s));
      layers.push_back(norm(t, prefix + "hnorm", s));
      layers.push_back(concat(prefix + "concat", 2 * s * h));
      layers.push_back(linear(prefix + "eh_proj", s, 2 * h, h, false));
    }
    layers.push_back(norm(t, prefix + "input_layernorm", s));
    self_attention(layers, t, prefix, s, i, spec.learned_positions == 0);
    if (spec.dropout) layers.push_back(dropout(prefix + "self_attention.dropout", s * h));
    layers.push_back(add(prefix + "self_attention.residual_add", s * h, 2, true));
    layers.push_back(norm(t, prefix + "pre_mlp_layernorm", s));
    if (is_moe_layer(t, i)) {
      moe_mlp(layers, t, prefix + "mlp.", s);
    } else {
      mlp(layers, t, prefix + "mlp.", s, t.ffn_hidden, 1, t.hidden);
    }
    if (spec.dropout) layers.push_back(dropout(prefix + "mlp.dropout", s * h));
    layers.push_back(add(prefix + "mlp.residual_add", s * h, 2, true));
    if (mtp) {
      // Its own final norm, then the shared LM head (its weight counted once, at the main head) and loss.
      layers.push_back(norm(t, prefix + "final_layernorm", s));
      layers.push_back(linear(prefix + "output_layer", s, h, t.vocab, false, /*tied=*/true));
      layers.push_back(cross_entropy(prefix + "loss", s, t.vocab));
      // A repeated module's later depths rerun the first one's weights: their parameters are its own.
      if (t.mtp_repeated_layer && n > t.layers)
        for (std::size_t k = module_start; k < layers.size(); ++k) layers[k].parameters = 0;
    }
  }
  layers.push_back(norm(t, "decoder.final_layernorm", s));
  layers.push_back(linear("output_layer", s, h, t.vocab, false, t.tied_embeddings));
  layers.push_back(cross_entropy("loss", s, t.vocab));
  return model;
}

}  // namespace simtrain::workload::zoo
