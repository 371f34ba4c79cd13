// The shapes simtrain-calibrate measures, one list per kernel family, and the measured-table keys under
// which the simulator (simulator/cost/compute_cost.cc) looks each one up.
#pragma once

#include <cstdint>
#include <vector>

namespace simtrain::calibration::tool {

// C[m, n] = op(A)[m, k] . op(B)[k, n] with row-major operands, as PyTorch sees them: trans_b means B is
// stored [n, k] (nn.Linear's weight in forward), trans_a that A is stored [k, m] (the weight gradient).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  auto operator<=>(const GemmShape&) const = default;
};

// A 2-D convolution, keyed {n, c, h, w, k, r, s, stride, pad} for all three passes.
struct ConvShape {
  std::int64_t n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, stride = 1, pad = 0;
  std::int64_t out_h() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t out_w() const { return (w + 2 * pad - s) / stride + 1; }
  std::vector<std::int64_t> key() const { return {n, c, h, w, k, r, s, stride, pad}; }
  auto operator<=>(const ConvShape&) const = default;
};

// An NCHW activation tensor (batch norm); keyed by its element count, as the simulator keys batch_norm.
struct TensorShape {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  std::int64_t elements() const { return n * c * h * w; }
  auto operator<=>(const TensorShape&) const = default;
};

// Max pooling over an NCHW input; keyed by the input's element count.
struct PoolShape {
  TensorShape input;
  std::int64_t window = 2, stride = 2, pad = 0;
  std::int64_t out_h() const { return (input.h + 2 * pad - window) / stride + 1; }
  std::int64_t out_w() const { return (input.w + 2 * pad - window) / stride + 1; }
  auto operator<=>(const PoolShape&) const = default;
};

// Softmax over the last of [rows, cols] (the loss over classes or a vocabulary); keyed {rows, cols}.
struct SoftmaxShape {
  std::int64_t rows = 0, cols = 0;
  auto operator<=>(const SoftmaxShape&) const = default;
};

// Scaled-dot-product attention; keyed {batch, heads, seq, head_dim}.
struct AttentionShape {
  std::int64_t batch = 0, heads = 0, seq = 0, head_dim = 0;
  std::vector<std::int64_t> key() const { return {batch, heads, seq, head_dim}; }
  auto operator<=>(const AttentionShape&) const = default;
};

struct ShapeSet {
  std::vector<GemmShape> gemms;
  std::vector<ConvShape> convs;
  std::vector<TensorShape> batch_norms;
  std::vector<PoolShape> pools;
  std::vector<std::int64_t> activations;  // element counts (ReLU, GELU: the same memory-bound kernel)
  std::vector<SoftmaxShape> softmaxes;
  std::vector<AttentionShape> attentions;

  bool empty() const;
  void append(const ShapeSet& other);
  // Sorts every list and drops repeats: a model repeats the same layer shapes many times.
  void deduplicate();
};

// The three GEMMs of an nn.Linear layer over `tokens` rows (batch x sequence): forward {tokens, out, in}
// with B transposed, data gradient {tokens, in, out} plain, weight gradient {out, in, tokens} with A
// transposed, as simulator/workload/layer_kernels.cc shapes them.
void add_linear(ShapeSet& set, std::int64_t tokens, std::int64_t in, std::int64_t out);

// The GEMMs of every pointwise convolution (1x1, stride 1, no padding) in `set`, added as add_linear shapes
// them over the n h w pixels: cuDNN runs such a convolution as a GEMM when that is faster, and the
// simulator costs it as the lesser of the two (simulator/cost/compute_cost.h).
void add_pointwise_conv_gemms(ShapeSet& set);

}  // namespace simtrain::calibration::tool
