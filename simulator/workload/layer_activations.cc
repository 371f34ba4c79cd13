// Implements layer_activations.h. Each block saves, per token: its norm's input (16 bits); the inputs of
// its GEMMs for their weight gradients (gemm_input_bytes each; in 16 bits a tensor two GEMMs read is saved
// once); the tensors its nonlinear parts need (attention's Q, K, V and output, the MLP activation's input);
// a one-byte mask per dropout. Korthikanti et al.'s GPT layer in these terms: attention 5h replicated
// (norm input 2, QKV input 2, mask 1) and 8h split (Q, K 4, V 2, output 2); MLP 5h replicated and 16h split
// (the GELU's input and output, 8 each): 34h.
#include "simulator/workload/layer_activations.h"

#include <algorithm>

#include "simulator/workload/attention_shape.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload {
namespace {

constexpr double kActivationBytes = 2;  // 16-bit activations; fp32 training doubles the total
constexpr double kMaskBytes = 1;

// Bytes per token: `replicated` on every TP rank (split too under sequence parallelism), `split` over them,
// `whole` on every rank even under sequence parallelism.
struct Saved {
  double replicated = 0;
  double split = 0;
  double whole = 0;
};

struct BlockContext {
  const TransformerConfig& m;
  RecomputeModules rerun;  // what selective recomputation drops
  double e;                // a saved GEMM input's bytes per element
  bool quantized() const { return e < kActivationBytes; }
  bool reruns(RecomputeModule module) const { return (rerun & module) != 0; }
  double mask() const { return m.dropout ? kMaskBytes * m.hidden : 0; }
};

// The norm in front of a block keeps its input; the GEMMs after it keep the norm's output, unless
// `layernorm` recomputes it.
void norm_and_gemm_input(const BlockContext& c, Saved& s, int gemm_inputs = 1) {
  const double h = c.m.hidden;
  s.replicated += kActivationBytes * h;
  // In 16 bits the GEMMs reading the norm's output save that one tensor; quantized, each its own copy.
  if (!c.reruns(kRecomputeLayerNorm)) s.replicated += c.e * h * (c.quantized() ? gemm_inputs : 1);
}

Saved attention_block(const BlockContext& c, int index, double seq) {
  const TransformerConfig& m = c.m;
  Saved s;
  // Multi-latent attention's two down-projections read the same normed input.
  norm_and_gemm_input(c, s, is_mla(m) ? 2 : 1);
  s.replicated += c.mask();
  const double heads = m.heads, qk = qk_head_dim(m), v = v_head_dim(m), kv = kv_heads(m);
  if (is_mla(m)) {
    // The latents: each one's norm input and its up-projection's input.
    for (const double latent : {static_cast<double>(m.q_lora_rank), static_cast<double>(m.kv_lora_rank)})
      s.replicated += latent > 0 ? (kActivationBytes + c.e) * latent : 0;
  }
  const double q = heads * qk, k = kv * qk, values = kv * v, context = heads * v;
  if (!(is_mla(m) && c.reruns(kRecomputeMlaUpProjection))) s.split += kActivationBytes * (q + k + values);
  if (m.qk_norm) s.split += kActivationBytes * (q + k);  // the per-head norms' inputs
  // The attention output, which the output projection reads again (its own quantized copy under FP8).
  s.split += kActivationBytes * context + (c.quantized() ? c.e * context : 0);
  if (!c.reruns(kRecomputeCoreAttention)) {
    // An unfused kernel keeps its softmax output (2 bytes a score) and, with dropout, its mask and output.
    const double per_score = m.dropout ? 2 * kActivationBytes + kMaskBytes : kActivationBytes;
    // The whole square in memory, even under a window; a chunked layer's chunks are sequences of their own.
    const double chunk = is_local_attention_layer(m, index) ? m.attention_chunk : 0;
    s.split += per_score * heads * attended_keys(seq, 0, chunk);
  }
  return s;
}

// The activation's input (16 bits, both halves when gated) and output (the second GEMM's input).
double mlp_body(const BlockContext& c, double ffn, bool drop_output) {
  return kActivationBytes * (c.m.gated_mlp ? 2 : 1) * ffn + (drop_output ? 0 : c.e * ffn);
}

Saved dense_mlp_block(const BlockContext& c) {
  Saved s;
  norm_and_gemm_input(c, s);
  if (c.reruns(kRecomputeMlp)) return s;  // all but the block's input
  s.replicated += c.mask();
  s.split += mlp_body(c, c.m.ffn_hidden, false);
  return s;
}

Saved moe_block(const BlockContext& c) {
  const TransformerConfig& m = c.m;
  const double h = m.hidden, width = routed_expert_width(m);
  const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  Saved s;
  // The norm keeps its input; the router the norm's output in 16 bits, and the shared experts' and the
  // latent projection's GEMMs their own quantized copies of it.
  s.replicated += kActivationBytes * h;
  if (!c.reruns(kRecomputeLayerNorm)) {
    s.replicated += kActivationBytes * h;
    if (c.quantized()) s.replicated += c.e * h * ((m.shared_experts > 0) + (m.moe_latent > 0));
  }
  if (c.reruns(kRecomputeMoe)) return s;
  s.replicated += c.mask();
  if (m.moe_latent > 0) s.replicated += c.e * width;  // fc2_latent_proj's input
  // Every token's top-k routed copies: the first GEMM's input, the activation's input and output (the
  // second GEMM's). Megatron-Core's grouped experts weigh each copy by its routing probability inside the
  // activation (TEGroupedMLP's permuted_probs), so the unpermutation keeps no expert outputs.
  const double routed = c.e * width + mlp_body(c, ffn, c.reruns(kRecomputeMoeActivation));
  s.split += m.experts_per_token * routed;
  if (m.shared_experts > 0 && !c.reruns(kRecomputeSharedExperts))
    s.split += mlp_body(c, ffn * m.shared_experts, false);
  return s;
}

// mamba_split_conv1d_scan_combined keeps in_proj's output (z, x, B, C, dt) and its own output before the
// gated norm, and recomputes the conv1d and chunk states; out_proj keeps its input.
Saved mamba_block(const BlockContext& c) {
  const TransformerConfig& m = c.m;
  const double inner = static_cast<double>(m.mamba_heads) * m.mamba_head_dim;
  const double projected = 2 * inner + 2.0 * m.mamba_groups * m.mamba_state + m.mamba_heads;
  Saved s;
  norm_and_gemm_input(c, s);
  s.split += kActivationBytes * (projected + inner) + c.e * inner;
  return s;
}

// torchtitan's op-level checkpointing (kRecomputeTorchtitanOps: parallelize_llama.py's _save_list and
// policy, 2024-25) keeps the outputs of the ops it saves and reruns all else from the layer's input: of the
// layer's matmuls every other one (q and v; a gated MLP's gate and down projections, a plain one's fc1),
// and the attention kernel's output with its log-sum-exp (fp32, one per head and token). The down
// projection's output is, under TP, the partial sum of the whole width on every rank; the reduce-scatters'
// outputs (hidden / tp each) are left out. Under torchao's Float8 the matmuls are _scaled_mm, which the
// list does not name, and it saves the amax's abs outputs instead; the same bytes are counted.
Saved torchtitan_op_layer(const BlockContext& c) {
  const TransformerConfig& m = c.m;
  constexpr double kLogSumExpBytes = 4;
  const double q = m.heads * qk_head_dim(m), values = kv_heads(m) * v_head_dim(m);
  const double context = m.heads * v_head_dim(m);
  Saved s;
  s.replicated = kActivationBytes * m.hidden;
  s.split = kActivationBytes * (q + values + context + m.ffn_hidden) + kLogSumExpBytes * m.heads;
  if (m.gated_mlp) s.whole = kActivationBytes * m.hidden;
  return s;
}

Saved layer(const BlockContext& c, int index, double seq) {
  const auto add = [](Saved a, Saved b) {
    return Saved{a.replicated + b.replicated, a.split + b.split, a.whole + b.whole};
  };
  // Its policy is written for a dense layer with separate q, k and v projections.
  if (c.reruns(kRecomputeTorchtitanOps) && !hybrid_block(c.m, index) && !is_mla(c.m) &&
      !is_moe_layer(c.m, index))
    return torchtitan_op_layer(c);
  switch (hybrid_block(c.m, index)) {
    case 'M':
      return mamba_block(c);
    case '*':
      return attention_block(c, index, seq);
    case '-':
      return dense_mlp_block(c);
    case 'E':
      return moe_block(c);
    default:
      return add(attention_block(c, index, seq),
                 is_moe_layer(c.m, index) ? moe_block(c) : dense_mlp_block(c));
  }
}

}  // namespace

