// The GPU kernels each layer type launches in forward and backward, with the FLOPs and HBM bytes that the
// cost model turns into durations. Traffic follows what PyTorch's CUDA kernels read and write.
#include <utility>

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/attention_work.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/ssd_kernels.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload {
namespace {

using trace::ComputeKind;
using trace::ComputeSpec;
using trace::Pass;

// What every kernel builder needs besides the layer's own dims.
struct Context {
  const Layer& layer;
  double n;                                // micro-batch
  DType matmul;                            // GEMMs, convolutions, attention
  DType activation;                        // memory-bound kernels
  double e;                                // bytes per activation element
  double we;                               // bytes per weight element as GEMMs read it
  static constexpr double kGradBytes = 4;  // fp32 parameter gradients
};

ComputeSpec spec(ComputeKind kind, Pass pass, DType dtype, double flops, double bytes,
                 std::vector<std::int64_t> shape) {
  ComputeSpec kernel;
  kernel.kind = kind;
  kernel.pass = pass;
  kernel.dtype = dtype;
  kernel.flops = flops;
  kernel.bytes = bytes;
  kernel.shape = std::move(shape);
  return kernel;
}

// A memory-bound kernel over `elements` elements, reading `reads` and writing `writes` tensors of that size.
ComputeSpec elementwise(const Context& c, ComputeKind kind, Pass pass, double elements, double reads,
                        double writes, double flops_per_element) {
  return spec(kind, pass, c.activation, flops_per_element * elements, (reads + writes) * elements * c.e,
              {static_cast<std::int64_t>(elements)});
}

double dim(const Context& c, std::size_t i) {
  if (i >= c.layer.dims.size()) throw Error("layer " + c.layer.name + " has too few dims for its type");
  return static_cast<double>(c.layer.dims[i]);
}

LayerKernels conv(const Context& c) {
  const auto& d = c.layer.dims;
  const std::int64_t n = static_cast<std::int64_t>(c.n);
  const std::int64_t p = zoo::conv_output_size(d.at(1), d.at(4), d.at(6), d.at(7));
  const std::int64_t q = zoo::conv_output_size(d.at(2), d.at(5), d.at(6), d.at(7));
  const double x = c.n * dim(c, 0) * dim(c, 1) * dim(c, 2);
  const double y = c.n * dim(c, 3) * static_cast<double>(p * q);
  const double weights = dim(c, 3) * dim(c, 0) * dim(c, 4) * dim(c, 5);
  const double flops = 2 * y * dim(c, 0) * dim(c, 4) * dim(c, 5);
  const std::vector<std::int64_t> shape = {n, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]};
  LayerKernels k;
  k.forward.push_back(
      spec(ComputeKind::Conv, Pass::Forward, c.matmul, flops, (x + y) * c.e + weights * c.we, shape));
  if (c.layer.input_needs_grad) {
    k.backward.push_back(
        spec(ComputeKind::Conv, Pass::BackwardData, c.matmul, flops, (y + x) * c.e + weights * c.we, shape));
  }
  k.backward.push_back(spec(ComputeKind::Conv, Pass::BackwardWeight, c.matmul, flops,
                            (x + y) * c.e + weights * Context::kGradBytes, shape));
  return k;
}

LayerKernels linear(const Context& c) {
  const double m = c.n * dim(c, 0), in = dim(c, 1), out = dim(c, 2);
  const auto mi = static_cast<std::int64_t>(m), ii = c.layer.dims[1], oi = c.layer.dims[2];
  const double flops = 2 * m * in * out;
  LayerKernels k;
  k.forward.push_back(spec(ComputeKind::Gemm, Pass::Forward, c.matmul, flops,
                           (m * in + m * out) * c.e + in * out * c.we, {mi, oi, ii}));
  if (c.layer.input_needs_grad) {
    k.backward.push_back(spec(ComputeKind::Gemm, Pass::BackwardData, c.matmul, flops,
                              (m * out + m * in) * c.e + in * out * c.we, {mi, ii, oi}));
  }
  // A tied weight still gets its gradient here; it accumulates into the embedding's.
  k.backward.push_back(spec(ComputeKind::Gemm, Pass::BackwardWeight, c.matmul, flops,
                            (m * out + m * in) * c.e + in * out * Context::kGradBytes, {oi, ii, mi}));
  return k;
}

// Training-mode BatchNorm reads x once for the batch statistics and again to normalise; backward reads x and
// dy twice (reductions for dgamma/dbeta, then dx) and produces dx, dgamma and dbeta in one kernel.
LayerKernels batchnorm(const Context& c) {
  const double elements = c.n * dim(c, 0) * dim(c, 1) * dim(c, 2);
  LayerKernels k;
  k.forward.push_back(elementwise(c, ComputeKind::BatchNorm, Pass::Forward, elements, 2, 1, 4));
  k.backward.push_back(elementwise(c, ComputeKind::BatchNorm, Pass::BackwardData, elements, 4, 1, 8));
  return k;
}

// A row of a LayerNorm fits on chip: one read of x. PyTorch computes dx and (dgamma, dbeta) in two kernels.
LayerKernels layernorm(const Context& c) {
  const double elements = c.n * dim(c, 0) * dim(c, 1);
  LayerKernels k;
  k.forward.push_back(elementwise(c, ComputeKind::LayerNorm, Pass::Forward, elements, 1, 1, 5));
  k.backward.push_back(elementwise(c, ComputeKind::LayerNorm, Pass::BackwardData, elements, 2, 1, 8));
  ComputeSpec weight = elementwise(c, ComputeKind::LayerNorm, Pass::BackwardWeight, elements, 2, 0, 4);
  weight.bytes += c.layer.parameters * Context::kGradBytes;
  k.backward.push_back(weight);
  return k;
}

// ReLU reads y and dy in backward, GELU and tanh x (or y) and dy: three tensors either way.
LayerKernels activation(const Context& c, double flops_per_element) {
  const double elements = c.n * dim(c, 0);
  LayerKernels k;
  k.forward.push_back(
      elementwise(c, ComputeKind::Activation, Pass::Forward, elements, 1, 1, flops_per_element));
  k.backward.push_back(
      elementwise(c, ComputeKind::Activation, Pass::BackwardData, elements, 2, 1, 2 * flops_per_element));
  return k;
}

// silu(gate) * up: forward reads gate and up; backward reads gate, up and dh, writes dgate and dup.
LayerKernels swiglu(const Context& c) {
  const double elements = c.n * dim(c, 0) * dim(c, 1);
  LayerKernels k;
  k.forward.push_back(elementwise(c, ComputeKind::Activation, Pass::Forward, elements, 2, 1, 6));
  k.backward.push_back(elementwise(c, ComputeKind::Activation, Pass::BackwardData, elements, 3, 2, 12));
  return k;
}

LayerKernels pool(const Context& c, bool max) {
  const auto& d = c.layer.dims;
  const double in = c.n * dim(c, 0) * dim(c, 1) * dim(c, 2);
  const double out = c.n * dim(c, 0) *
                     static_cast<double>(zoo::conv_output_size(d.at(1), d.at(3), d.at(4), d.at(5)) *
                                         zoo::conv_output_size(d.at(2), d.at(3), d.at(4), d.at(5)));
  const double window = dim(c, 3) * dim(c, 3);
  const double indices = max ? out * 8 : 0;  // int64 argmax per output
  LayerKernels k;
  k.forward.push_back(spec(ComputeKind::Pool, Pass::Forward, c.activation, out * window,
                           (in + out) * c.e + indices, {static_cast<std::int64_t>(in)}));
  k.backward.push_back(spec(ComputeKind::Pool, Pass::BackwardData, c.activation, in,
                            (out + in) * c.e + indices, {static_cast<std::int64_t>(in)}));
  return k;
}

// The add itself has no backward work, but where the residual stream forks its two gradients are summed.
LayerKernels add(const Context& c) {
  const double elements = c.n * dim(c, 0);
  LayerKernels k;
  k.forward.push_back(
      elementwise(c, ComputeKind::Elementwise, Pass::Forward, elements, dim(c, 1), 1, dim(c, 1) - 1));
  if (dim(c, 2) != 0)
    k.backward.push_back(elementwise(c, ComputeKind::Elementwise, Pass::BackwardData, elements, 2, 1, 1));
  return k;
}

// torch.cat copies every input; in backward each input's slice of the gradient is summed into the gradient
// that input already has from its other consumers.
LayerKernels concat(const Context& c) {
  const double elements = c.n * dim(c, 0);
  LayerKernels k;
  k.forward.push_back(elementwise(c, ComputeKind::Elementwise, Pass::Forward, elements, 1, 1, 0));
  k.backward.push_back(elementwise(c, ComputeKind::Elementwise, Pass::BackwardData, elements, 2, 1, 1));
  return k;
}

// Dropout writes (forward) and reads (backward) a one-byte mask besides the tensor.
LayerKernels dropout(const Context& c) {
  const double elements = c.n * dim(c, 0);
  LayerKernels k;
  for (Pass pass : {Pass::Forward, Pass::BackwardData}) {
    ComputeSpec kernel = elementwise(c, ComputeKind::Elementwise, pass, elements, 1, 1, 2);
    kernel.bytes += elements;
    (pass == Pass::Forward ? k.forward : k.backward).push_back(kernel);
  }
  return k;
}

// A gather of fp32 rows forward; backward zeroes the whole fp32 gradient table, then scatter-adds dy into it.
LayerKernels embedding(const Context& c) {
  const double tokens = c.n * dim(c, 0), elements = tokens * dim(c, 2), table = dim(c, 1) * dim(c, 2);
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(tokens), c.layer.dims.at(1),
                                           c.layer.dims.at(2)};
  LayerKernels k;
  k.forward.push_back(
      spec(ComputeKind::Embedding, Pass::Forward, c.activation, 0, tokens * 8 + elements * (4 + c.e), shape));
  k.backward.push_back(
      spec(ComputeKind::Embedding, Pass::BackwardWeight, c.activation, elements,
           table * Context::kGradBytes + tokens * 8 + elements * (c.e + 2 * Context::kGradBytes), shape));
  return k;
}

