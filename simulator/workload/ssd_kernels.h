// The kernels a Mamba-2 mixer's sequence part launches in training: mamba_ssm's
// mamba_split_conv1d_scan_combined (the memory-efficient path Megatron-Core's MambaMixer trains with), i.e.
// the causal conv1d over x, B and C, then the chunked SSD scan of _mamba_chunk_scan_combined_fwd/_bwd
// (mamba_ssm/ops/triton/ssd_combined.py) with the gate silu(z) applied inside its last kernel. Each kernel
// reads and writes its own tensors through HBM, the chunk states in fp32, and the backward pass recomputes
// the conv1d and the forward's chunk states before its own eleven kernels, so the scan moves several times
// the bytes of its inputs and outputs; costing it as one fused kernel undercounts both its traffic and its
// launches.
#pragma once

#include <string>
#include <vector>

namespace simtrain::workload {

// Tokens per SSD chunk: Megatron-Core's MambaMixer chunk_size.
constexpr double kSsdChunk = 128;

// One GPU's share of a mixer: `tokens` (micro-batch x sequence), the heads and groups it holds under tensor
// parallelism, the head size P, the state size N, the conv1d's taps, and the activations' bytes per element.
struct SsdShape {
  double tokens = 0, heads = 0, head_dim = 0, groups = 0, state = 0, conv_taps = 0;
  double element_bytes = 2;
};

// One kernel of the scan. `matmul` kernels multiply chunk tiles on the tensor cores (Triton's tl.dot) and
// cost as fused attention-like kernels do; the others stream memory. `launches` counts the eager PyTorch ops
// a step stands for (the backward's reverse cumulative sum is three, and two adds).
struct SsdKernel {
  std::string name;
  bool matmul = false;
  double flops = 0, bytes = 0;
  double launches = 1;
};

// The forward FLOPs Megatron-LM's count gives the conv1d and the scan (as for attention, the whole square of
// each chunk, where the kernels visit its causal half): 2 x taps per conv1d channel, 2 Q P + 4 N P per token
// and head, 2 Q N per token and group.
double ssd_model_flops(const SsdShape& shape);

// The forward pass's kernels, in launch order: conv1d, chunk cumsum, chunk states, state passing, C B^T per
// chunk, chunk scan (writing the gated output and the ungated one the backward needs).
std::vector<SsdKernel> ssd_forward_kernels(const SsdShape& shape);
// The backward pass's kernels, in launch order, recomputation included.
std::vector<SsdKernel> ssd_backward_kernels(const SsdShape& shape);

}  // namespace simtrain::workload
