// The layer builders' shared blocks (layer_builders.h): steps, GEMMs and their backward passes, low-precision
// casts, the tensor-parallel region's collectives, norms, residual adds and the dense MLP, after
// Megatron-LM's ColumnParallelLinear / RowParallelLinear and Transformer Engine's cast kernels.
#include "simulator/workload/layer_builders.h"

#include <algorithm>

namespace simtrain::workload::layer_builders {
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
                          bool overlaps_next_kernel) {
  LayerStep step;
  step.type = LayerStep::Type::Collective;
  step.name = std::move(name);
  step.collective = kind;
  step.group = group;
  step.bytes = bytes;
  step.overlaps_next_kernel = overlaps_next_kernel;
  return step;
}

LayerStep chunked(LayerStep step, const Dims& d) {
  step.chunked_with_gemm = d.shard.tp_comm_overlap && d.shard.sp && d.shard.tp > 1;
  return step;
}

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
void fp8_cast(Steps& steps, const std::string& name, Pass pass, const Dims& d, double elements) {
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

namespace {

// Whether Transformer Engine runs an FP8 GEMM of this pass with the split accumulator (its recipes'
// MMParams): the data- and weight-gradient GEMMs always, the forward one only in the blockwise recipe.
bool split_accumulator(Pass pass, const Dims& d, DType dtype) {
  return dtype == DType::FP8 && (pass != Pass::Forward || d.shard.quant == QuantRecipe::Blockwise);
}

}  // namespace

void gemm_forward(Steps& steps, const Gemm& g, const Dims& d, DType dtype) {
  if (dtype == DType::FP8 || dtype == DType::FP4) fp8_cast(steps, g.name, Pass::Forward, d, g.m * g.k);
  const double ge = storage_bytes_per_element(dtype);
  steps.push_back(kernel_step(g.name + ".fwd", ComputeKind::Gemm, Pass::Forward, dtype, 2 * g.m * g.n * g.k,
                              g.m * g.k * ge + g.weights * g.k * g.n * ge + g.m * g.n * d.e,
                              g.shape(Pass::Forward)));
  steps.back().kernel.split_accumulator = split_accumulator(Pass::Forward, d, dtype);
}

LayerStep gemm_data_grad(const Gemm& g, const Dims& d, DType dtype) {
  const double ge = storage_bytes_per_element(dtype);
  LayerStep step =
      kernel_step(g.name + ".bwd_data", ComputeKind::Gemm, Pass::BackwardData, dtype, 2 * g.m * g.n * g.k,
                  g.m * g.n * ge + g.weights * g.k * g.n * ge + g.m * g.k * d.e, g.shape(Pass::BackwardData));
  step.kernel.split_accumulator = split_accumulator(Pass::BackwardData, d, dtype);
  return step;
}

// The weight gradient, accumulated into the main_grad buffer by the GEMM itself (gradient accumulation
// fusion: the GEMM's epilogue reads the fp32 accumulator and writes it back, C = A B + C, every micro-batch)
// or, as Megatron-LM's backward hook did before it, by an add kernel after a 16-bit GEMM output. The
// accumulator's traffic holds a grouped GEMM with few tokens per expert to the memory roofline.
void gemm_weight_grad(Steps& steps, const Gemm& g, const Dims& d, DType dtype) {
  const double ge = storage_bytes_per_element(dtype), weights = g.weights * g.k * g.n;
  const bool fused = d.shard.gradient_accumulation_fusion;
  steps.push_back(kernel_step(g.name + ".bwd_weight", ComputeKind::Gemm, Pass::BackwardWeight, dtype,
                              2 * g.m * g.n * g.k,
                              (g.m * g.n + g.m * g.k) * ge + weights * (fused ? 2 * kGradBytes : d.e),
                              g.shape(Pass::BackwardWeight)));
  steps.back().kernel.split_accumulator = split_accumulator(Pass::BackwardWeight, d, dtype);
  if (!fused) {
    // main_grad += grad: reads the 16-bit gradient, reads and writes the accumulator.
    steps.push_back(kernel_step(g.name + ".grad_accumulate", ComputeKind::Elementwise, Pass::BackwardWeight,
                                d.shard.activation, weights, weights * (d.e + 2 * d.shard.main_grad_bytes),
                                {whole(weights)}));
  }
}

void row_parallel_backward(Steps& steps, const Gemm& g, const Dims& d, DType dtype) {
  if (dtype == DType::FP8 || dtype == DType::FP4)
    fp8_cast(steps, g.name + ".grad", Pass::BackwardData, d, g.m * g.n);
  steps.push_back(gemm_data_grad(g, d, dtype));
  gemm_weight_grad(steps, g, d, dtype);
}

// Backward of a column-parallel linear: the input gradient is summed over TP ranks while the weight gradient
// runs. With sequence parallelism the saved input shard is first all-gathered (during the data gradient)
// and the input gradient is reduce-scattered back to sequence shards.
void column_parallel_backward(Steps& steps, const Gemm& g, const Dims& d, DType dtype, bool sp) {
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
void enter_tp_region(Steps& steps, const std::string& name, const Dims& d) {
  if (d.shard.tp > 1 && d.shard.sp)
    steps.push_back(chunked(collective_step(name + ".sp_all_gather", CollectiveKind::AllGather,
                                            LayerGroup::TensorParallel, d.activation_bytes()),
                            d));
}

// Leaving it after a row-parallel linear: all-reduce, or reduce-scatter with SP.
void leave_tp_region(Steps& forward, const std::string& name, const Dims& d) {
  if (d.shard.tp == 1) return;
  forward.push_back(
      chunked(collective_step(name + (d.shard.sp ? ".sp_reduce_scatter" : ".tp_all_reduce"),
                              d.shard.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce,
                              LayerGroup::TensorParallel, d.activation_bytes()),
              d));
}
// Its backward: the gradient arriving in the sequence-sharded region is all-gathered with SP.
void leave_tp_region_backward(Steps& backward, const std::string& name, const Dims& d) {
  if (d.shard.tp > 1 && d.shard.sp)
    backward.push_back(chunked(collective_step(name + ".sp_all_gather_grad", CollectiveKind::AllGather,
                                               LayerGroup::TensorParallel, d.activation_bytes()),
                               d));
}

void mark_recomputed(Steps& steps, std::size_t from, RecomputeModules modules) {
  for (std::size_t i = from; i < steps.size(); ++i) steps[i].recompute |= modules;
}

void torchtitan_op_recompute(Steps& steps, std::size_t from, const std::vector<std::string>& rerun_whole,
                             const std::vector<Gemm>& rerun_part, const Dims& d) {
  if (!d.shard.torchtitan_op_recompute) return;
  for (std::size_t i = from; i < steps.size(); ++i) {
    LayerStep& step = steps[i];
    const bool saved = step.type != LayerStep::Type::Kernel || step.kernel.kind == ComputeKind::Gemm ||
                       step.kernel.kind == ComputeKind::Attention;
    const bool whole = std::find(rerun_whole.begin(), rerun_whole.end(), step.name) != rerun_whole.end();
    if (!saved || whole) step.recompute |= kRecomputeTorchtitanOps;
  }
  for (const Gemm& g : rerun_part) {
    const std::size_t at = steps.size();
    gemm_forward(steps, g, d, d.shard.gemm);
    for (std::size_t i = at; i < steps.size(); ++i) {
      steps[i].recompute |= kRecomputeTorchtitanOps;
      steps[i].recompute_only = true;
    }
  }
}

void mark_graph_region(Steps& steps, std::size_t from, CudaGraphModules modules, std::size_t to) {
  for (std::size_t i = from; i < std::min(to, steps.size()); ++i) steps[i].graph |= modules;
}

// An RMSNorm written as x * rsqrt(mean(x^2) + eps) over x.float(), cast back and scaled by its weight
// (torchtitan's RMSNorm, Llama's reference code), run eagerly. Forward, eight kernels, in 16-bit elements
// read and written per row element (an fp32 tensor counts 2): the upcast (1, 2), the square (2, 2), the mean
// (2, 0), eps and rsqrt (per row), the product (2, 2), the downcast (2, 1) and the weight's product (1, 1).
// Backward, autograd's kernels for each: the weight's product (1, 1), the downcast's (1, 2), the product's
// gradient for x (2, 2) and for the rsqrt (a product 4, 2 and a row sum 2, 0), rsqrt's and eps's (per
// row), the mean's (0, 2), the square's (2, 2 and 4, 2), the two gradients' sum (4, 2) and the upcast's
// (2, 1): twelve; the weight's gradient is a product and a sum over rows (3, 1; two kernels).
constexpr double kEagerRmsNormForwardReads = 10, kEagerRmsNormForwardWrites = 8,
                 kEagerRmsNormForwardKernels = 8;
constexpr double kEagerRmsNormDataReads = 22, kEagerRmsNormDataWrites = 16, kEagerRmsNormDataKernels = 12;
constexpr double kEagerRmsNormWeightReads = 3, kEagerRmsNormWeightWrites = 1, kEagerRmsNormWeightKernels = 2;

void norm_forward(Steps& steps, const std::string& name, const Dims& d) {
  const bool eager = d.eager_rms_norm;
  steps.push_back(elementwise(name + ".fwd", ComputeKind::LayerNorm, Pass::Forward, d,
                              d.norm_tokens * d.hidden, eager ? kEagerRmsNormForwardReads : 1,
                              eager ? kEagerRmsNormForwardWrites : 1, 5));
  if (eager) steps.back().launches = kEagerRmsNormForwardKernels;
}

void norm_backward(Steps& steps, const std::string& name, const Dims& d, double parameters) {
  const double elements = d.norm_tokens * d.hidden;
  const bool eager = d.eager_rms_norm;
  steps.push_back(elementwise(name + ".bwd_data", ComputeKind::LayerNorm, Pass::BackwardData, d, elements,
                              eager ? kEagerRmsNormDataReads : 2, eager ? kEagerRmsNormDataWrites : 1, 8));
  if (eager) steps.back().launches = kEagerRmsNormDataKernels;
  LayerStep weight =
      elementwise(name + ".bwd_weight", ComputeKind::LayerNorm, Pass::BackwardWeight, d, elements,
                  eager ? kEagerRmsNormWeightReads : 2, eager ? kEagerRmsNormWeightWrites : 0, 4);
  if (eager) weight.launches = kEagerRmsNormWeightKernels;
  weight.kernel.bytes += parameters * kGradBytes;
  steps.push_back(weight);
}

void dropout_add(Steps& steps, const std::string& name, const Dims& d, bool forward) {
  const double elements = d.norm_tokens * d.hidden;
  LayerStep step =
      forward ? elementwise(name + ".fwd", ComputeKind::Elementwise, Pass::Forward, d, elements, 2, 1, 3)
              : elementwise(name + ".bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d, elements, 1,
                            1, 2);
  step.kernel.bytes += elements;
  steps.push_back(step);
}

void block_output(Steps& forward, Steps& backward, const Gemm& projection, const std::string& region,
                  const std::string& residual, const Dims& d) {
  gemm_forward(forward, projection, d, d.shard.gemm);
  leave_tp_region(forward, region, d);
  dropout_add(forward, residual, d, true);
  dropout_add(backward, residual, d, false);
  leave_tp_region_backward(backward, region, d);
  row_parallel_backward(backward, projection, d, d.shard.gemm);
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
  // The activation's reads and writes per FFN element (16-bit units): fused, a gated MLP's kernel reads gate
  // and up and writes their product (backward: reads three, writes two), a plain one reads and writes one
  // (backward: two, one). Eagerly, silu(gate) * up is two kernels (the gate read, silu written; silu and up
  // read, the product written), and its backward three (the product's two gradients and silu's, each reading
  // two tensors and writing one). A plain GeLU is one ATen kernel either way.
  const bool eager_glu = d.shard.eager_pointwise && m.gated_mlp;
  const double forward_reads = eager_glu ? 3 : gated(m), forward_writes = eager_glu ? 2 : 1;
  const double backward_reads = eager_glu ? 6 : gated(m) + 1, backward_writes = eager_glu ? 3 : gated(m);
  forward.push_back(elementwise(name + ".act.fwd", ComputeKind::Activation, Pass::Forward, d, elements,
                                forward_reads, forward_writes, m.gated_mlp ? 6 : 8));
  if (eager_glu) forward.back().launches = 2;
  gemm_forward(forward, fc2, d, d.shard.gemm);
  if (collectives) {
    leave_tp_region(forward, name + ".fc2", d);
    leave_tp_region_backward(backward, name + ".fc2", d);
  }
  row_parallel_backward(backward, fc2, d, d.shard.gemm);
  backward.push_back(elementwise(name + ".act.bwd_data", ComputeKind::Activation, Pass::BackwardData, d,
                                 elements, backward_reads, backward_writes, 12));
  if (eager_glu) backward.back().launches = 3;
  if (collectives) {
    column_parallel_backward(backward, fc1, d, d.shard.gemm, d.shard.sp);
  } else {
    backward.push_back(gemm_data_grad(fc1, d, d.shard.gemm));
    gemm_weight_grad(backward, fc1, d, d.shard.gemm);
  }
}

}  // namespace simtrain::workload::layer_builders
