// The Mamba-2 mixer block of a hybrid model on one GPU under tensor parallelism.
#include "simulator/workload/layer_builders.h"

namespace simtrain::workload::layer_builders {

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

}  // namespace simtrain::workload::layer_builders