double gemm_input_bytes(const ParallelConfig& config) {
  if (!config.fp8) return kActivationBytes;
  switch (config.quant_recipe) {
    case QuantRecipe::MXFP8:
      return 1 + 1.0 / 32;
    case QuantRecipe::Blockwise:
      return 1 + 4.0 / 128;
    case QuantRecipe::NVFP4:
      return 0.5 + 1.0 / 16;
    default:
      return 1;
  }
}

LayerActivationOptions layer_activation_options(const ParallelConfig& config) {
  LayerActivationOptions o;
  o.tp = config.tp;
  o.sp = config.sp;
  o.recompute =
      config.flash_attention && config.recompute == Recompute::None ? Recompute::Selective : config.recompute;
  o.modules = (config.recompute == Recompute::Selective ? config.recompute_modules : 0) |
              (config.flash_attention ? kRecomputeCoreAttention : 0);
  o.gemm_input_bytes = gemm_input_bytes(config);
  return o;
}

double saved_activation_bytes_per_token(const TransformerConfig& model, int index, double seq,
                                        const LayerActivationOptions& options) {
  const double t = std::max(1, options.tp);
  const bool sequence_parallel = options.sp && options.tp > 1;
  if (options.recompute == Recompute::Full)
    return kActivationBytes * model.hidden / (sequence_parallel ? t : 1);
  const RecomputeModules rerun = options.recompute == Recompute::Selective ? options.modules : 0;
  const Saved s = layer({model, rerun, options.gemm_input_bytes}, index, seq);
  return (sequence_parallel ? (s.replicated + s.split) / t : s.replicated + s.split / t) + s.whole;
}

double layer_activation_bytes(const TransformerConfig& model, int index, const ParallelConfig& config,
                              int seq_len) {
  const double local_seq = static_cast<double>(seq_len) / std::max(1, config.cp);
  const bool sixteen_bit = config.precision == Precision::AMP_BF16 || config.precision == Precision::AMP_FP16;
  return saved_activation_bytes_per_token(model, index, local_seq, layer_activation_options(config)) *
         local_seq * config.micro_batch * (sixteen_bit ? 1 : 2);
}

double activation_bytes_per_layer(const TransformerConfig& model, double seq, int micro_batch,
                                  const LayerActivationOptions& options) {
  if (model.layers <= 0) return 0;
  double sum = 0;
  for (int i = 0; i < model.layers; ++i) sum += saved_activation_bytes_per_token(model, i, seq, options);
  return sum / model.layers * seq * micro_batch;
}

}  // namespace simtrain::workload