// x + p with p broadcast over the batch: the input gradient is dy itself; p's gradient sums dy over the
// batch.
LayerKernels param_add(const Context& c) {
  const double elements = c.n * dim(c, 0), parameters = dim(c, 1);
  LayerKernels k;
  ComputeSpec forward = elementwise(c, ComputeKind::Elementwise, Pass::Forward, elements, 1, 1, 1);
  forward.bytes += parameters * c.e;
  k.forward.push_back(forward);
  ComputeSpec weight = elementwise(c, ComputeKind::Elementwise, Pass::BackwardWeight, elements, 1, 0, 1);
  weight.bytes += parameters * Context::kGradBytes;
  k.backward.push_back(weight);
  return k;
}

// Prepending the class token copies the patch embeddings (flattened and transposed) into a new tensor.
LayerKernels class_token(const Context& c) {
  const double in = c.n * dim(c, 0) * dim(c, 1), out = c.n * (dim(c, 0) + 1) * dim(c, 1);
  LayerKernels k;
  k.forward.push_back(spec(ComputeKind::Elementwise, Pass::Forward, c.activation, 0, (in + out) * c.e,
                           {static_cast<std::int64_t>(out)}));
  const double token_grads = c.n * dim(c, 1);
  k.backward.push_back(spec(ComputeKind::Elementwise, Pass::BackwardWeight, c.activation, token_grads,
                            token_grads * c.e + dim(c, 1) * Context::kGradBytes,
                            {static_cast<std::int64_t>(token_grads)}));
  return k;
}

