// The Mamba-2 mixer block of a hybrid model on one GPU under tensor parallelism.
#include "simulator/workload/layer_builders.h"
#include "simulator/workload/ssd_kernels.h"

namespace simtrain::workload::layer_builders {
namespace {

void push_ssd_kernels(Steps& steps, const std::vector<SsdKernel>& kernels, Pass pass, const Dims& d,
                      double heads) {
  for (const SsdKernel& k : kernels) {
    steps.push_back(kernel_step("mamba." + k.name,
                                k.matmul ? ComputeKind::Attention : ComputeKind::Elementwise, pass,
                                d.shard.activation, k.flops, k.bytes, {whole(d.tokens * heads)}));
    steps.back().launches = k.launches;
  }
}

}  // namespace

// The Mamba-2 mixer block as Megatron-Core's MambaMixer trains it under TP (heads and groups split over TP
// ranks): norm; the column-parallel in_proj to z, x, B, C and dt; the (sequence, batch) -> (batch, sequence)
// copy of its output (a view, no copy, for one sequence per micro-batch); mamba_split_conv1d_scan_combined's
// kernels (ssd_kernels.h: the conv1d and the chunked SSD scan gated by silu(z)); the copy back; the grouped
// RMSNorm; the row-parallel out_proj; residual. The backward mirrors it.
LayerSteps mamba_block(const TransformerConfig& m, const LayerSharding& shard, const Dims& d) {
  const double tp = shard.tp, heads = m.mamba_heads / tp, groups = m.mamba_groups / tp;
  const double inner = heads * m.mamba_head_dim, projected = 2 * inner + 2 * groups * m.mamba_state + heads;
  const Gemm in_proj{"mamba.in_proj", d.tokens, projected, d.hidden};
  const Gemm out_proj{"mamba.out_proj", d.tokens, d.hidden, inner};
  const SsdShape ssd{d.tokens,
                     heads,
                     static_cast<double>(m.mamba_head_dim),
                     groups,
                     static_cast<double>(m.mamba_state),
                     static_cast<double>(m.mamba_conv_kernel),
                     d.e};
  const bool transposes = shard.micro_batch > 1;
  const auto copy = [&](Steps& steps, const std::string& name, Pass pass, double width) {
    if (transposes)
      steps.push_back(elementwise(name, ComputeKind::Elementwise, pass, d, d.tokens * width, 1, 1, 0));
  };
  LayerSteps s;
  Steps& f = s.forward;
  norm_forward(f, "input_norm", d);
  enter_tp_region(f, "mamba.in_proj", d);
  gemm_forward(f, in_proj, d, shard.gemm);
  copy(f, "mamba.in_proj.transpose.fwd", Pass::Forward, projected);
  push_ssd_kernels(f, ssd_forward_kernels(ssd), Pass::Forward, d, heads);
  copy(f, "mamba.scan.transpose.fwd", Pass::Forward, inner);
  f.push_back(
      elementwise("mamba.norm.fwd", ComputeKind::LayerNorm, Pass::Forward, d, d.tokens * inner, 1, 1, 5));
  Steps& b = s.backward;
  block_output(f, b, out_proj, "mamba.out_proj", "mamba.dropout_add", d);
  b.push_back(elementwise("mamba.norm.bwd_data", ComputeKind::LayerNorm, Pass::BackwardData, d,
                          d.tokens * inner, 2, 1, 8));
  copy(b, "mamba.scan.transpose.bwd_data", Pass::BackwardData, inner);
  push_ssd_kernels(b, ssd_backward_kernels(ssd), Pass::BackwardData, d, heads);
  copy(b, "mamba.in_proj.transpose.bwd_data", Pass::BackwardData, projected);
  column_parallel_backward(b, in_proj, d, shard.gemm, shard.sp);
  norm_backward(b, "input_norm", d, norm_parameters(m));
  mark_graph_region(f, 0, kGraphMamba);
  mark_graph_region(b, 0, kGraphMamba);
  return s;
}

}  // namespace simtrain::workload::layer_builders
