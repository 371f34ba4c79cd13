// Parameter counts and model FLOPs of a transformer's parts, as transformer_kernels.h declares them.
#include "simulator/workload/transformer_kernels.h"

#include "simulator/workload/attention_shape.h"
#include "simulator/workload/ssd_kernels.h"

namespace simtrain::workload {
namespace {

double norm_parameters(const TransformerConfig& m) { return (m.rms_norm ? 1.0 : 2.0) * m.hidden; }
double gated(const TransformerConfig& m) { return m.gated_mlp ? 2.0 : 1.0; }
// The linear layers' parameter count: weights (+ biases) of an in x out matrix.
double linear(const TransformerConfig& m, double in, double out) { return in * out + (m.bias ? out : 0); }

// The attention block's weights: those split over TP ranks (by heads) and those every TP rank holds whole
// (multi-latent attention's down-projections and latent norms, as Megatron-Core builds them duplicated).
struct AttentionWeights {
  double sharded = 0;
  double replicated = 0;
  double matmul = 0;  // weights a token multiplies by (the model's GEMM FLOPs are 2 per weight and token)
};

AttentionWeights attention_weights(const TransformerConfig& m) {
  const double h = m.hidden, heads = m.heads, qk = qk_head_dim(m), v = v_head_dim(m);
  AttentionWeights w;
  if (is_mla(m)) {
    const double q = m.q_lora_rank > 0 ? m.q_lora_rank * heads * qk : h * heads * qk;
    const double q_down = m.q_lora_rank > 0 ? h * m.q_lora_rank : 0;
    const double kv_down = h * (m.kv_lora_rank + m.qk_rope_head_dim);
    const double kv_up = m.kv_lora_rank * heads * (m.qk_nope_head_dim + v);
    w.sharded = q + kv_up + heads * v * h;
    w.matmul = w.sharded + q_down + kv_down;
    // RMSNorms on the query and key/value latents.
    w.replicated = q_down + kv_down + (m.q_lora_rank > 0 ? m.q_lora_rank : 0) + m.kv_lora_rank;
    return w;
  }
  const double qkv = linear(m, h, (heads + 2 * kv_heads(m)) * qk);
  w.sharded = qkv + heads * v * h;
  w.matmul = h * (heads + 2 * kv_heads(m)) * qk + heads * v * h;
  return w;
}

}  // namespace

char hybrid_block(const TransformerConfig& model, int index) {
  if (model.hybrid_pattern.empty()) return 0;
  return model.hybrid_pattern[static_cast<std::size_t>(index) % model.hybrid_pattern.size()];
}

bool is_moe_layer(const TransformerConfig& model, int index) {
  if (!model.hybrid_pattern.empty()) return hybrid_block(model, index) == 'E';
  if (!model.moe_layers.empty())
    return model.experts > 0 && index >= 0 && static_cast<std::size_t>(index) < model.moe_layers.size() &&
           model.moe_layers[static_cast<std::size_t>(index)] != 0;
  if (model.experts <= 0 || index < model.first_moe_layer) return false;
  const int step = std::max(1, model.moe_layer_step);
  return (index - model.first_moe_layer + 1) % step == 0;
}

double moe_layer_share(const TransformerConfig& model) {
  if (model.experts <= 0 || model.layers <= 0) return 0;
  int moe = 0;
  for (int i = 0; i < model.layers; ++i) moe += is_moe_layer(model, i) ? 1 : 0;
  return static_cast<double>(moe) / model.layers;
}

// The Mamba-2 mixer's weights: in_proj (to z, x, B, C, dt), the conv1d's taps and biases, A, D and the dt
// bias per head, the gated norm over d_inner, out_proj. All split over TP ranks by heads and groups.
double mamba_parameters(const TransformerConfig& m) {
  const double inner = static_cast<double>(m.mamba_heads) * m.mamba_head_dim;
  const double bc = 2.0 * m.mamba_groups * m.mamba_state;
  const double conv = (inner + bc) * (m.mamba_conv_kernel + 1);
  return m.hidden * (2 * inner + bc + m.mamba_heads) + conv + 3.0 * m.mamba_heads + inner + inner * m.hidden;
}

// Forward FLOPs per token of the Mamba-2 mixer: its GEMMs, the conv1d and the SSD scan (ssd_kernels.h).
double mamba_flops_per_token(const TransformerConfig& m) {
  const double inner = static_cast<double>(m.mamba_heads) * m.mamba_head_dim;
  const double bc = 2.0 * m.mamba_groups * m.mamba_state;
  const double gemms = 2.0 * m.hidden * (2 * inner + bc + m.mamba_heads) + 2 * inner * m.hidden;
  return gemms +
         ssd_model_flops({1, static_cast<double>(m.mamba_heads), static_cast<double>(m.mamba_head_dim),
                          static_cast<double>(m.mamba_groups), static_cast<double>(m.mamba_state),
                          static_cast<double>(m.mamba_conv_kernel)});
}

PartParameters transformer_layer_parameters(const TransformerConfig& m, const LayerSharding& shard,
                                            bool moe) {
  const double h = m.hidden, tp = shard.tp;
  const AttentionWeights attention = attention_weights(m);
  const double bias = m.bias ? h : 0;  // row-parallel biases are replicated
  const double norms = 2 * norm_parameters(m);
  PartParameters p;
  p.total = attention.sharded + attention.replicated + bias + norms;
  p.per_gpu = attention.sharded / tp + attention.replicated + bias + norms;
  const auto mlp = [&](double ffn, double width) { return linear(m, width, ffn * gated(m)) + ffn * width; };
  if (!moe) {
    p.total += mlp(m.ffn_hidden, h) + bias;
    p.per_gpu += mlp(m.ffn_hidden, h) / tp + bias;
    return p;
  }
  const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  const double width = routed_expert_width(m);
  const double router = h * m.experts, experts = m.experts * (mlp(ffn, width) + (m.bias ? width : 0));
  const double shared = m.shared_experts > 0 ? mlp(ffn * m.shared_experts, h) + bias : 0;
  // A latent MoE's two projections, replicated over the TP ranks.
  const double latent = m.moe_latent > 0 ? 2 * (h * width) + (m.bias ? h + width : 0) : 0;
  p.total += router + experts + shared + latent;
  p.expert_per_gpu = experts / (shard.expert_tp() * shard.ep);
  p.per_gpu += router + p.expert_per_gpu + shared / tp + latent;
  return p;
}

PartParameters hybrid_layer_parameters(const TransformerConfig& m, const LayerSharding& shard, char block) {
  const double norm = norm_parameters(m), tp = shard.tp;
  const auto with_norm = [&](double sharded) {
    return PartParameters{sharded + norm, sharded / tp + norm, 0};
  };
  if (block == 'M') return with_norm(mamba_parameters(m));
  if (block == '*') {
    const AttentionWeights a = attention_weights(m);
    const double bias = m.bias ? m.hidden : 0;
    return {a.sharded + a.replicated + bias + norm, a.sharded / tp + a.replicated + bias + norm, 0};
  }
  // An MLP block is a transformer layer without its attention half.
  PartParameters p = transformer_layer_parameters(m, shard, block == 'E');
  const PartParameters attention = hybrid_layer_parameters(m, shard, '*');
  p.total -= attention.total;
  p.per_gpu -= attention.per_gpu;
  return p;
}

PartParameters mtp_parameters(const TransformerConfig& m, const LayerSharding& shard) {
  if (m.mtp_layers <= 0) return {};
  // Each MTP module: its transformer layer (MoE when the model's last layer is), the norms of the hidden
  // state and of the next token's embedding, the 2h -> h projection (column-parallel) and its own final
  // norm; the embedding and the LM head are the main model's.
  PartParameters p = transformer_layer_parameters(m, shard, is_moe_layer(m, m.layers - 1));
  const double extra = 3 * norm_parameters(m);
  const double projection = 2.0 * m.hidden * m.hidden;
  p.total += extra + projection;
  p.per_gpu += extra + projection / shard.tp;
  const int modules = mtp_modules_held(m);
  p.total *= modules;
  p.per_gpu *= modules;
  p.expert_per_gpu *= modules;
  return p;
}

PartParameters embedding_parameters(const TransformerConfig& m, const LayerSharding& shard) {
  const double table = static_cast<double>(m.vocab) * m.hidden;
  return {table, table / shard.tp, 0};
}

PartParameters lm_head_parameters(const TransformerConfig& m, const LayerSharding& shard,
                                  bool separate_copy) {
  const double table = static_cast<double>(m.vocab) * m.hidden, norm = norm_parameters(m);
  PartParameters p{norm, norm, 0};
  if (!m.tied_embeddings) p.total += table;
  if (!m.tied_embeddings || separate_copy) p.per_gpu += table / shard.tp;
  return p;
}

namespace {

// The attention half of layer `index`: its projections and the score and context matmuls.
double attention_flops_per_token(const TransformerConfig& m, int index, int seq_len) {
  const double core = 2.0 * m.heads * attended_keys(m, index, seq_len) * (qk_head_dim(m) + v_head_dim(m));
  return 2 * attention_weights(m).matmul + core;
}

}  // namespace

double layer_forward_flops_per_token(const TransformerConfig& m, int index, int seq_len) {
  const double h = m.hidden;
  const char block = hybrid_block(m, index);
  if (block == 'M') return mamba_flops_per_token(m);
  double flops = block == '-' || block == 'E' ? 0 : attention_flops_per_token(m, index, seq_len);
  if (block == '*') return flops;
  const double mlp_per_width = 2 * h * (gated(m) + 1);  // fc1 (x2 gated) and fc2 per FFN column
  const double moe_ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  if (is_moe_layer(m, index)) {
    // A latent MoE's routed experts run latent-wide, behind its two projections.
    const double routed_per_width = 2.0 * routed_expert_width(m) * (gated(m) + 1);
    flops += 2 * h * m.experts + mlp_per_width * moe_ffn * m.shared_experts +
             routed_per_width * moe_ffn * m.experts_per_token + (m.moe_latent > 0 ? 4 * h * m.moe_latent : 0);
  } else {
    flops += mlp_per_width * m.ffn_hidden;
  }
  return flops;
}

double forward_flops_per_token(const TransformerConfig& m, int seq_len) {
  const double h = m.hidden;
  double flops = 2 * h * m.vocab;  // LM head
  for (int layer = 0; layer < m.layers; ++layer) flops += layer_forward_flops_per_token(m, layer, seq_len);
  // Each MTP module: the 2h -> h projection, its layer (numbered after the model's; in a hybrid model a
  // whole transformer layer, attention and the last layer's MLP) and its LM head.
  double mtp_layer = layer_forward_flops_per_token(m, m.layers - 1, seq_len);
  const char last = hybrid_block(m, m.layers - 1);
  if (last == 'E' || last == '-') mtp_layer += attention_flops_per_token(m, m.layers - 1, seq_len);
  for (int i = 0; i < m.mtp_layers; ++i) flops += 2 * 2 * h * h + mtp_layer + 2 * h * m.vocab;
  return flops;
}

}  // namespace simtrain::workload