LayerKernels rope(const Context& c) {
  const double elements = c.n * dim(c, 0) * dim(c, 1);
  LayerKernels k;
  k.forward.push_back(elementwise(c, ComputeKind::Elementwise, Pass::Forward, elements, 1, 1, 3));
  k.backward.push_back(elementwise(c, ComputeKind::Elementwise, Pass::BackwardData, elements, 1, 1, 3));
  return k;
}

// One fused flash-attention kernel per pass: scores never reach HBM, so traffic is Q, K, V, O forward and
// Q, K, V, O, dO, dQ, dK, dV backward (K, V and their gradients with kv_heads heads under grouped-query
// attention). Backward recomputes the scores: 2.5x the forward FLOPs. Under a causal mask the kernels skip
// the empty tiles (attention_work.h); the model's FLOPs for MFU still count the full square.
// Values and outputs may be narrower than queries and keys (dims[5], multi-latent attention); a sliding
// window (dims[6]) bounds the tiles visited; chunks (dims[7]) run as a batch of chunk-long sequences.
LayerKernels attention(const Context& c) {
  const double heads = dim(c, 1), head_dim = dim(c, 2);
  const double kv_heads = c.layer.dims.size() > 4 ? dim(c, 4) : heads;
  const double v_dim = c.layer.dims.size() > 5 ? dim(c, 5) : head_dim;
  const double window = c.layer.dims.size() > 6 ? dim(c, 6) : 0;
  // Chunked attention: the padded chunks as a batch of chunk-long sequences (attention_shape.h).
  const double chunks = attention_chunks(dim(c, 0), c.layer.dims.size() > 7 ? dim(c, 7) : 0);
  const double seq = chunks > 1 ? dim(c, 7) : dim(c, 0), sequences = c.n * chunks;
  const double tensor = sequences * seq * heads * (head_dim + v_dim) / 2;
  const double kv_tensor = sequences * seq * kv_heads * (head_dim + v_dim) / 2;
  const bool causal = c.layer.dims.size() > 3 && c.layer.dims[3] != 0;
  const double fraction = window > 0 && causal ? sliding_window_tile_fraction(seq, window)
                                               : flash_attention_tile_fraction(seq, causal);
  const double flops = 2 * sequences * heads * seq * seq * (head_dim + v_dim) * fraction;
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(sequences), c.layer.dims.at(1),
                                           static_cast<std::int64_t>(seq), c.layer.dims.at(2)};
  LayerKernels k;
  k.forward.push_back(spec(ComputeKind::Attention, Pass::Forward, c.matmul, flops,
                           (2 * tensor + 2 * kv_tensor) * c.e, shape));
  k.backward.push_back(spec(ComputeKind::Attention, Pass::BackwardData, c.matmul, 2.5 * flops,
                            (4 * tensor + 4 * kv_tensor) * c.e, shape));
  k.forward.back().kv_tiles = k.backward.back().kv_tiles = flash_attention_kv_tiles(seq, fraction);
  return k;
}

