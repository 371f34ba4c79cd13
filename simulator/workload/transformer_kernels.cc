// Kernels of one transformer layer on one GPU under tensor, sequence, context and expert parallelism, after
// Megatron-LM's ColumnParallelLinear / RowParallelLinear, vocabulary-parallel embedding and cross-entropy,
// Transformer Engine's ring attention and the all-to-all MoE token dispatcher.
#include "simulator/workload/transformer_kernels.h"

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/attention_work.h"
#include "simulator/workload/layer_builders.h"

namespace simtrain::workload {
namespace {

using namespace layer_builders;

// Fused flash attention over the local heads: the tiles of the square the kernel visits (about half under a
// causal mask, attention_work.h; the model's FLOPs for MFU count the whole square); backward recomputes the
// scores (2.5x the forward FLOPs). With context parallelism each rank runs cp rounds of its queries against
// the K/V chunk passed round the ring; `kernel` is one round, and load-balanced causal rounds each do about
// half a square's work too.
// Queries and keys are head_dim wide, values and outputs v_head_dim (they differ under multi-latent
// attention). A sliding-window layer visits the tiles its window reaches (attention_work.h); a chunked layer
// runs its padded chunks as a batch of chunk-long sequences (attention_chunks, attention_shape.h; never
// under context parallelism, which parallel_config.cc refuses).
void attention(Steps& forward, Steps& backward, const Dims& d) {
  double sequences = d.shard.micro_batch, keys = d.tokens / sequences;  // keys of one round: the local ones
  const double chunks = attention_chunks(keys, d.chunk);
  sequences *= chunks;
  if (chunks > 1) keys = d.chunk;
  const double tokens = sequences * keys;                               // the padded tokens under chunking
  const double qo = tokens * d.heads * (d.head_dim + d.v_head_dim);     // Q and O
  const double kv = tokens * d.kv_heads * (d.head_dim + d.v_head_dim);  // K and V
  const double all_keys = keys * d.shard.cp;
  const double fraction = d.window > 0 ? sliding_window_tile_fraction(all_keys, d.window)
                                       : flash_attention_tile_fraction(all_keys, d.causal);
  const double flops = 2 * tokens * keys * d.heads * (d.head_dim + d.v_head_dim) * fraction;
  const std::vector<std::int64_t> shape = {whole(sequences), whole(d.heads), whole(keys), whole(d.head_dim)};
  LayerStep f = kernel_step("attention.fwd", ComputeKind::Attention, Pass::Forward, d.shard.activation, flops,
                            (qo + kv) * d.e, shape);
  LayerStep b = kernel_step("attention.bwd_data", ComputeKind::Attention, Pass::BackwardData,
                            d.shard.activation, 2.5 * flops, (2 * qo + 2 * kv) * d.e, shape);
  f.recompute = kRecomputeCoreAttention;
  f.kernel.kv_tiles = b.kernel.kv_tiles = flash_attention_kv_tiles(keys, fraction);
  f.kernel.attention_kernel = b.kernel.attention_kernel = d.shard.attention_kernel;
  if (d.shard.cp > 1) {
    f.type = b.type = LayerStep::Type::RingAttention;
    f.group = b.group = LayerGroup::ContextParallel;
    f.bytes = kv * d.e;      // K and V
    b.bytes = 2 * kv * d.e;  // K, V and their gradients
  }
  forward.push_back(f);
  backward.push_back(b);
}

// Attention without a fused kernel, as Megatron-LM ran it before FlashAttention: Q K^T as a batched GEMM,
// a fused scale-mask-softmax and a dropout over the seq x seq scores (kept in memory), then probabilities
// times V. The scores' memory traffic is what a fused kernel saves; it grows with seq^2 / hidden.
void unfused_attention(Steps& forward, Steps& backward, const Dims& d) {
  const double seq = d.tokens / d.shard.micro_batch;
  const double scores = d.tokens * seq * d.heads;  // elements of the score matrices
  const double q = d.tokens * d.heads * d.head_dim, kv = d.tokens * d.kv_heads * d.head_dim;
  const double matmul = 2 * d.tokens * seq * d.heads * d.head_dim;  // one of the two products
  const DType dtype = d.shard.activation;
  const std::vector<std::int64_t> shape = {whole(d.shard.micro_batch * d.heads * seq), whole(seq),
                                           whole(d.head_dim)};
  auto core = [](LayerStep step) {
    step.recompute = kRecomputeCoreAttention;
    return step;
  };
  forward.push_back(core(kernel_step("attention.scores.fwd", ComputeKind::Gemm, Pass::Forward, dtype, matmul,
                                     (q + kv) * d.e + scores * d.e, shape)));
  forward.push_back(core(kernel_step("attention.softmax.fwd", ComputeKind::Softmax, Pass::Forward, dtype,
                                     5 * scores, 2 * scores * d.e, {})));
  forward.push_back(core(kernel_step("attention.dropout.fwd", ComputeKind::Elementwise, Pass::Forward, dtype,
                                     scores, 2 * scores * d.e + scores, {})));
  forward.push_back(core(kernel_step("attention.context.fwd", ComputeKind::Gemm, Pass::Forward, dtype, matmul,
                                     scores * d.e + kv * d.e + q * d.e, shape)));
  // Backward: gradients of probabilities and V, dropout, softmax, then of Q and K.
  backward.push_back(kernel_step("attention.context.bwd_data", ComputeKind::Gemm, Pass::BackwardData, dtype,
                                 2 * matmul, 2 * scores * d.e + (q + 2 * kv) * d.e, shape));
  backward.push_back(kernel_step("attention.dropout.bwd_data", ComputeKind::Elementwise, Pass::BackwardData,
                                 dtype, scores, 2 * scores * d.e + scores, {}));
  backward.push_back(kernel_step("attention.softmax.bwd_data", ComputeKind::Softmax, Pass::BackwardData,
                                 dtype, 4 * scores, 3 * scores * d.e, {}));
  // Q's and K's gradients are two batched GEMMs, each reading the scores' gradient.
  backward.push_back(kernel_step("attention.scores.bwd_data", ComputeKind::Gemm, Pass::BackwardData, dtype,
                                 2 * matmul, 2 * scores * d.e + 2 * (q + kv) * d.e, shape));
}

// An RMSNorm over `width`-wide rows of every local token (multi-latent attention's q and kv norms over their
// latents, QK-norm's over the heads' queries and keys).
void latent_norm(Steps& forward, Steps& backward, const std::string& name, const Dims& d, double width) {
  const double elements = d.tokens * width;
  forward.push_back(elementwise(name + ".fwd", ComputeKind::LayerNorm, Pass::Forward, d, elements, 1, 1, 5));
  backward.push_back(
      elementwise(name + ".bwd_data", ComputeKind::LayerNorm, Pass::BackwardData, d, elements, 2, 1, 8));
}

// Multi-latent attention's projections (Megatron-Core's MLASelfAttention, DeepSeek-V3): the down-projections
// to the query latent (q_lora_rank) and to the key/value latent plus the shared rotary key run whole on
// every TP rank (their weights are duplicated); their RMSNorms; the column-parallel up-projections to the
// local heads' queries (nope + rope) and keys/values (nope + v). Backward: each up-projection's latent
// gradient is all-reduced over TP (as a column-parallel linear's input gradient), then the down-projections'
// gradients run locally. Returns the backward steps in execution order.
Steps mla_projections(Steps& f, const TransformerConfig& m, const Dims& d, DType dtype) {
  const double heads = d.heads, q_rank = m.q_lora_rank, kv_rank = m.kv_lora_rank;
  const double kv_down_width = kv_rank + m.qk_rope_head_dim;
  const Gemm kv_down{"kv_down_proj", d.tokens, kv_down_width, d.hidden};
  const Gemm kv_up{"kv_up_proj", d.tokens, heads * (m.qk_nope_head_dim + m.v_head_dim), kv_rank};
  Steps b_latent, b_down;  // backward: norms and up-projections, then down-projections
  if (q_rank > 0) {
    const Gemm q_down{"q_down_proj", d.tokens, q_rank, d.hidden};
    const Gemm q_up{"q_up_proj", d.tokens, heads * d.head_dim, q_rank};
    gemm_forward(f, q_down, d, dtype);
    latent_norm(f, b_down, "q_norm", d, q_rank);
    const std::size_t up = f.size();
    gemm_forward(f, q_up, d, dtype);
    mark_recomputed(f, up, kRecomputeMlaUpProjection);
    column_parallel_backward(b_latent, q_up, d, dtype, false);
    b_down.push_back(gemm_data_grad(q_down, d, dtype));
    gemm_weight_grad(b_down, q_down, d, dtype);
  } else {
    const Gemm q{"q_proj", d.tokens, heads * d.head_dim, d.hidden};
    gemm_forward(f, q, d, dtype);
    column_parallel_backward(b_latent, q, d, dtype, false);
  }
  gemm_forward(f, kv_down, d, dtype);
  latent_norm(f, b_down, "kv_norm", d, kv_rank);
  const std::size_t up = f.size();
  gemm_forward(f, kv_up, d, dtype);
  mark_recomputed(f, up, kRecomputeMlaUpProjection);
  column_parallel_backward(b_latent, kv_up, d, dtype, false);
  b_down.push_back(gemm_data_grad(kv_down, d, dtype));
  gemm_weight_grad(b_down, kv_down, d, dtype);
  b_latent.insert(b_latent.end(), b_down.begin(), b_down.end());
  return b_latent;
}

// The attention block of a layer: norm, projections, core, output projection, residual.
LayerSteps attention_block(const TransformerConfig& m, const LayerSharding& shard, const Dims& d) {
  const bool mla = is_mla(m);
  const Gemm qkv{"qkv", d.tokens, (d.heads + 2 * d.kv_heads) * d.head_dim, d.hidden};
  const Gemm proj{"out_proj", d.tokens, d.hidden, d.heads * d.v_head_dim};
  // Rotary embedding of q and k: under MLA only their rope parts (the key's is shared by all heads).
  const double rope =
      mla ? d.tokens * (d.heads + 1) * m.qk_rope_head_dim : d.tokens * (d.heads + d.kv_heads) * d.head_dim;
  LayerSteps s;
  Steps& f = s.forward;
  norm_forward(f, "input_norm", d);
  f.back().recompute = kRecomputeLayerNorm;
  enter_tp_region(f, "qkv", d);
  Steps projection_backward;
  if (mla)
    projection_backward = mla_projections(f, m, d, shard.gemm);
  else
    gemm_forward(f, qkv, d, shard.gemm);
  // QK-norm: Megatron's q_layernorm and k_layernorm, one kernel each over the local heads' rows.
  Steps qk_norm_backward;
  if (m.qk_norm && !mla) {
    latent_norm(f, qk_norm_backward, "q_norm", d, d.heads * d.head_dim);
    latent_norm(f, qk_norm_backward, "k_norm", d, d.kv_heads * d.head_dim);
  }
  // Llama-style models (RMSNorm) rotate q and k (rotary position embeddings), in one fused kernel, or under
  // YaRN's scaling in Megatron-Core's unfused code (rope_utils.py, _apply_rotary_pos_emb_bshd), for q and
  // for k apart: t cos, the rotated half (a negation and a cat), times sin, their sum, and a cat with the
  // (empty) unrotated part, plus the cosines and sines themselves (cos, scale, cast: small); backward the
  // gradients through both products, the negation and the halves' cat, summed.
  const bool unfused_rope = m.yarn_scaling_factor > 1 && !mla;
  // Eagerly (LayerSharding::eager_pointwise), as torchtitan's Llama rotates q and k through complex numbers:
  // per tensor an upcast to fp32 (reading 1, writing 2 16-bit units per element), the complex product (2,
  // 2) and the downcast (2, 1); backward the same three in reverse.
  const bool eager = shard.eager_pointwise && !mla;
  const bool eager_rope = eager && !unfused_rope;
  struct RopeCost {
    double reads, writes, kernels;  // per rotated element, in 16-bit units; kernels for q and k together
  };
  const RopeCost rope_forward = unfused_rope ? RopeCost{6.5, 5.5, 2 * 12}
                                : eager_rope ? RopeCost{5, 5, 2 * 3}
                                             : RopeCost{1, 1, 1};
  const RopeCost rope_backward = unfused_rope ? RopeCost{5.5, 4.5, 2 * 5}
                                 : eager_rope ? RopeCost{5, 5, 2 * 3}
                                              : RopeCost{1, 1, 1};
  if (m.rms_norm) {
    f.push_back(elementwise("rope.fwd", ComputeKind::Elementwise, Pass::Forward, d, rope, rope_forward.reads,
                            rope_forward.writes, 3));
    f.back().launches = rope_forward.kernels;
    if (mla) f.back().recompute = kRecomputeMlaUpProjection;
  }
  // Eagerly, grouped-query attention copies each key and value head for the query heads that share it
  // (repeat_kv: an expand and a reshape), and the attention's output is copied back from head-major
  // (transpose, contiguous); backward sums the copies' gradients per shared head and copies the output's
  // gradient head-major again.
  const double repeated = 2 * d.tokens * d.heads * d.head_dim;
  const double kv_share = d.kv_heads / d.heads;
  const double output = d.tokens * d.heads * d.v_head_dim;
  if (eager && kv_share < 1) {
    f.push_back(elementwise("attention.repeat_kv.fwd", ComputeKind::Elementwise, Pass::Forward, d, repeated,
                            kv_share, 1, 1));
    f.back().launches = 2;
  }
  Steps core_backward;
  // Ring attention (context parallelism) always runs the fused kernel, as Transformer Engine does.
  if (shard.flash_attention || shard.cp > 1)
    attention(f, core_backward, d);
  else
    unfused_attention(f, core_backward, d);
  if (eager)
    f.push_back(
        elementwise("attention.contiguous.fwd", ComputeKind::Elementwise, Pass::Forward, d, output, 1, 1, 1));
  Steps& b = s.backward;
  block_output(f, b, proj, "out_proj", "attention.dropout_add", d);
  if (eager)
    b.push_back(elementwise("attention.contiguous.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d,
                            output, 1, 1, 1));
  b.insert(b.end(), core_backward.begin(), core_backward.end());
  if (eager && kv_share < 1) {
    b.push_back(elementwise("attention.repeat_kv.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d,
                            repeated, 1, kv_share, 1));
    b.back().launches = 2;
  }
  if (m.rms_norm) {
    b.push_back(elementwise("rope.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d, rope,
                            rope_backward.reads, rope_backward.writes, 3));
    b.back().launches = rope_backward.kernels;
  }
  b.insert(b.end(), qk_norm_backward.rbegin(), qk_norm_backward.rend());
  if (mla) {
    b.insert(b.end(), projection_backward.begin(), projection_backward.end());
    // With sequence parallelism the whole-sequence input gradient goes back to sequence shards.
    if (shard.tp > 1 && shard.sp)
      b.push_back(collective_step("qkv.sp_reduce_scatter_grad", CollectiveKind::ReduceScatter,
                                  LayerGroup::TensorParallel, d.activation_bytes(), true));
  } else {
    column_parallel_backward(b, qkv, d, shard.gemm, shard.sp);
  }
  norm_backward(b, "input_norm", d, norm_parameters(m));
  // torchtitan's op-level checkpointing saves the first and third matmuls (q, v) and reruns the second (k)
  // and the fourth (the output projection), with every pointwise op.
  if (!mla)
    torchtitan_op_recompute(s.forward, 0, {proj.name + ".fwd"},
                            {Gemm{"k_proj", d.tokens, d.kv_heads * d.head_dim, d.hidden}}, d);
  mark_graph_region(s.forward, 0, kGraphAttention);
  mark_graph_region(s.backward, 0, kGraphAttention);
  return s;
}

// The MLP (or MoE) block of a layer: norm, MLP, residual.
LayerSteps mlp_block(const TransformerConfig& m, const Dims& d, bool moe) {
  LayerSteps s;
  Steps mlp_backward;  // the MLP block's backward in execution order
  norm_forward(s.forward, "mlp_norm", d);
  s.forward.back().recompute = kRecomputeLayerNorm;
  const std::size_t mlp = s.forward.size();
  if (moe)
    moe_mlp(s.forward, mlp_backward, m, d);
  else
    dense_mlp(s.forward, mlp_backward, m, d, m.ffn_hidden, "mlp", true);
  mark_recomputed(s.forward, mlp, moe ? kRecomputeMoe : kRecomputeMlp);
  dropout_add(s.forward, "mlp.dropout_add", d, true);
  dropout_add(s.backward, "mlp.dropout_add", d, false);
  // Under torchtitan's op-level checkpointing a gated MLP's matmuls are the layer's fifth to seventh (gate,
  // up, down): up reruns; a plain one's sixth is its second (fc2).
  if (!moe && m.gated_mlp)
    torchtitan_op_recompute(
        s.forward, mlp - 1, {},
        {Gemm{"mlp.up_proj", d.tokens, static_cast<double>(m.ffn_hidden) / d.shard.tp, d.hidden}}, d);
  else if (!moe)
    torchtitan_op_recompute(s.forward, mlp - 1, {"mlp.fc2.fwd"}, {}, d);
  s.backward.insert(s.backward.end(), mlp_backward.begin(), mlp_backward.end());
  const std::size_t norm_backward_at = s.backward.size();
  norm_backward(s.backward, "mlp_norm", d, norm_parameters(m));
  if (moe) {  // Megatron's moe_router graph begins at the block's norm
    mark_graph_region(s.forward, 0, kGraphMoeRouter, 1);
    mark_graph_region(s.backward, norm_backward_at, kGraphMoeRouter);
  }
  mark_graph_region(s.forward, 0, moe ? kGraphMoe : kGraphMlp);
  mark_graph_region(s.backward, 0, moe ? kGraphMoe : kGraphMlp);
  return s;
}

}  // namespace

LayerSteps transformer_layer_steps(const TransformerConfig& m, const LayerSharding& shard, bool moe,
                                   bool local_attention) {
  Dims d(m, shard);
  if (local_attention) {
    d.window = m.window_size;
    d.chunk = m.attention_chunk;
  }
  const LayerSteps attention = attention_block(m, shard, d);
  const LayerSteps mlp = mlp_block(m, d, moe);
  LayerSteps s = attention;
  s.forward.insert(s.forward.end(), mlp.forward.begin(), mlp.forward.end());
  s.backward = mlp.backward;
  s.backward.insert(s.backward.end(), attention.backward.begin(), attention.backward.end());
  return s;
}

LayerSteps hybrid_layer_steps(const TransformerConfig& m, const LayerSharding& shard, char block) {
  Dims d(m, shard);
  switch (block) {
    case 'M':
      return mamba_block(m, shard, d);
    case '*':
      return attention_block(m, shard, d);
    case '-':
      return mlp_block(m, d, false);
    case 'E':
      return mlp_block(m, d, true);
    default:
      throw Error(std::string("hybrid layer pattern: unknown block '") + block + "' (M, *, -, E)");
  }
}

LayerSteps embedding_steps(const TransformerConfig& m, const LayerSharding& shard) {
  const Dims d(m, shard);
  const double rows = static_cast<double>(m.vocab) / shard.tp, elements = d.tokens * d.hidden;
  const std::vector<std::int64_t> shape = {whole(d.tokens), whole(rows), m.hidden};
  LayerSteps s;
  s.forward.push_back(kernel_step("embedding.fwd", ComputeKind::Embedding, Pass::Forward, shard.activation, 0,
                                  d.tokens * 8 + 2 * elements * d.e, shape));
  leave_tp_region(s.forward, "embedding", d);
  dropout_add(s.forward, "embedding.dropout", d, true);
  dropout_add(s.backward, "embedding.dropout", d, false);
  leave_tp_region_backward(s.backward, "embedding", d);
  // Zero the fp32 gradient table's shard, then scatter-add the token gradients into it.
  s.backward.push_back(kernel_step(
      "embedding.bwd_weight", ComputeKind::Embedding, Pass::BackwardWeight, shard.activation, elements,
      rows * m.hidden * kGradBytes + d.tokens * 8 + elements * (d.e + 2 * kGradBytes), shape));
  return s;
}

namespace {

// The loss over this GPU's `logits` (tokens x its vocabulary share), bytes per logit as each implementation
// moves them (cross_entropy_fusion.h), e the logits' 16 bits:
// - Unfused: the fp32 copy (e + 4), max (4), subtract (8), exp (8), sum (4) and the division into the
//   softmax kept for backward (8); backward, the in-place scaling by the loss gradient (8) and the cast back
//   (4 + e). Across TP ranks, all-reduces of the maxima, the target logits and the sums of exponentials.
// - Native: the copy with the max (e + 4), subtract-exp-sum (8), the division (8); backward one pass
//   reading the softmax, writing it scaled and its 16-bit cast (8 + e). All-reduces of the maxima, then of
//   the target logits and the sums together.
// - TransformerEngine: the online softmax (e), the loss-and-gradient pass writing the gradient over the
//   logits (2e); backward the in-place scaling (2e), one kernel. One all-gather of each token's (max, sum,
//   target logit) from every TP rank.
// - PyTorch: the fp32 copy (e + 4), log_softmax (its max and sum passes and the output pass: 3 reads and a
//   write, 16), nll_loss; backward nll_loss's zero-filled gradient (4), log_softmax's backward (its sum
//   pass and the output pass, 16) and the cast back (4 + e), four kernels. Across TP ranks (torchtitan's
//   loss parallelism) the unfused all-reduces.
void cross_entropy_steps(LayerSteps& s, const Dims& d, double logits, CrossEntropyFusion fusion,
                         const std::vector<std::int64_t>& shape) {
  const double e = d.e;
  double forward_bytes = e + 36, backward_bytes = 12 + e, forward_kernels = 1, backward_kernels = 1;
  if (fusion == CrossEntropyFusion::Native) {
    forward_bytes = e + 20, backward_bytes = 8 + e, forward_kernels = 3;
  } else if (fusion == CrossEntropyFusion::TransformerEngine) {
    forward_bytes = 3 * e, backward_bytes = 2 * e, forward_kernels = 2;
  } else if (fusion == CrossEntropyFusion::PyTorch) {
    forward_bytes = e + 20, backward_bytes = 24 + e, forward_kernels = 3, backward_kernels = 4;
  }
  s.forward.push_back(kernel_step("cross_entropy.fwd", ComputeKind::Softmax, Pass::Forward,
                                  d.shard.activation, 5 * logits, logits * forward_bytes, shape));
  s.forward.back().launches = forward_kernels;
  const int tp = d.shard.tp;
  if (tp > 1 && fusion == CrossEntropyFusion::TransformerEngine) {
    s.forward.push_back(collective_step("cross_entropy.tp_all_gather", CollectiveKind::AllGather,
                                        LayerGroup::TensorParallel, d.tokens * 12 * tp));
  } else if (tp > 1) {
    const std::vector<std::pair<const char*, double>> reduced =
        fusion == CrossEntropyFusion::Native
            ? std::vector<std::pair<const char*, double>>{{"max", 4}, {"target_sum_exp", 8}}
            : std::vector<std::pair<const char*, double>>{{"max", 4}, {"target", 4}, {"sum_exp", 4}};
    for (const auto& [what, bytes_per_token] : reduced)
      s.forward.push_back(collective_step(std::string("cross_entropy.tp_all_reduce_") + what,
                                          CollectiveKind::AllReduce, LayerGroup::TensorParallel,
                                          d.tokens * bytes_per_token));
  }
  s.backward.push_back(kernel_step("cross_entropy.bwd_data", ComputeKind::Softmax, Pass::BackwardData,
                                   d.shard.activation, 2 * logits, logits * backward_bytes, shape));
  s.backward.back().launches = backward_kernels;
}

}  // namespace

LayerSteps lm_head_steps(const TransformerConfig& m, const LayerSharding& shard) {
  const Dims d(m, shard);
  const double rows = static_cast<double>(m.vocab) / shard.tp, logits = d.tokens * rows;
  // Transformer Engine keeps the output layer in 16 bits under FP8 training.
  const Gemm head{"lm_head", d.tokens, rows, d.hidden};
  const std::vector<std::int64_t> shape = {whole(d.tokens), whole(rows)};
  LayerSteps s;
  norm_forward(s.forward, "final_norm", d);
  enter_tp_region(s.forward, "lm_head", d);
  gemm_forward(s.forward, head, d, shard.activation);
  cross_entropy_steps(s, d, logits, shard.cross_entropy, shape);
  column_parallel_backward(s.backward, head, d, shard.activation, shard.sp);
  norm_backward(s.backward, "final_norm", d, norm_parameters(m));
  return s;
}

LayerSteps mtp_steps(const TransformerConfig& m, const LayerSharding& shard) {
  const Dims d(m, shard);
  const Gemm eh_proj{"mtp.eh_proj", d.tokens, d.hidden, 2 * d.hidden / shard.tp};
  const LayerSteps layer = transformer_layer_steps(m, shard, is_moe_layer(m, m.layers - 1),
                                                   is_local_attention_layer(m, m.layers - 1));
  const LayerSteps head = lm_head_steps(m, shard);
  LayerSteps s;
  for (int k = 0; k < m.mtp_layers; ++k) {
    const std::string prefix = "mtp" + std::to_string(k) + ".";
    const auto named = [&](std::vector<LayerStep> steps) {
      for (LayerStep& step : steps) step.name = prefix + step.name;
      return steps;
    };
    Steps f, b;
    norm_forward(f, "enorm", d);
    norm_forward(f, "hnorm", d);
    gemm_forward(f, eh_proj, d, shard.gemm);
    leave_tp_region(f, "eh_proj", d);
    f.insert(f.end(), layer.forward.begin(), layer.forward.end());
    f.insert(f.end(), head.forward.begin(), head.forward.end());
    b.insert(b.end(), head.backward.begin(), head.backward.end());
    b.insert(b.end(), layer.backward.begin(), layer.backward.end());
    leave_tp_region_backward(b, "eh_proj", d);
    row_parallel_backward(b, eh_proj, d, shard.gemm);
    norm_backward(b, "hnorm", d, norm_parameters(m));
    norm_backward(b, "enorm", d, norm_parameters(m));
    const Steps fn = named(std::move(f)), bn = named(std::move(b));
    s.forward.insert(s.forward.end(), fn.begin(), fn.end());
    // Backward runs the last module first.
    s.backward.insert(s.backward.begin(), bn.begin(), bn.end());
  }
  return s;
}

}  // namespace simtrain::workload
