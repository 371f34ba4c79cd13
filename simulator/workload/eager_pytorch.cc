// Implements eager_pytorch.h: each pass is a memory-bound kernel whose bytes are counted from the tensors it
// reads and writes.
#include "simulator/workload/eager_pytorch.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "simulator/trace/gemm_alignment.h"

namespace simtrain::workload {
namespace {

using trace::ComputeKind;
using trace::ComputeSpec;
using trace::Pass;

constexpr double kFp32Bytes = 4;

// A memory-bound pass over `elements` elements reading `read_bytes` and writing `write_bytes` per element.
ComputeSpec pass(ComputeKind kind, Pass which, DType dtype, double elements, double read_bytes,
                 double write_bytes) {
  ComputeSpec kernel;
  kernel.kind = kind;
  kernel.pass = which;
  kernel.dtype = dtype;
  kernel.flops = elements;
  kernel.bytes = elements * (read_bytes + write_bytes);
  kernel.shape = {static_cast<std::int64_t>(elements)};
  // An operand narrower than the output (an fp16 value promoted to fp32: an upcast, an fp32 + fp16 add) sends
  // PyTorch to its casting loop, unrolled_elementwise_kernel, not the vectorized one (the H200 traces: every
  // fp16-to-fp32 copy; fp32-to-fp16 casts have a vectorized kernel of their own).
  kernel.unvectorized = write_bytes > 0 && std::fmod(read_bytes, write_bytes) != 0;
  return kernel;
}

// A memory-bound pass whose operands are strided or broadcast views (a transposed tensor, a bias along
// rows): PyTorch runs it through elementwise_kernel's offset calculators, never vectorized.
ComputeSpec strided_pass(ComputeKind kind, Pass which, DType dtype, double elements, double read_bytes,
                         double write_bytes) {
  ComputeSpec kernel = pass(kind, which, dtype, elements, read_bytes, write_bytes);
  kernel.unvectorized = true;
  return kernel;
}

// torchvision's encoder block calls nn.MultiheadAttention with batch_first=True, which transposes its input
// to (sequence, batch, hidden) and runs F.multi_head_attention_forward: as the H200 trace of ViT-B/16 shows
// per layer, the transposed input is copied (reshape), the packed in-projection runs as a GEMM plus a
// separate strided bias add, the packed q, k, v are copied contiguous, and the output comes back transposed,
// so the residual adds read a strided operand and layer norm copies the fp32 stream contiguous first.
// Backward: unbind's gradient (three zero fills, three copies into the slices, two adds), the packed
// gradient copied back, the input gradient's reshape copy and the contiguous copies of the stream's gradient.
// `tokens` is batch x sequence, `hidden` the model width; e the activations' bytes per element.
LayerKernels torchvision_attention(LayerKernels kernels, double tokens, double hidden, DType dtype,
                                   double e) {
  const double f = kFp32Bytes;
  const double x = tokens * hidden, qkv = 3 * x;
  const auto strided = [&](Pass which, double elements, double read, double write) {
    return strided_pass(ComputeKind::Elementwise, which, dtype, elements, read, write);
  };
  const auto plain = [&](Pass which, double elements, double read, double write) {
    return pass(ComputeKind::Elementwise, which, dtype, elements, read, write);
  };
  kernels.forward.insert(kernels.forward.begin(), {strided(Pass::Forward, x, e, e),      // reshape
                                                   strided(Pass::Forward, qkv, e, e),    // bias add_
                                                   strided(Pass::Forward, qkv, e, e)});  // contiguous
  const Pass b = Pass::BackwardData;
  for (int i = 0; i < 3; ++i) kernels.backward.push_back(plain(b, qkv, 0, e));  // zeros
  for (int i = 0; i < 3; ++i) kernels.backward.push_back(plain(b, x, e, e));    // select_backward's copy
  for (int i = 0; i < 2; ++i) kernels.backward.push_back(plain(b, qkv, 2 * e, e));
  kernels.backward.push_back(strided(b, qkv, e, e));  // the packed gradient's reshape
  kernels.backward.push_back(strided(b, x, e, e));    // the input gradient's reshape
  kernels.backward.push_back(strided(b, x, f, f));    // the stream gradient made contiguous
  return kernels;
}

double dim(const Layer& layer, std::size_t i) {
  return i < layer.dims.size() ? static_cast<double>(layer.dims[i]) : 0;
}

// PyTorch's embedding_dense_backward_cuda, as the H200 traces launch it. Up to 3,072 indices: a zero fill of
// the fp32 gradient table and one kernel accumulating each row of dy. Beyond: the indices' positions (an
// arange) sorted by index with CUB's onesweep radix sort over the 64-bit indices (two counter memsets, a
// histogram, a scan, then eight 8-bit passes each after a memset), the table zeroed, the runs of equal
// indices found (unique-by-key: two kernels), split into segments (five small kernels), and dy's rows summed
// per segment and scattered into the table: 31 launches, most of them a few microseconds whatever the size.
// dy is fp32 (autocast leaves embeddings in fp32), as is the table's gradient.
std::vector<ComputeSpec> pytorch_embedding_backward(double tokens, double vocab, double hidden, DType dtype) {
  constexpr double kIndexBytes = 8;      // int64 indices and positions
  constexpr double kSmallKernel = 1024;  // bytes a counter memset, scan initialisation or tally touches
  const double f = kFp32Bytes;
  // Every one of them is the embedding operator's (as the traces class them), none a separate cast.
  const auto kernel = [&](double read, double write) {
    return pass(ComputeKind::Embedding, Pass::BackwardWeight, dtype, 1, read, write);
  };
  const double rows = tokens * hidden, indices = tokens * kIndexBytes;
  const ComputeSpec small = kernel(0, kSmallKernel);
  const ComputeSpec zero_table = kernel(0, vocab * hidden * f);
  const ComputeSpec partial_sums = kernel(rows * f + indices, rows * f);
  if (tokens <= 3072) return {zero_table, partial_sums};
  std::vector<ComputeSpec> kernels = {kernel(0, indices), small, small, kernel(indices, kSmallKernel), small};
  for (int digit = 0; digit < 8; ++digit) {
    kernels.push_back(small);
    kernels.push_back(kernel(2 * indices, 2 * indices));  // one 8-bit pass over keys and positions
  }
  kernels.push_back(zero_table);
  kernels.push_back(small);
  kernels.push_back(kernel(indices, 2 * indices));  // unique-by-key
  for (int i = 0; i < 5; ++i) kernels.push_back(i % 2 == 0 ? kernel(indices, indices) : small);
  kernels.push_back(partial_sums);
  kernels.push_back(kernel(rows * f, rows * f));  // scattered into the table
  return kernels;
}

// PyTorch's reductions combine per-block partial sums in a second step above this many rows.
constexpr double kRowsPerReductionBlock = 1024;

double bias_elements(const Layer& layer) {
  if (layer.type == "linear" && dim(layer, 3) != 0) return dim(layer, 2);
  if (layer.type == "conv" && dim(layer, 8) != 0) return dim(layer, 3);
  return 0;
}

double weight_elements(const Layer& layer) {
  if (layer.type == "linear") return dim(layer, 1) * dim(layer, 2);
  if (layer.type == "conv") return dim(layer, 0) * dim(layer, 3) * dim(layer, 4) * dim(layer, 5);
  return 0;
}

// Hugging Face's apply_rotary_pos_emb on the queries and on the keys (`elements` is both together), as the
// H200 trace of Llama-2-7B shows it: q * cos, rotate_half (neg of one half, cat), * sin, the sum; cos and
// sin come in the residual stream's dtype (fp32), so the products and the sum are fp32 and SDPA's input is
// cast back to 16 bits. Backward: the cast's gradient, both products' gradients, neg's, the casts to the
// tensor's dtype and the sum of its two gradients; rotate_half's halves go back through slicing, which
// zero-fills a gradient for each half, copies the half into it (a strided view) and adds the two. Six
// forward and twelve backward kernels per tensor, where a fused kernel makes one each way for both.
LayerKernels hf_rotary(LayerKernels kernels, double elements, double e) {
  const double f = kFp32Bytes;
  const double half = elements / 2;  // queries or keys
  const auto op = [&](Pass which, double read, double write) {
    return pass(ComputeKind::Elementwise, which, DType::FP32, half, read, write);
  };
  kernels.forward.clear();
  kernels.backward.clear();
  for (int tensor = 0; tensor < 2; ++tensor) {
    for (const ComputeSpec& k :
         {op(Pass::Forward, e + f, f), op(Pass::Forward, e / 2, e / 2), op(Pass::Forward, e, e),
          op(Pass::Forward, e + f, f), op(Pass::Forward, 2 * f, f), op(Pass::Forward, f, e)})
      kernels.forward.push_back(k);
    const Pass b = Pass::BackwardData;
    for (const ComputeSpec& k : {op(b, e, f), op(b, 2 * f, f), op(b, f / 2, f / 2), op(b, 2 * f, f),
                                 op(b, f, e), op(b, f, e), op(b, 2 * e, e)})
      kernels.backward.push_back(k);
    const ComputeSpec fill = op(b, 0, e);
    const ComputeSpec slice = strided_pass(ComputeKind::Elementwise, b, DType::FP32, half, e / 2, e / 2);
    for (const ComputeSpec& k : {fill, slice, fill, slice, op(b, 2 * e, e)}) kernels.backward.push_back(k);
  }
  if (e == f) {
    // Without autocast nothing is cast: drop the forward cast and the backward's three conversions.
    const auto keep = [&](std::vector<ComputeSpec>& list, std::initializer_list<std::size_t> drop) {
      std::vector<ComputeSpec> kept;
      for (std::size_t i = 0; i < list.size(); ++i) {
        bool dropped = false;
        for (std::size_t d : drop) dropped = dropped || i % (list.size() / 2) == d;
        if (!dropped) kept.push_back(list[i]);
      }
      list = std::move(kept);
    };
    keep(kernels.forward, {5});
    keep(kernels.backward, {0, 4, 5});
  }
  return kernels;
}

// Hugging Face's LlamaRMSNorm in eager mode, over the fp32 residual stream: pow(2), mean, + eps, rsqrt,
// x * rsqrt, weight * (a fused norm kernel's one pass). Backward runs the chain rule operator by operator:
// the two products' gradients, the weight's reduction over the rows, rsqrt's, mean's (a division), pow's,
// and the sum of x's two gradients.
LayerKernels hf_rmsnorm(LayerKernels kernels, double elements) {
  const double f = kFp32Bytes;
  const auto op = [&](Pass which, double read, double write) {
    return pass(ComputeKind::Elementwise, which, DType::FP32, elements, read, write);
  };
  kernels.forward = {op(Pass::Forward, f, f), op(Pass::Forward, f, 0),     op(Pass::Forward, 0, 0),
                     op(Pass::Forward, 0, 0), op(Pass::Forward, 2 * f, f), op(Pass::Forward, f, f)};
  const Pass b = Pass::BackwardData;
  kernels.backward = {op(b, f, f),     op(b, 2 * f, f), op(Pass::BackwardWeight, f, 0),
                      op(b, 2 * f, f), op(b, 2 * f, f), op(b, f, 0),
                      op(b, 0, 0),     op(b, 0, f),     op(b, f, f),
                      op(b, 2 * f, f), op(b, 2 * f, f)};
  return kernels;
}

// Hugging Face's gelu_new, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), one operator at a time as the
// H200 trace of GPT-2 XL shows it. Forward: 0.5 x, pow, 0.044715 *, x + (fp32), sqrt(2/pi) *, tanh, 1 +,
// the product (autocast first casts x to fp32 for pow). Backward: the product's two gradients, tanh's, the
// constants', pow's (pow, 3 *, *), the sums of x's three gradients and the casts between fp32 and 16 bits.
// Bytes per element are each operator's reads and writes.
LayerKernels gelu_new(LayerKernels kernels, double elements, bool autocast, double e) {
  const double f = kFp32Bytes;
  const double x = autocast ? e : f;
  const auto elementwise = [&](Pass which, double read, double write) {
    return pass(ComputeKind::Elementwise, which, DType::FP32, elements, read, write);
  };
  const auto tanh = [&](Pass which, double read) {
    return pass(ComputeKind::Activation, which, DType::FP32, elements, read, f);
  };
  kernels.forward.clear();
  kernels.forward.push_back(elementwise(Pass::Forward, x, x));                // 0.5 x
  if (autocast) kernels.forward.push_back(elementwise(Pass::Forward, e, f));  // x to fp32 for pow
  for (int i = 0; i < 2; ++i) kernels.forward.push_back(elementwise(Pass::Forward, f, f));  // pow, 0.044715 *
  kernels.forward.push_back(elementwise(Pass::Forward, x + f, f));                          // x + ...
  kernels.forward.push_back(elementwise(Pass::Forward, f, f));                              // sqrt(2/pi) *
  kernels.forward.push_back(tanh(Pass::Forward, f));
  kernels.forward.push_back(elementwise(Pass::Forward, f, f));      // 1 + tanh
  kernels.forward.push_back(elementwise(Pass::Forward, x + f, f));  // the product
  kernels.backward.clear();
  const Pass b = Pass::BackwardData;
  kernels.backward.push_back(elementwise(b, 2 * f, f));  // d(0.5 x) = g (1 + tanh)
  if (autocast) kernels.backward.push_back(elementwise(b, f, e));
  kernels.backward.push_back(elementwise(b, f + x, f));  // d(1 + tanh) = g 0.5 x
  kernels.backward.push_back(tanh(b, 2 * f));
  kernels.backward.push_back(elementwise(b, f, f));  // sqrt(2/pi) *
  if (autocast) kernels.backward.push_back(elementwise(b, f, e));
  kernels.backward.push_back(elementwise(b, f, f));      // 0.044715 *
  kernels.backward.push_back(elementwise(b, f, f));      // pow(x, 2)
  kernels.backward.push_back(elementwise(b, f, f));      // 3 *
  kernels.backward.push_back(elementwise(b, 2 * f, f));  // * g
  if (autocast) kernels.backward.push_back(elementwise(b, f, e));
  kernels.backward.push_back(elementwise(b, 2 * x, x));  // add_
  kernels.backward.push_back(elementwise(b, x, x));      // 0.5 *
  kernels.backward.push_back(elementwise(b, 2 * x, x));  // add_
  return kernels;
}

// Hugging Face's decoders build a DynamicCache in training too (use_cache defaults to true): each layer's
// update concatenates its keys and its values onto empty tensors, copying both out of the projections'
// transposed views. The cache's value tensor takes the keys' dtype, so where the keys are fp32 (rotated with
// autocast's fp32 cos and sin) the values are promoted too and SDPA casts them back. Backward: the values'
// gradient cast through that promotion, and a transposing copy of the gradient of every tensor SDPA read in a
// head-major layout of its own (the cached keys and values, and rotated queries) back to the projection's
// token-major one; where one fused Linear made q, k and v (GPT-2's c_attn), split's backward concatenates
// their gradients for it. As the H200 traces of GPT-2 XL and Llama-2-7B show them. `tokens` is batch x
// sequence.
LayerKernels hf_decoder_attention(LayerKernels kernels, const Layer& layer, double tokens, bool rotated,
                                  bool fused_projection, DType dtype, double key_bytes, double e) {
  const double heads = dim(layer, 1), head_dim = dim(layer, 2);
  const double kv_heads = layer.dims.size() > 4 ? dim(layer, 4) : heads;
  const double v_dim = layer.dims.size() > 5 ? dim(layer, 5) : head_dim;
  const double queries = tokens * heads * head_dim, keys = tokens * kv_heads * head_dim;
  const double values = tokens * kv_heads * v_dim;
  const bool promoted = key_bytes != e;
  std::vector<ComputeSpec> cache = {
      strided_pass(ComputeKind::Elementwise, Pass::Forward, dtype, keys, key_bytes, key_bytes),
      strided_pass(ComputeKind::Elementwise, Pass::Forward, dtype, values, e, key_bytes)};
  if (promoted) cache.push_back(pass(ComputeKind::Elementwise, Pass::Forward, dtype, values, key_bytes, e));
  kernels.forward.insert(kernels.forward.begin(), cache.begin(), cache.end());
  const Pass b = Pass::BackwardData;
  if (promoted) {
    kernels.backward.push_back(pass(ComputeKind::Elementwise, b, dtype, values, e, key_bytes));
    kernels.backward.push_back(pass(ComputeKind::Elementwise, b, dtype, values, key_bytes, e));
  }
  for (const double elements : {keys, values})
    kernels.backward.push_back(strided_pass(ComputeKind::Elementwise, b, dtype, elements, e, e));
  if (rotated) kernels.backward.push_back(strided_pass(ComputeKind::Elementwise, b, dtype, queries, e, e));
  if (fused_projection)
    kernels.backward.push_back(pass(ComputeKind::Elementwise, b, dtype, queries + keys + values, e, e));
  return kernels;
}

bool has_rotary_embedding(const Model& model) {
  return std::any_of(model.layers.begin(), model.layers.end(),
                     [](const Layer& layer) { return layer.type == "rope"; });
}

// Whether q, k and v come from one Linear (no layer reads its predecessor's input, Layer::shares_input).
bool has_fused_projections(const Model& model) {
  return std::none_of(model.layers.begin(), model.layers.end(),
                      [](const Layer& layer) { return layer.shares_input; });
}

// cuBLASLt zeroes a small workspace (a 4-byte memset, 0.7 us on the H200) before some of its nvjet GEMMs.
// Which ones, read from the H200 traces' aten::mm and aten::addmm shapes (GPT-2 XL, BERT-Large, ViT-B/16,
// Llama at 2,048 to 12,608 tokens): every 16-bit forward and input-gradient GEMM whose output has at least
// 2,304 columns and none with 1,600 or fewer; the threshold sits between. The classifier heads of ResNet-50
// and DenseNet-121 (32 rows, up to 2,048 columns) get none. Weight gradients mostly get none, and misaligned
// GEMMs run other kernels (trace/gemm_alignment.h). The memset is launched inside the GEMM's operator: a
// GEMM-class kernel of no FLOPs.
constexpr std::int64_t kMemsetMinColumns = 2048;
constexpr std::int64_t kMemsetMinRows = 2048;

bool gets_workspace_memset(const ComputeSpec& k) {
  if (k.kind != ComputeKind::Gemm || k.shape.size() != 3) return false;
  if (k.dtype != DType::FP16 && k.dtype != DType::BF16) return false;
  if (k.pass != Pass::Forward && k.pass != Pass::BackwardData) return false;
  if (trace::gemm_alignment_bytes(k.dtype, k.pass, k.shape) < trace::kAlignedGemmBytes) return false;
  return k.shape[0] >= kMemsetMinRows && k.shape[1] >= kMemsetMinColumns;
}

void add_workspace_memsets(std::vector<ComputeSpec>& kernels) {
  std::vector<ComputeSpec> out;
  out.reserve(kernels.size());
  for (ComputeSpec& k : kernels) {
    if (gets_workspace_memset(k)) {
      ComputeSpec memset;
      memset.kind = ComputeKind::Gemm;
      memset.pass = k.pass;
      memset.dtype = k.dtype;
      memset.bytes = 4;
      out.push_back(memset);
    }
    out.push_back(std::move(k));
  }
  kernels = std::move(out);
}

LayerKernels eager_passes(LayerKernels kernels, const Layer& layer, const Model& model, int batch,
                          Precision precision, bool sixteen_bit_parameters);

}  // namespace

LayerKernels with_eager_pytorch_passes(LayerKernels kernels, const Layer& layer, const Model& model,
                                       int batch, Precision precision, bool sixteen_bit_parameters) {
  kernels = eager_passes(std::move(kernels), layer, model, batch, precision, sixteen_bit_parameters);
  add_workspace_memsets(kernels.forward);
  add_workspace_memsets(kernels.backward);
  return kernels;
}

namespace {

LayerKernels eager_passes(LayerKernels kernels, const Layer& layer, const Model& model, int batch,
                          Precision precision, bool sixteen_bit_parameters) {
  const bool autocast = precision == Precision::AMP_FP16 || precision == Precision::AMP_BF16;
  const DType low = activation_dtype(precision);
  const double e = static_cast<double>(bytes_per_element(low));
  const double n = batch;
  const std::string& type = layer.type;

  if (type == "rope") return hf_rotary(kernels, n * dim(layer, 0) * dim(layer, 1), e);
  if (type == "embedding") {
    kernels.backward = pytorch_embedding_backward(n * dim(layer, 0), dim(layer, 1), dim(layer, 2), low);
    return kernels;
  }
  if (type == "swiglu") {
    // Forward: silu(gate) then the product with up (2 passes more than one fused kernel's 3). Backward:
    // the product's two gradients, silu's gradient, then cat of the gate and up gradients (2 + 2).
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    kernels.forward.push_back(pass(ComputeKind::Activation, Pass::Forward, low, elements, e, e));
    kernels.backward.push_back(
        pass(ComputeKind::Activation, Pass::BackwardData, low, elements, 4 * e, 4 * e));
  }
  if (type == "gelu_new") return gelu_new(kernels, n * dim(layer, 0), autocast, e);
  if (type == "rmsnorm" && model.transformer) {
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    kernels = hf_rmsnorm(std::move(kernels), elements);
    if (autocast) {
      // Its fp32 output cast for the Linear that reads it, and that gradient cast back.
      kernels.forward.push_back(pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes, e));
      kernels.backward.insert(kernels.backward.begin(), pass(ComputeKind::Elementwise, Pass::BackwardData,
                                                             low, elements, e, kFp32Bytes));
    }
    return kernels;
  }
  if (type == "batchnorm") {
    // cuDNN's batch norm finishes the per-channel statistics in a second, small kernel in each direction.
    const double channels = dim(layer, 0);
    kernels.forward.push_back(
        pass(ComputeKind::BatchNorm, Pass::Forward, low, channels, 4 * kFp32Bytes, 2 * kFp32Bytes));
    kernels.backward.push_back(
        pass(ComputeKind::BatchNorm, Pass::BackwardData, low, channels, 4 * kFp32Bytes, 2 * kFp32Bytes));
    // A training-mode BatchNorm module counts its batches: num_batches_tracked += 1, one tiny kernel.
    kernels.forward.push_back(pass(ComputeKind::Elementwise, Pass::Forward, low, 1, 8, 8));
  }
  if (type == "concat" && dim(layer, 1) > 0) {
    // torch.cat's backward hands each input a view of the gradient: no kernel. But every input is also
    // read elsewhere (DenseNet concatenates each feature map into every later layer of its block), so
    // autograd adds this gradient to the input's others: one accumulation per input beyond the first use.
    const double inputs = dim(layer, 1);
    const double each = n * dim(layer, 0) / inputs;
    kernels.backward.clear();
    for (int i = 1; i < static_cast<int>(inputs); ++i)
      kernels.backward.push_back(pass(ComputeKind::Elementwise, Pass::BackwardData, low, each, 2 * e, e));
  }
  // torchvision's transformer (ViT) is the zoo's only one without a token vocabulary.
  const bool torchvision_encoder = model.transformer && model.transformer->vocab == 0;
  if (type == "add" && torchvision_encoder && dim(layer, 2) != 0) {
    // The residual add reads the attention's transposed output (torchvision_attention), and the fp32 stream
    // it writes is copied contiguous before the next layer norm; backward copies that gradient back.
    const double elements = n * dim(layer, 0);
    const ComputeSpec add =
        strided_pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes + e, kFp32Bytes);
    const ComputeSpec add_grad =
        pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements, 2 * kFp32Bytes, kFp32Bytes);
    kernels.forward = {
        add, strided_pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes, kFp32Bytes)};
    kernels.backward = {add_grad, strided_pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements,
                                               kFp32Bytes, kFp32Bytes)};
    return kernels;
  }
  if (type == "attention") {
    // cuDNN's SDPA (PyTorch's default on Hopper) launches small helper kernels around its attention kernel:
    // one in forward; three in backward (the dO.O row sums, zeroing and converting the dQ accumulator).
    // They are cuDNN's kernels, not PyTorch's elementwise loops.
    const double rows = n * dim(layer, 0) * dim(layer, 1);
    kernels.forward.push_back(pass(ComputeKind::Elementwise, Pass::Forward, low, rows, 0, kFp32Bytes));
    for (int i = 0; i < 3; ++i) {
      kernels.backward.push_back(
          pass(ComputeKind::Elementwise, Pass::BackwardData, low, rows, e, kFp32Bytes));
      kernels.backward.back().unvectorized = false;
    }
    if (torchvision_encoder)
      kernels =
          torchvision_attention(std::move(kernels), n * dim(layer, 0), dim(layer, 1) * dim(layer, 2), low, e);
    const bool decoder = model.transformer && model.transformer->vocab > 0 && dim(layer, 3) != 0;
    if (decoder) {
      const bool rotated = has_rotary_embedding(model);
      kernels =
          hf_decoder_attention(std::move(kernels), layer, n * dim(layer, 0), rotated,
                               has_fused_projections(model), low, rotated && autocast ? kFp32Bytes : e, e);
    }
  }
  const double bias = bias_elements(layer);
  if (type == "linear" && bias > 0) {
    // Autograd sums the output gradient over the rows for the bias: a reduction, which starts with a small
    // initialisation kernel once there are more than a block's rows to combine.
    const double rows = n * dim(layer, 0);
    ComputeSpec sum = pass(ComputeKind::Elementwise, Pass::BackwardWeight, low, rows * bias, e, 0);
    sum.bytes += bias * kFp32Bytes;
    if (rows > kRowsPerReductionBlock)
      kernels.backward.push_back(
          pass(ComputeKind::Elementwise, Pass::BackwardWeight, low, bias, 0, kFp32Bytes));
    kernels.backward.push_back(sum);
  }
  if (type == "cross_entropy") {
    // nll_loss's backward scatters into a zeroed gradient of the log-probabilities (fp32 under autocast):
    // a fill over every row and class first.
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    kernels.backward.insert(kernels.backward.begin(), pass(ComputeKind::Elementwise, Pass::BackwardData, low,
                                                           elements, 0, autocast ? kFp32Bytes : e));
  }
  if (type == "linear" && layer.shares_input) {
    // Autocast caches the weights' casts, not the activations': this Linear casts the shared fp32 input (a
    // norm's output in every such layout) again. Backward casts its input gradient to fp32 and adds it to
    // the other readers'; without autocast only the add remains.
    const double input = n * dim(layer, 0) * dim(layer, 1);
    if (autocast) {
      kernels.forward.insert(kernels.forward.begin(),
                             pass(ComputeKind::Elementwise, Pass::Forward, low, input, kFp32Bytes, e));
      kernels.backward.push_back(
          pass(ComputeKind::Elementwise, Pass::BackwardData, low, input, e, kFp32Bytes));
    }
    const double x = autocast ? kFp32Bytes : e;
    kernels.backward.push_back(pass(ComputeKind::Elementwise, Pass::BackwardData, low, input, 2 * x, x));
  }
  if (!autocast) return kernels;

  if ((type == "linear" || type == "conv") && !sixteen_bit_parameters) {
    // The fp32 weight (a tied LM head's too: it is the embedding's) and bias cast to 16 bits before the
    // GEMM in forward; their 16-bit gradients cast back after backward.
    const double weight = weight_elements(layer);
    for (const double elements : {bias, weight}) {
      if (elements <= 0) continue;
      kernels.forward.insert(kernels.forward.begin(),
                             pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes, e));
      kernels.backward.push_back(
          pass(ComputeKind::Elementwise, Pass::BackwardWeight, low, elements, e, kFp32Bytes));
    }
  }
  if (!model.transformer) return kernels;

  if (type == "layernorm" || type == "rmsnorm") {
    // The norm reads and writes the fp32 stream (kernels_for counted 16-bit tensors), then its output is
    // cast for the Linear that reads it; backward casts that gradient back first.
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    const double scale = kFp32Bytes / e;
    for (ComputeSpec& k : kernels.forward) k.bytes *= scale;
    for (ComputeSpec& k : kernels.backward) k.bytes *= scale;
    kernels.forward.push_back(pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes, e));
    kernels.backward.insert(kernels.backward.begin(),
                            pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements, e, kFp32Bytes));
  } else if (type == "add" && dim(layer, 2) != 0) {
    // A residual add: the fp32 stream plus a 16-bit branch output, written fp32; backward sums fp32
    // gradients.
    const double elements = n * dim(layer, 0);
    kernels.forward = {
        pass(ComputeKind::Elementwise, Pass::Forward, low, elements, kFp32Bytes + e, kFp32Bytes)};
    kernels.backward = {
        pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements, 2 * kFp32Bytes, kFp32Bytes)};
  } else if (type == "cross_entropy") {
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    kernels.forward.insert(kernels.forward.begin(),
                           pass(ComputeKind::Elementwise, Pass::Forward, low, elements, e, kFp32Bytes));
    kernels.backward.push_back(
        pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements, kFp32Bytes, e));
  }
  return kernels;
}

}  // namespace
}  // namespace simtrain::workload