// The Mamba-2 mixer's sequence part as one kernel per pass holding the bytes and FLOPs of the kernels
// mamba_split_conv1d_scan_combined launches (ssd_kernels.h: the conv1d and the chunked SSD scan, its
// recomputation in the backward) and of the RMSNorm after it. dims {tokens, heads, head_dim, state, groups,
// conv_kernel}.
LayerKernels mamba_ssm(const Context& c) {
  const SsdShape ssd{c.n * dim(c, 0), dim(c, 1), dim(c, 2), dim(c, 4), dim(c, 3), dim(c, 5), c.e};
  const double inner = ssd.tokens * ssd.heads * ssd.head_dim;
  const auto total = [](const std::vector<SsdKernel>& kernels, double flops, double bytes) {
    for (const SsdKernel& k : kernels) flops += k.flops, bytes += k.bytes;
    return std::pair{flops, bytes};
  };
  const auto [forward_flops, forward_bytes] = total(ssd_forward_kernels(ssd), 5 * inner, 2 * inner * c.e);
  const auto [backward_flops, backward_bytes] = total(ssd_backward_kernels(ssd), 8 * inner, 3 * inner * c.e);
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(c.n), c.layer.dims.at(1),
                                           c.layer.dims.at(0), c.layer.dims.at(2)};
  LayerKernels k;
  k.forward.push_back(
      spec(ComputeKind::Attention, Pass::Forward, c.matmul, forward_flops, forward_bytes, shape));
  k.backward.push_back(
      spec(ComputeKind::Attention, Pass::BackwardData, c.matmul, backward_flops, backward_bytes, shape));
  return k;
}

// Autocast runs log_softmax in fp32: forward reads the 16-bit logits and writes fp32 log-probabilities (the
// NLL gather is negligible); backward reads them and writes the logits' gradient.
LayerKernels cross_entropy(const Context& c) {
  const double elements = c.n * dim(c, 0) * dim(c, 1);
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(c.n * dim(c, 0)), c.layer.dims.at(1)};
  LayerKernels k;
  k.forward.push_back(
      spec(ComputeKind::Softmax, Pass::Forward, c.activation, 5 * elements, elements * (c.e + 4), shape));
  k.backward.push_back(spec(ComputeKind::Softmax, Pass::BackwardData, c.activation, 2 * elements,
                            elements * (4 + c.e), shape));
  return k;
}

}  // namespace

LayerKernels kernels_for(const Layer& layer, const Model& model, int batch, Precision precision) {
  if (batch < 1)
    throw Error("kernels_for: batch must be at least 1 (layer " + layer.name + " of " + model.name + ")");
  const Context c{layer,
                  static_cast<double>(batch),
                  matmul_dtype(precision),
                  activation_dtype(precision),
                  static_cast<double>(bytes_per_element(activation_dtype(precision))),
                  static_cast<double>(bytes_per_element(matmul_dtype(precision)))};
  const std::string& type = layer.type;
  if (type == "conv") return conv(c);
  if (type == "linear") return linear(c);
  if (type == "batchnorm") return batchnorm(c);
  if (type == "layernorm" || type == "rmsnorm") return layernorm(c);
  if (type == "relu") return activation(c, 1);
  if (type == "gelu" || type == "gelu_new")
    return activation(c, 8);  // tanh approximation or erf: ~8 FLOPs per element
  if (type == "tanh") return activation(c, 5);
  if (type == "swiglu") return swiglu(c);
  if (type == "maxpool" || type == "avgpool") return pool(c, type == "maxpool");
  if (type == "add") return add(c);
  if (type == "concat") return concat(c);
  if (type == "dropout") return dropout(c);
  if (type == "embedding") return embedding(c);
  if (type == "param_add") return param_add(c);
  if (type == "class_token") return class_token(c);
  if (type == "rope") return rope(c);
  if (type == "attention") return attention(c);
  if (type == "mamba_ssm") return mamba_ssm(c);
  if (type == "cross_entropy") return cross_entropy(c);
  throw Error("layer " + layer.name + " of " + model.name + " has unknown type '" + type + "'");
}

}  // namespace simtrain::workload
