// Kernels of one transformer layer on one GPU under tensor, sequence, context and expert parallelism, after
// Megatron-LM's ColumnParallelLinear / RowParallelLinear, vocabulary-parallel embedding and cross-entropy,
// Transformer Engine's ring attention and the all-to-all MoE token dispatcher.
#include "simulator/workload/transformer_kernels.h"

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/attention_work.h"

namespace simtrain::workload {
namespace {

using trace::CollectiveKind;
using trace::ComputeKind;
using trace::ComputeSpec;
using trace::Pass;

constexpr double kGradBytes = 4;  // Megatron accumulates weight gradients in fp32 main_grad buffers

// The dimensions every builder needs, per GPU.
struct Dims {
  Dims(const TransformerConfig& m, const LayerSharding& s)
      : shard(s),
        tokens(static_cast<double>(s.micro_batch) * s.seq_len / s.cp),
        norm_tokens(s.sp ? tokens / s.tp : tokens),
        hidden(m.hidden),
        head_dim(qk_head_dim(m)),
        v_head_dim(workload::v_head_dim(m)),
        heads(static_cast<double>(m.heads) / s.tp),
        kv_heads(workload::kv_heads(m) / s.tp),
        e(bytes_per_element(s.activation)),
        ge(storage_bytes_per_element(s.gemm)),
        causal(m.causal) {
    if (s.micro_batch < 1 || s.seq_len < 1 || s.tp < 1 || s.cp < 1 || s.ep < 1)
      throw Error("transformer kernels: micro-batch, sequence length and parallel sizes must be positive");
    if (m.hidden < 1 || m.heads < 1 || m.layers < 1)
      throw Error("transformer kernels: the model needs layers, hidden size and heads");
  }
  const LayerSharding& shard;
  double tokens, norm_tokens, hidden, head_dim, v_head_dim, heads, kv_heads, e, ge;
  bool causal;
  int window = 0;  // keys a query sees on a sliding-window layer; 0 = all
  double activation_bytes() const { return tokens * hidden * e; }  // what a TP collective moves
};

std::int64_t whole(double value) { return static_cast<std::int64_t>(value); }

LayerStep kernel_step(std::string name, ComputeKind kind, Pass pass, DType dtype, double flops, double bytes,
                      std::vector<std::int64_t> shape) {
  LayerStep step;
  step.name = std::move(name);
  step.kernel.kind = kind;
  step.kernel.pass = pass;
  step.kernel.dtype = dtype;
  step.kernel.flops = flops;
  step.kernel.bytes = bytes;
  step.kernel.shape = std::move(shape);
  return step;
}

LayerStep collective_step(std::string name, CollectiveKind kind, LayerGroup group, double bytes,
                          bool overlaps_next_kernel = false) {
  LayerStep step;
  step.type = LayerStep::Type::Collective;
  step.name = std::move(name);
  step.collective = kind;
  step.group = group;
  step.bytes = bytes;
  step.overlaps_next_kernel = overlaps_next_kernel;
  return step;
}

// Under Transformer Engine's userbuffers, a sequence-parallel collective runs chunked with its GEMM.
LayerStep chunked(LayerStep step, const Dims& d) {
  step.chunked_with_gemm = d.shard.tp_comm_overlap && d.shard.sp && d.shard.tp > 1;
  return step;
}

// A memory-bound kernel over `elements` elements reading `reads` and writing `writes` such tensors.
LayerStep elementwise(std::string name, ComputeKind kind, Pass pass, const Dims& d, double elements,
                      double reads, double writes, double flops_per_element) {
  return kernel_step(std::move(name), kind, pass, d.shard.activation, flops_per_element * elements,
                     (reads + writes) * elements * d.e, {whole(elements)});
}

// Transformer Engine quantizes a low-precision GEMM's 16-bit operand (the activation forward, the output
// gradient backward) before the GEMM, in both layouts: the rowwise copy for this GEMM and the columnwise
// (transposed) copy the weight-gradient GEMM reads. What the kernels move per element, by recipe
// (TransformerEngine's transformer_engine/common/recipe and cast kernels):
// - delayed: one fused cast-transpose reading 16 bits and writing two FP8 copies; the amax is recorded on
//   the way and reduced once per step (its scale comes from earlier steps' amax history);
// - tensorwise: current scaling needs this tensor's amax before casting: an amax pass reads it first;
// - blockwise: one kernel, FP8 copies in both directions plus an fp32 scale per 128 elements each;
// - mxfp8: one kernel, FP8 copies along rows and along columns plus an e8m0 scale per 32 elements each;
// - nvfp4: an amax pass (the per-tensor fp32 scale), then 4-bit copies in both directions plus an e4m3
//   scale per 16 elements each (the random Hadamard transform of the weight-gradient operands is fused in).
// Casts run on the vector units: the memory-bound roofline costs them, which is why FP8 training gains less
// than the tensor cores' 2x. Weights are quantized once per step and their cost is not modelled here.
void fp8_cast(std::vector<LayerStep>& steps, const std::string& name, Pass pass, const Dims& d,
              double elements) {
  if (d.shard.gemm != DType::FP8 && d.shard.gemm != DType::FP4) return;
  const QuantRecipe recipe = d.shard.quant;
  if (recipe == QuantRecipe::Tensorwise || recipe == QuantRecipe::NVFP4)
    steps.push_back(kernel_step(name + ".amax", ComputeKind::Elementwise, pass, d.shard.activation, elements,
                                elements * d.e, {whole(elements)}));
  double written = 2 * d.ge;  // rowwise and columnwise copies
  if (recipe == QuantRecipe::Blockwise) written += 2 * 4.0 / 128;
  if (recipe == QuantRecipe::MXFP8) written += 2 * 1.0 / 32;
  if (recipe == QuantRecipe::NVFP4) written += 2 * 1.0 / 16;
  steps.push_back(kernel_step(name + (d.shard.gemm == DType::FP4 ? ".fp4_cast" : ".fp8_cast"),
                              ComputeKind::Elementwise, pass, d.shard.activation, elements,
                              elements * (d.e + written), {whole(elements)}));
}

// Y[m x n] = X[m x k] W[k x n] forward and its two backward GEMMs (shapes as the zoo's: forward {m, n, k},
// data gradient {m, k, n}, weight gradient {n, k, m}); `weights` = the weight matrices of a grouped GEMM
// (local experts). Each builder takes the dtype, as some GEMMs stay in 16 bits under FP8 training.
struct Gemm {
  std::string name;
  double m, n, k;
  double weights = 1;
  // The kernel's shape from its pass's {rows, columns, inner} order; a grouped GEMM's rows (tokens) split
  // evenly over its weights, one GEMM per weight: {m / weights, n, k, weights} (forward and data gradient)
  // and {n, k, m / weights, weights} (weight gradient), as the cost model reads a grouped GEMM.
  std::vector<std::int64_t> shape(Pass pass) const {
    const double rows = m / weights;
    std::vector<std::int64_t> s = pass == Pass::Forward        ? std::vector{whole(rows), whole(n), whole(k)}
                                  : pass == Pass::BackwardData ? std::vector{whole(rows), whole(k), whole(n)}
                                                               : std::vector{whole(n), whole(k), whole(rows)};
    if (weights > 1) s.push_back(whole(weights));
    return s;
  }
};

void gemm_forward(std::vector<LayerStep>& steps, const Gemm& g, const Dims& d, DType dtype) {
  if (dtype == DType::FP8 || dtype == DType::FP4) fp8_cast(steps, g.name, Pass::Forward, d, g.m * g.k);
  const double ge = storage_bytes_per_element(dtype);
  steps.push_back(kernel_step(g.name + ".fwd", ComputeKind::Gemm, Pass::Forward, dtype, 2 * g.m * g.n * g.k,
                              g.m * g.k * ge + g.weights * g.k * g.n * ge + g.m * g.n * d.e,
                              g.shape(Pass::Forward)));
}

LayerStep gemm_data_grad(const Gemm& g, const Dims& d, DType dtype) {
  const double ge = storage_bytes_per_element(dtype);
  return kernel_step(g.name + ".bwd_data", ComputeKind::Gemm, Pass::BackwardData, dtype, 2 * g.m * g.n * g.k,
                     g.m * g.n * ge + g.weights * g.k * g.n * ge + g.m * g.k * d.e,
                     g.shape(Pass::BackwardData));
}

// The weight gradient, accumulated into the main_grad buffer by the GEMM itself (gradient accumulation
// fusion) or, as Megatron-LM's backward hook did before it, by an add kernel after a 16-bit GEMM output.
void gemm_weight_grad(std::vector<LayerStep>& steps, const Gemm& g, const Dims& d, DType dtype) {
  const double ge = storage_bytes_per_element(dtype), weights = g.weights * g.k * g.n;
  const bool fused = d.shard.gradient_accumulation_fusion;
  steps.push_back(kernel_step(
      g.name + ".bwd_weight", ComputeKind::Gemm, Pass::BackwardWeight, dtype, 2 * g.m * g.n * g.k,
      (g.m * g.n + g.m * g.k) * ge + weights * (fused ? kGradBytes : d.e), g.shape(Pass::BackwardWeight)));
  if (!fused) {
    // main_grad += grad: reads the 16-bit gradient, reads and writes the accumulator.
    steps.push_back(kernel_step(g.name + ".grad_accumulate", ComputeKind::Elementwise, Pass::BackwardWeight,
                                d.shard.activation, weights, weights * (d.e + 2 * d.shard.main_grad_bytes),
                                {whole(weights)}));
  }
}

// Backward of a row-parallel linear (its input is local): data then weight gradient.
void row_parallel_backward(std::vector<LayerStep>& steps, const Gemm& g, const Dims& d, DType dtype) {
  if (dtype == DType::FP8 || dtype == DType::FP4)
    fp8_cast(steps, g.name + ".grad", Pass::BackwardData, d, g.m * g.n);
  steps.push_back(gemm_data_grad(g, d, dtype));
  gemm_weight_grad(steps, g, d, dtype);
}

// Backward of a column-parallel linear: the input gradient is summed over TP ranks while the weight gradient
// runs. With sequence parallelism the saved input shard is first all-gathered (during the data gradient)
// and the input gradient is reduce-scattered back to sequence shards.
void column_parallel_backward(std::vector<LayerStep>& steps, const Gemm& g, const Dims& d, DType dtype,
                              bool sp) {
  const int tp = d.shard.tp;
  // The gradient's cast first, so that the gather hides under the data-gradient GEMM itself.
  if (dtype == DType::FP8 || dtype == DType::FP4)
    fp8_cast(steps, g.name + ".grad", Pass::BackwardData, d, g.m * g.n);
  if (tp > 1 && sp)
    steps.push_back(collective_step(g.name + ".sp_all_gather_input", CollectiveKind::AllGather,
                                    LayerGroup::TensorParallel, g.m * g.k * d.e, true));
  steps.push_back(gemm_data_grad(g, d, dtype));
  // Without the asynchronous all-reduce (Megatron-LM before late 2021) the backward waits for it: the
  // weight gradient then runs after it, which takes the same time as Megatron's order (weight gradient,
  // then the blocking all-reduce). Sequence parallelism always overlapped its reduce-scatter.
  if (tp > 1)
    steps.push_back(collective_step(g.name + (sp ? ".sp_reduce_scatter_grad" : ".tp_all_reduce_grad"),
                                    sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce,
                                    LayerGroup::TensorParallel, g.m * g.k * d.e,
                                    sp || d.shard.async_tp_all_reduce));
  gemm_weight_grad(steps, g, d, dtype);
}

// Entering a tensor-parallel region: an all-gather of the sequence shards with SP (its backward: a
// reduce-scatter, issued by column_parallel_backward); nothing forward without SP.
void enter_tp_region(std::vector<LayerStep>& steps, const std::string& name, const Dims& d) {
  if (d.shard.tp > 1 && d.shard.sp)
    steps.push_back(chunked(collective_step(name + ".sp_all_gather", CollectiveKind::AllGather,
                                            LayerGroup::TensorParallel, d.activation_bytes()),
                            d));
}

// Leaving it after a row-parallel linear: all-reduce, or reduce-scatter with SP.
void leave_tp_region(std::vector<LayerStep>& forward, const std::string& name, const Dims& d) {
  if (d.shard.tp == 1) return;
  forward.push_back(
      chunked(collective_step(name + (d.shard.sp ? ".sp_reduce_scatter" : ".tp_all_reduce"),
                              d.shard.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce,
                              LayerGroup::TensorParallel, d.activation_bytes()),
              d));
}
// Its backward: the gradient arriving in the sequence-sharded region is all-gathered with SP.
void leave_tp_region_backward(std::vector<LayerStep>& backward, const std::string& name, const Dims& d) {
  if (d.shard.tp > 1 && d.shard.sp)
    backward.push_back(chunked(collective_step(name + ".sp_all_gather_grad", CollectiveKind::AllGather,
                                               LayerGroup::TensorParallel, d.activation_bytes()),
                               d));
}

using Steps = std::vector<LayerStep>;

void norm_forward(Steps& steps, const std::string& name, const Dims& d) {
  steps.push_back(elementwise(name + ".fwd", ComputeKind::LayerNorm, Pass::Forward, d,
                              d.norm_tokens * d.hidden, 1, 1, 5));
}

void norm_backward(Steps& steps, const std::string& name, const Dims& d, double parameters) {
  const double elements = d.norm_tokens * d.hidden;
  steps.push_back(
      elementwise(name + ".bwd_data", ComputeKind::LayerNorm, Pass::BackwardData, d, elements, 2, 1, 8));
  LayerStep weight =
      elementwise(name + ".bwd_weight", ComputeKind::LayerNorm, Pass::BackwardWeight, d, elements, 2, 0, 4);
  weight.kernel.bytes += parameters * kGradBytes;
  steps.push_back(weight);
}

// Megatron's fused bias-dropout-add on the residual stream (one-byte mask).
void dropout_add(Steps& steps, const std::string& name, const Dims& d, bool forward) {
  const double elements = d.norm_tokens * d.hidden;
  LayerStep step =
      forward ? elementwise(name + ".fwd", ComputeKind::Elementwise, Pass::Forward, d, elements, 2, 1, 3)
              : elementwise(name + ".bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d, elements, 1,
                            1, 2);
  step.kernel.bytes += elements;
  steps.push_back(step);
}

// A mixer block's output (attention's or Mamba's): the row-parallel projection, the TP region's exit and the
// residual add forward; their mirror opens `backward`, which must still be empty.
void block_output(Steps& forward, Steps& backward, const Gemm& projection, const std::string& region,
                  const std::string& residual, const Dims& d) {
  gemm_forward(forward, projection, d, d.shard.gemm);
  leave_tp_region(forward, region, d);
  dropout_add(forward, residual, d, true);
  dropout_add(backward, residual, d, false);
  leave_tp_region_backward(backward, region, d);
  row_parallel_backward(backward, projection, d, d.shard.gemm);
}

double norm_parameters(const TransformerConfig& m) { return (m.rms_norm ? 1.0 : 2.0) * m.hidden; }
double gated(const TransformerConfig& m) { return m.gated_mlp ? 2.0 : 1.0; }

// Fused flash attention over the local heads: the tiles of the square the kernel visits (about half under a
// causal mask, attention_work.h; the model's FLOPs for MFU count the whole square); backward recomputes the
// scores (2.5x the forward FLOPs). With context parallelism each rank runs cp rounds of its queries against
// the K/V chunk passed round the ring; `kernel` is one round, and load-balanced causal rounds each do about
// half a square's work too.
// Queries and keys are head_dim wide, values and outputs v_head_dim (they differ under multi-latent
// attention). A sliding-window layer visits the tiles its window reaches (attention_work.h).
void attention(Steps& forward, Steps& backward, const Dims& d) {
  const double keys = d.tokens / d.shard.micro_batch;  // keys of one round: the local sequence
  const double qo = d.tokens * d.heads * (d.head_dim + d.v_head_dim);     // Q and O
  const double kv = d.tokens * d.kv_heads * (d.head_dim + d.v_head_dim);  // K and V
  const double all_keys = d.tokens / d.shard.micro_batch * d.shard.cp;
  const double fraction = d.window > 0 ? sliding_window_tile_fraction(all_keys, d.window)
                                       : flash_attention_tile_fraction(all_keys, d.causal);
  const double flops = 2 * d.tokens * keys * d.heads * (d.head_dim + d.v_head_dim) * fraction;
  const std::vector<std::int64_t> shape = {d.shard.micro_batch, whole(d.heads), whole(keys),
                                           whole(d.head_dim)};
  LayerStep f = kernel_step("attention.fwd", ComputeKind::Attention, Pass::Forward, d.shard.activation, flops,
                            (qo + kv) * d.e, shape);
  LayerStep b = kernel_step("attention.bwd_data", ComputeKind::Attention, Pass::BackwardData,
                            d.shard.activation, 2.5 * flops, (2 * qo + 2 * kv) * d.e, shape);
  f.attention_core = true;
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
    step.attention_core = true;
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

// Column-parallel fc1 (gate and up when gated), activation, row-parallel fc2, with the TP region's
// collectives around them.
void dense_mlp(Steps& forward, Steps& backward, const TransformerConfig& m, const Dims& d, double ffn,
               const std::string& name, bool collectives) {
  const int tp = d.shard.tp;
  const Gemm fc1{name + ".fc1", d.tokens, ffn / tp * gated(m), d.hidden};
  const Gemm fc2{name + ".fc2", d.tokens, d.hidden, ffn / tp};
  const double elements = d.tokens * ffn / tp;
  if (collectives) enter_tp_region(forward, name, d);
  gemm_forward(forward, fc1, d, d.shard.gemm);
  forward.push_back(elementwise(name + ".act.fwd", ComputeKind::Activation, Pass::Forward, d, elements,
                                m.gated_mlp ? 2 : 1, 1, m.gated_mlp ? 6 : 8));
  gemm_forward(forward, fc2, d, d.shard.gemm);
  if (collectives) {
    leave_tp_region(forward, name + ".fc2", d);
    leave_tp_region_backward(backward, name + ".fc2", d);
  }
  row_parallel_backward(backward, fc2, d, d.shard.gemm);
  backward.push_back(elementwise(name + ".act.bwd_data", ComputeKind::Activation, Pass::BackwardData, d,
                                 elements, m.gated_mlp ? 3 : 2, m.gated_mlp ? 2 : 1, 12));
  if (collectives) {
    column_parallel_backward(backward, fc1, d, d.shard.gemm, d.shard.sp);
  } else {
    backward.push_back(gemm_data_grad(fc1, d, d.shard.gemm));
    gemm_weight_grad(backward, fc1, d, d.shard.gemm);
  }
}

// The host's launches for the grouped expert linears among steps[from...]: Transformer Engine's GroupedLinear
// runs one GEMM (and one quantization) per local expert in a loop of its C++ code. A quantization there is a
// bare launch call; a GEMM costs the host as much as an eager operator (cuBLASLt's setup: in the H200 Kineto
// traces aten::mm takes 76 us of CPU where an elementwise aten::mul takes 36 us), so each expert's GEMM is
// priced as a dispatch.
void launch_per_local_expert(Steps& steps, std::size_t from, double local_experts) {
  for (std::size_t i = from; i < steps.size(); ++i) {
    LayerStep& step = steps[i];
    if (step.type != LayerStep::Type::Kernel || step.name.rfind("moe.experts.fc", 0) != 0) continue;
    if (step.kernel.kind == ComputeKind::Gemm)
      step.launches = local_experts;
    else
      step.looped_kernels = local_experts - 1;
  }
}

// Router, all-to-all dispatch over the EP group, all-gather over the expert-TP group (experts are split
// over etp ranks: the TP group, or fewer ranks under MoE parallel folding, LayerSharding::etp), the local
// experts as grouped GEMMs, and the mirror back. Megatron needs sequence parallelism for MoE with TP: each
// TP rank routes tokens / tp tokens. Shared experts see every token, TP-sharded like a dense MLP (their
// collectives are taken to ride on the routed experts').
// The memory-bound kernels are Megatron-Core's all-to-all token dispatcher's (MoEAlltoAllTokenDispatcher,
// token_dispatcher.py): the fused router's scores, top-k and probabilities over tokens x experts; the
// permutation gathering each token's row once per chosen expert before the dispatch, and the unpermutation
// summing them back (weighted by the probabilities) after the combine; with several local experts behind an
// all-to-all, sort_chunks_by_idxs reorders the arrived rows from source-rank-major to expert-major before the
// experts and back after them. Each reads and writes every slot's row; their backwards are the mirror
// gathers and scatters.
void moe_mlp(Steps& forward, Steps& backward, const TransformerConfig& m, const Dims& d) {
  const int tp = d.shard.tp, ep = d.shard.ep, etp = d.shard.expert_tp();
  const double dispatched = d.tokens / tp * m.experts_per_token * d.shard.capacity_factor;
  const double arriving = dispatched * etp;  // token slots this rank's experts process (after the ETP gather)
  const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  const double local_experts = static_cast<double>(m.experts) / ep;
  const Gemm router{"moe.router", d.tokens / tp, static_cast<double>(m.experts), d.hidden};
  const Gemm fc1{"moe.experts.fc1", arriving, ffn / etp * gated(m), d.hidden, local_experts};
  const Gemm fc2{"moe.experts.fc2", arriving, d.hidden, ffn / etp, local_experts};
  const double slots = dispatched * d.hidden, elements = arriving * ffn / etp;
  const double scores = d.tokens / tp * static_cast<double>(m.experts);
  const bool sort_chunks = ep > 1 && local_experts > 1;
  const auto comm = [&](Steps& steps, const std::string& name, CollectiveKind kind) {
    const bool all_to_all = kind == CollectiveKind::AllToAll;
    if ((all_to_all ? ep : etp) == 1) return;
    steps.push_back(collective_step(
        name, kind, all_to_all ? LayerGroup::ExpertParallel : LayerGroup::ExpertTensorParallel,
        slots * d.e * (all_to_all ? 1 : etp)));
  };
  // A gather or scatter of `rows` hidden-wide rows: each read once and written once.
  const auto move_rows = [&](Steps& steps, const std::string& name, Pass pass, double rows) {
    steps.push_back(elementwise(name, ComputeKind::Elementwise, pass, d, rows * d.hidden, 1, 1, 1));
  };
  gemm_forward(forward, router, d, d.shard.activation);
  forward.push_back(
      elementwise("moe.router.topk.fwd", ComputeKind::Softmax, Pass::Forward, d, scores, 1, 2, 5));
  move_rows(forward, "moe.permute.fwd", Pass::Forward, dispatched);
  // Dropless: the all-to-all's split sizes and the grouped GEMM's rows per expert are read back to the host
  // (MoEAlltoAllTokenDispatcher's cuda sync point before the dispatch).
  forward.back().host_waits = !d.shard.moe_pad_to_capacity;
  const std::size_t experts_forward = forward.size(), experts_backward = backward.size();
  comm(forward, "moe.dispatch_all_to_all", CollectiveKind::AllToAll);
  comm(forward, "moe.tp_all_gather", CollectiveKind::AllGather);
  if (sort_chunks) move_rows(forward, "moe.sort_chunks.fwd", Pass::Forward, arriving);
  gemm_forward(forward, fc1, d, d.shard.gemm);
  forward.push_back(elementwise("moe.experts.act.fwd", ComputeKind::Activation, Pass::Forward, d, elements,
                                m.gated_mlp ? 2 : 1, 1, m.gated_mlp ? 6 : 8));
  gemm_forward(forward, fc2, d, d.shard.gemm);
  if (sort_chunks) move_rows(forward, "moe.unsort_chunks.fwd", Pass::Forward, arriving);
  comm(forward, "moe.tp_reduce_scatter", CollectiveKind::ReduceScatter);
  comm(forward, "moe.combine_all_to_all", CollectiveKind::AllToAll);
  forward.push_back(
      elementwise("moe.unpermute.fwd", ComputeKind::Elementwise, Pass::Forward, d, slots, 1, 1, 1));

  backward.push_back(
      elementwise("moe.unpermute.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d, slots, 1, 1, 1));
  comm(backward, "moe.combine_all_to_all.bwd", CollectiveKind::AllToAll);
  comm(backward, "moe.tp_all_gather.bwd", CollectiveKind::AllGather);
  if (sort_chunks) move_rows(backward, "moe.unsort_chunks.bwd_data", Pass::BackwardData, arriving);
  row_parallel_backward(backward, fc2, d, d.shard.gemm);
  backward.push_back(elementwise("moe.experts.act.bwd_data", ComputeKind::Activation, Pass::BackwardData, d,
                                 elements, m.gated_mlp ? 3 : 2, m.gated_mlp ? 2 : 1, 12));
  backward.push_back(gemm_data_grad(fc1, d, d.shard.gemm));
  gemm_weight_grad(backward, fc1, d, d.shard.gemm);
  launch_per_local_expert(forward, experts_forward, local_experts);
  launch_per_local_expert(backward, experts_backward, local_experts);
  if (sort_chunks) move_rows(backward, "moe.sort_chunks.bwd_data", Pass::BackwardData, arriving);
  comm(backward, "moe.tp_reduce_scatter.bwd", CollectiveKind::ReduceScatter);
  comm(backward, "moe.dispatch_all_to_all.bwd", CollectiveKind::AllToAll);
  move_rows(backward, "moe.permute.bwd_data", Pass::BackwardData, dispatched);
  backward.push_back(
      elementwise("moe.router.topk.bwd_data", ComputeKind::Softmax, Pass::BackwardData, d, scores, 2, 1, 4));
  backward.push_back(gemm_data_grad(router, d, d.shard.activation));
  gemm_weight_grad(backward, router, d, d.shard.activation);
  if (m.shared_experts > 0) dense_mlp(forward, backward, m, d, ffn * m.shared_experts, "moe.shared", false);
}

// An RMSNorm over `width`-wide latents of every local token (multi-latent attention's q and kv norms).
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
    gemm_forward(f, q_up, d, dtype);
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
  gemm_forward(f, kv_up, d, dtype);
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
  enter_tp_region(f, "qkv", d);
  Steps projection_backward;
  if (mla)
    projection_backward = mla_projections(f, m, d, shard.gemm);
  else
    gemm_forward(f, qkv, d, shard.gemm);
  // Llama-style models (RMSNorm) rotate q and k (rotary position embeddings).
  if (m.rms_norm)
    f.push_back(elementwise("rope.fwd", ComputeKind::Elementwise, Pass::Forward, d, rope, 1, 1, 3));
  Steps core_backward;
  // Ring attention (context parallelism) always runs the fused kernel, as Transformer Engine does.
  if (shard.flash_attention || shard.cp > 1)
    attention(f, core_backward, d);
  else
    unfused_attention(f, core_backward, d);
  Steps& b = s.backward;
  block_output(f, b, proj, "out_proj", "attention.dropout_add", d);
  b.insert(b.end(), core_backward.begin(), core_backward.end());
  if (m.rms_norm)
    b.push_back(elementwise("rope.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d, rope, 1, 1, 3));
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
  return s;
}

// The MLP (or MoE) block of a layer: norm, MLP, residual.
LayerSteps mlp_block(const TransformerConfig& m, const Dims& d, bool moe) {
  LayerSteps s;
  Steps mlp_backward;  // the MLP block's backward in execution order
  norm_forward(s.forward, "mlp_norm", d);
  if (moe)
    moe_mlp(s.forward, mlp_backward, m, d);
  else
    dense_mlp(s.forward, mlp_backward, m, d, m.ffn_hidden, "mlp", true);
  dropout_add(s.forward, "mlp.dropout_add", d, true);
  dropout_add(s.backward, "mlp.dropout_add", d, false);
  s.backward.insert(s.backward.end(), mlp_backward.begin(), mlp_backward.end());
  norm_backward(s.backward, "mlp_norm", d, norm_parameters(m));
  return s;
}

// The Mamba-2 mixer block as Megatron-Core's MambaMixer runs it under TP (heads and groups split over TP
// ranks): norm; the column-parallel in_proj to z, x, B, C and dt; the causal depthwise conv1d over x, B and C
// (memory-bound: every element read and written once, 2 x kernel FLOPs each); the chunked SSD scan
// (mamba_chunk_scan_combined, chunks of kSsdChunk tokens: per token and head 2 Q P for the intra-chunk
// outputs and 4 N P for the chunk states and their contribution, plus 2 Q N per group for C B^T; reads x,
// B, C and dt, writes y; the chunk states cross HBM in fp32), costed like a fused attention kernel whose
// backward does 2.5x its FLOPs; the gated RMSNorm of y by z; the row-parallel out_proj; residual.
constexpr double kSsdChunk = 128;  // Megatron-Core's MambaMixer chunk_size

LayerSteps mamba_block(const TransformerConfig& m, const LayerSharding& shard, const Dims& d) {
  const double tp = shard.tp, heads = m.mamba_heads / tp, groups = m.mamba_groups / tp;
  const double p = m.mamba_head_dim, n = m.mamba_state, inner = heads * p;
  const double conv_channels = inner + 2 * groups * n;
  const Gemm in_proj{"mamba.in_proj", d.tokens, 2 * inner + 2 * groups * n + heads, d.hidden};
  const Gemm out_proj{"mamba.out_proj", d.tokens, d.hidden, inner};
  const double ssd_flops = d.tokens * (heads * (2 * kSsdChunk * p + 4 * n * p) + groups * 2 * kSsdChunk * n);
  const double ssd_bytes =
      d.tokens * (2 * inner + 2 * groups * n + heads) * d.e + d.tokens / kSsdChunk * heads * p * n * 4 * 2;
  const std::vector<std::int64_t> shape = {d.shard.micro_batch, whole(heads), whole(d.tokens), whole(p)};
  LayerSteps s;
  Steps& f = s.forward;
  norm_forward(f, "input_norm", d);
  enter_tp_region(f, "mamba.in_proj", d);
  gemm_forward(f, in_proj, d, shard.gemm);
  f.push_back(elementwise("mamba.conv1d.fwd", ComputeKind::Elementwise, Pass::Forward, d,
                          d.tokens * conv_channels, 1, 1, 2 * m.mamba_conv_kernel));
  f.push_back(kernel_step("mamba.ssd_scan.fwd", ComputeKind::Attention, Pass::Forward, shard.activation,
                          ssd_flops, ssd_bytes, shape));
  f.push_back(elementwise("mamba.gated_norm.fwd", ComputeKind::LayerNorm, Pass::Forward, d, d.tokens * inner,
                          2, 1, 8));
  Steps& b = s.backward;
  block_output(f, b, out_proj, "mamba.out_proj", "mamba.dropout_add", d);
  b.push_back(elementwise("mamba.gated_norm.bwd_data", ComputeKind::LayerNorm, Pass::BackwardData, d,
                          d.tokens * inner, 3, 2, 12));
  b.push_back(kernel_step("mamba.ssd_scan.bwd_data", ComputeKind::Attention, Pass::BackwardData,
                          shard.activation, 2.5 * ssd_flops, 2 * ssd_bytes, shape));
  b.push_back(elementwise("mamba.conv1d.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d,
                          d.tokens * conv_channels, 2, 2, 4 * m.mamba_conv_kernel));
  column_parallel_backward(b, in_proj, d, shard.gemm, shard.sp);
  norm_backward(b, "input_norm", d, norm_parameters(m));
  return s;
}

}  // namespace

LayerSteps transformer_layer_steps(const TransformerConfig& m, const LayerSharding& shard, bool moe,
                                   bool sliding_window) {
  Dims d(m, shard);
  if (sliding_window) d.window = m.window_size;
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
  // Megatron's vocab-parallel cross-entropy runs in fp32 as separate PyTorch passes over the logits
  // (megatron/mpu/cross_entropy.py): the fp32 copy (e + 4 bytes per logit), max (4), subtract (8), exp
  // (8), sum (4) and the division into the softmax kept for backward (8); backward, the in-place scaling
  // by the loss gradient (8) and the cast back to 16 bits (4 + e).
  s.forward.push_back(kernel_step("cross_entropy.fwd", ComputeKind::Softmax, Pass::Forward, shard.activation,
                                  5 * logits, logits * (d.e + 4 + 4 + 8 + 8 + 4 + 8), shape));
  if (shard.tp > 1)
    for (const char* what : {"max", "target", "sum_exp"})
      s.forward.push_back(collective_step(std::string("cross_entropy.tp_all_reduce_") + what,
                                          CollectiveKind::AllReduce, LayerGroup::TensorParallel,
                                          d.tokens * 4));
  s.backward.push_back(kernel_step("cross_entropy.bwd_data", ComputeKind::Softmax, Pass::BackwardData,
                                   shard.activation, 2 * logits, logits * (8 + 4 + d.e), shape));
  column_parallel_backward(s.backward, head, d, shard.activation, shard.sp);
  norm_backward(s.backward, "final_norm", d, norm_parameters(m));
  return s;
}

LayerSteps mtp_steps(const TransformerConfig& m, const LayerSharding& shard) {
  const Dims d(m, shard);
  const Gemm eh_proj{"mtp.eh_proj", d.tokens, d.hidden, 2 * d.hidden / shard.tp};
  const LayerSteps layer =
      transformer_layer_steps(m, shard, is_moe_layer(m, m.layers - 1), is_window_layer(m, m.layers - 1));
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
