// Parameter counts and model FLOPs of a transformer's parts, as transformer_kernels.h declares them.
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload {
namespace {

double norm_parameters(const TransformerConfig& m) { return (m.rms_norm ? 1.0 : 2.0) * m.hidden; }
double gated(const TransformerConfig& m) { return m.gated_mlp ? 2.0 : 1.0; }
// The linear layers' parameter count: weights (+ biases) of an in x out matrix.
double linear(const TransformerConfig& m, double in, double out) { return in * out + (m.bias ? out : 0); }

}  // namespace

bool is_moe_layer(const TransformerConfig& model, int index) {
  return model.experts > 0 && index >= model.first_moe_layer;
}

PartParameters transformer_layer_parameters(const TransformerConfig& m, const LayerSharding& shard,
                                            bool moe) {
  const double h = m.hidden, head_dim = h / m.heads, tp = shard.tp;
  const double kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double qkv = linear(m, h, (m.heads + 2 * kv) * head_dim), proj_weight = m.heads * head_dim * h;
  const double bias = m.bias ? h : 0;  // row-parallel biases are replicated
  const double norms = 2 * norm_parameters(m);
  PartParameters p;
  p.total = qkv + proj_weight + bias + norms;
  p.per_gpu = qkv / tp + proj_weight / tp + bias + norms;
  const auto mlp = [&](double ffn) { return linear(m, h, ffn * gated(m)) + ffn * h; };
  if (!moe) {
    p.total += mlp(m.ffn_hidden) + bias;
    p.per_gpu += mlp(m.ffn_hidden) / tp + bias;
    return p;
  }
  const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  const double router = h * m.experts, experts = m.experts * (mlp(ffn) + bias);
  const double shared = m.shared_experts > 0 ? mlp(ffn * m.shared_experts) + bias : 0;
  p.total += router + experts + shared;
  p.expert_per_gpu = experts / (tp * shard.ep);
  p.per_gpu += router + p.expert_per_gpu + shared / tp;
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

double forward_flops_per_token(const TransformerConfig& m, int seq_len) {
  const double h = m.hidden, head_dim = h / m.heads, kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double attention =
      2 * h * (m.heads + 2 * kv) * head_dim + 2 * m.heads * head_dim * h + 4.0 * seq_len * m.heads * head_dim;
  const double mlp_per_width = 2 * h * (gated(m) + 1);  // fc1 (x2 gated) and fc2 per FFN column
  const double moe_ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  double flops = 2 * h * m.vocab;  // LM head
  for (int layer = 0; layer < m.layers; ++layer) {
    flops += attention;
    if (is_moe_layer(m, layer))
      flops += 2 * h * m.experts + mlp_per_width * moe_ffn * (m.experts_per_token + m.shared_experts);
    else
      flops += mlp_per_width * m.ffn_hidden;
  }
  return flops;
}

}  // namespace simtrain::workload
