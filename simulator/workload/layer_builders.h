// The building blocks transformer_kernels.cc, moe_kernels.cc and mamba_kernels.cc assemble layers from: the
// per-GPU dimensions, kernel and collective steps, GEMMs with their backward passes and low-precision casts,
// the tensor-parallel region's collectives, norms and residual adds. Internal to the workload library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload::layer_builders {

using trace::CollectiveKind;
using trace::ComputeKind;
using trace::Pass;
using Steps = std::vector<LayerStep>;

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
        causal(m.causal),
        eager_rms_norm(s.eager_pointwise && m.rms_norm) {
    if (s.micro_batch < 1 || s.seq_len < 1 || s.tp < 1 || s.cp < 1 || s.ep < 1)
      throw Error("transformer kernels: micro-batch, sequence length and parallel sizes must be positive");
    if (m.hidden < 1 || m.heads < 1 || m.layers < 1)
      throw Error("transformer kernels: the model needs layers, hidden size and heads");
  }
  const LayerSharding& shard;
  double tokens, norm_tokens, hidden, head_dim, v_head_dim, heads, kv_heads, e, ge;
  bool causal;
  // The norms are RMSNorms as a plain PyTorch model writes them, run eagerly
  // (LayerSharding::eager_pointwise); an eager LayerNorm is ATen's one fused kernel, as the fused builders
  // cost it.
  bool eager_rms_norm;
  int window = 0;  // keys a query sees on a sliding-window layer; 0 = all
  int chunk = 0;   // tokens per attention chunk on a chunked layer (attention_shape.h); 0 = none
  double activation_bytes() const { return tokens * hidden * e; }  // what a TP collective moves
};

inline std::int64_t whole(double value) { return static_cast<std::int64_t>(value); }

LayerStep kernel_step(std::string name, ComputeKind kind, Pass pass, DType dtype, double flops, double bytes,
                      std::vector<std::int64_t> shape);
LayerStep collective_step(std::string name, CollectiveKind kind, LayerGroup group, double bytes,
                          bool overlaps_next_kernel = false);
// Under Transformer Engine's userbuffers, a sequence-parallel collective runs chunked with its GEMM.
LayerStep chunked(LayerStep step, const Dims& d);
// A memory-bound kernel over `elements` elements reading `reads` and writing `writes` such tensors.
LayerStep elementwise(std::string name, ComputeKind kind, Pass pass, const Dims& d, double elements,
                      double reads, double writes, double flops_per_element);
// Transformer Engine's quantization of a low-precision GEMM's 16-bit operand (layer_builders.cc).
void fp8_cast(Steps& steps, const std::string& name, Pass pass, const Dims& d, double elements);

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

void gemm_forward(Steps& steps, const Gemm& g, const Dims& d, DType dtype);
LayerStep gemm_data_grad(const Gemm& g, const Dims& d, DType dtype);
// The weight gradient, accumulated into main_grad by the GEMM itself or by an add kernel after it.
void gemm_weight_grad(Steps& steps, const Gemm& g, const Dims& d, DType dtype);
// Backward of a row-parallel linear (its input is local): data then weight gradient.
void row_parallel_backward(Steps& steps, const Gemm& g, const Dims& d, DType dtype);
// Backward of a column-parallel linear, with its input gradient's TP reduction (and SP gather).
void column_parallel_backward(Steps& steps, const Gemm& g, const Dims& d, DType dtype, bool sp);

// The tensor-parallel region's collectives: entering it (SP all-gather), leaving it after a row-parallel
// linear (all-reduce, or SP reduce-scatter) and that exit's backward (SP all-gather).
void enter_tp_region(Steps& steps, const std::string& name, const Dims& d);
void leave_tp_region(Steps& forward, const std::string& name, const Dims& d);
void leave_tp_region_backward(Steps& backward, const std::string& name, const Dims& d);

// Marks steps[from...] as part of `modules` for selective recomputation (LayerStep::recompute).
void mark_recomputed(Steps& steps, std::size_t from, RecomputeModules modules);
// torchtitan's op-level checkpointing (kRecomputeTorchtitanOps), when the shard runs it: marks the pointwise
// kernels of `steps` from `from` on (not the GEMMs or the attention, whose outputs it saves) and the GEMMs
// named `rerun_whole` to rerun, and appends the matmuls `rerun_part` it recomputes out of fused GEMMs as
// recompute-only steps.
void torchtitan_op_recompute(Steps& steps, std::size_t from, const std::vector<std::string>& rerun_whole,
                             const std::vector<Gemm>& rerun_part, const Dims& d);
// Marks steps[from...to) (to: the end by default) as lying in the CUDA graph regions `modules`.
void mark_graph_region(Steps& steps, std::size_t from, CudaGraphModules modules, std::size_t to = SIZE_MAX);

void norm_forward(Steps& steps, const std::string& name, const Dims& d);
void norm_backward(Steps& steps, const std::string& name, const Dims& d, double parameters);
// Megatron's fused bias-dropout-add on the residual stream (one-byte mask).
void dropout_add(Steps& steps, const std::string& name, const Dims& d, bool forward);
// A mixer block's output (attention's or Mamba's): the row-parallel projection, the TP region's exit and the
// residual add forward; their mirror opens `backward`, which must still be empty.
void block_output(Steps& forward, Steps& backward, const Gemm& projection, const std::string& region,
                  const std::string& residual, const Dims& d);

inline double norm_parameters(const TransformerConfig& m) { return (m.rms_norm ? 1.0 : 2.0) * m.hidden; }
inline double gated(const TransformerConfig& m) { return m.gated_mlp ? 2.0 : 1.0; }

// Column-parallel fc1 (gate and up when gated), activation, row-parallel fc2; with `collectives`, the TP
// region's collectives around them.
void dense_mlp(Steps& forward, Steps& backward, const TransformerConfig& m, const Dims& d, double ffn,
               const std::string& name, bool collectives);

// The routed-expert MLP with its token dispatch (moe_kernels.cc).
void moe_mlp(Steps& forward, Steps& backward, const TransformerConfig& m, const Dims& d);
// The Mamba-2 mixer block (mamba_kernels.cc).
LayerSteps mamba_block(const TransformerConfig& m, const LayerSharding& shard, const Dims& d);

}  // namespace simtrain::workload::layer_builders
