// Implements aten_kernels.h: operator names to kernel kinds, and FLOPs and bytes from recorded shapes.
#include "simulator/trace/aten_kernels.h"

#include <algorithm>
#include <array>
#include <unordered_set>

#include "simulator/workload/attention_work.h"

namespace simtrain::trace {
namespace {

using Names = std::unordered_set<std::string_view>;

// Operators that only describe or allocate tensors, or that call their kernels through children when they
// do any work (aten::to is a no-op when the dtype already matches; aten::dropout with p = 0 returns its
// input): without this list a no-op would be costed as an elementwise kernel over its tensors.
const Names kViews = {"as_strided",
                      "as_strided_",
                      "view",
                      "reshape",
                      "_reshape_alias",
                      "t",
                      "transpose",
                      "transpose_",
                      "permute",
                      "expand",
                      "expand_as",
                      "slice",
                      "select",
                      "unsqueeze",
                      "unsqueeze_",
                      "squeeze",
                      "squeeze_",
                      "alias",
                      "detach",
                      "detach_",
                      "empty",
                      "empty_strided",
                      "empty_like",
                      "new_empty",
                      "new_empty_strided",
                      "resize_",
                      "resize_as_",
                      "result_type",
                      "lift_fresh",
                      "lift",
                      "narrow",
                      "_unsafe_view",
                      "view_as",
                      "contiguous",
                      "split",
                      "split_with_sizes",
                      "unsafe_split",
                      "chunk",
                      "unbind",
                      "unflatten",
                      "flatten",
                      "numpy_T",
                      "T",
                      "mT",
                      "to",
                      "type_as",
                      "dropout",
                      "feature_dropout",
                      "alpha_dropout",
                      "item",
                      "_local_scalar_dense",
                      "is_nonzero",
                      "size",
                      "stride",
                      "dim",
                      "numel",
                      "set_",
                      "broadcast_tensors",
                      "unfold",
                      "diagonal",
                      "view_as_real",
                      "view_as_complex",
                      "_neg_view",
                      "_conj",
                      "conj",
                      "resolve_conj",
                      "resolve_neg",
                      "record_stream",
                      "pin_memory",
                      "_has_compatible_shallow_copy_type",
                      "is_same_size",
                      "linear",
                      "matmul",
                      "conv2d",
                      "convolution",
                      "_convolution",
                      "batch_norm",
                      "_batch_norm_impl_index",
                      "layer_norm",
                      "scaled_dot_product_attention",
                      "embedding",
                      "embedding_backward",
                      "cross_entropy_loss",
                      "nll_loss",
                      "nll_loss_nd",
                      "log_softmax",
                      "softmax",
                      "max_pool2d",
                      "adaptive_avg_pool2d",
                      "group_norm",
                      "rms_norm"};

const Names kGemms = {"mm", "addmm", "_addmm_activation", "bmm", "baddbmm", "addbmm", "_scaled_mm"};
const Names kConvForward = {"cudnn_convolution", "cudnn_convolution_relu", "cudnn_convolution_add_relu",
                            "cudnn_convolution_transpose", "convolution_overrideable"};
const Names kAttentionForward = {"_scaled_dot_product_cudnn_attention",
                                 "_scaled_dot_product_flash_attention",
                                 "_scaled_dot_product_efficient_attention",
                                 "_cudnn_attention_forward",
                                 "_flash_attention_forward",
                                 "_efficient_attention_forward"};
const Names kAttentionBackward = {"_scaled_dot_product_cudnn_attention_backward",
                                  "_scaled_dot_product_flash_attention_backward",
                                  "_scaled_dot_product_efficient_attention_backward",
                                  "_cudnn_attention_backward",
                                  "_flash_attention_backward",
                                  "_efficient_attention_backward"};
// FlashAttention's and memory-efficient attention's own entry points take [batch, seq, heads, head_dim];
// the scaled_dot_product_* ones and cuDNN's take [batch, heads, seq, head_dim].
const Names kSequenceMajorAttention = {"_flash_attention_forward", "_efficient_attention_forward",
                                       "_flash_attention_backward", "_efficient_attention_backward"};
const Names kLayerNorms = {"native_layer_norm", "native_layer_norm_backward",
                           "_fused_rms_norm",   "_fused_rms_norm_backward",
                           "native_group_norm", "native_group_norm_backward"};
const Names kBatchNorms = {"cudnn_batch_norm",         "cudnn_batch_norm_backward",
                           "native_batch_norm",        "native_batch_norm_backward",
                           "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
                           "batch_norm_backward"};
const Names kSoftmaxes = {"_softmax", "_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data"};
const Names kPools = {"max_pool2d_with_indices",
                      "max_pool2d_with_indices_backward",
                      "avg_pool2d",
                      "avg_pool2d_backward",
                      "_adaptive_avg_pool2d",
                      "_adaptive_avg_pool2d_backward",
                      "adaptive_max_pool2d",
                      "adaptive_max_pool2d_backward",
                      "max_pool3d_with_indices",
                      "avg_pool3d"};
const Names kEmbeddings = {"index_select", "embedding_dense_backward", "_embedding_bag",
                           "_embedding_bag_backward"};
const Names kActivations = {"relu",
                            "relu_",
                            "clamp_min",
                            "clamp_min_",
                            "threshold_backward",
                            "gelu",
                            "gelu_",
                            "gelu_backward",
                            "silu",
                            "silu_",
                            "silu_backward",
                            "tanh",
                            "tanh_",
                            "tanh_backward",
                            "sigmoid",
                            "sigmoid_",
                            "sigmoid_backward",
                            "hardtanh",
                            "hardtanh_",
                            "hardtanh_backward",
                            "leaky_relu",
                            "leaky_relu_",
                            "leaky_relu_backward",
                            "elu",
                            "elu_backward",
                            "mish",
                            "mish_backward",
                            "hardswish",
                            "hardswish_backward",
                            "softplus",
                            "softplus_backward",
                            "glu",
                            "glu_backward"};
// Reductions, indexing and losses: memory-bound like elementwise kernels, but not one output per input.
const Names kOthers = {"cat",
                       "sum",
                       "mean",
                       "nll_loss_forward",
                       "nll_loss_backward",
                       "nll_loss2d_forward",
                       "nll_loss2d_backward",
                       "gather",
                       "scatter",
                       "scatter_",
                       "scatter_add",
                       "scatter_add_",
                       "index",
                       "index_put_",
                       "_index_put_impl_",
                       "arange",
                       "max",
                       "min",
                       "amax",
                       "argmax",
                       "topk",
                       "sort",
                       "cumsum",
                       "norm",
                       "linalg_vector_norm",
                       "nonzero",
                       "stack",
                       "_amp_foreach_non_finite_check_and_unscale_",
                       "_amp_update_scale_",
                       "embedding_backward"};

bool is_optimizer_kernel(std::string_view name) {
  return name.starts_with("_foreach_") || name.starts_with("_fused_adam") || name.starts_with("_fused_sgd");
}

bool is_kernel_operator(std::string_view name) {
  for (const Names* names : {&kGemms, &kConvForward, &kAttentionForward, &kAttentionBackward, &kLayerNorms,
                             &kBatchNorms, &kSoftmaxes, &kPools, &kEmbeddings})
    if (names->contains(name)) return true;
  return name == "convolution_backward" || is_optimizer_kernel(name);
}

std::string_view aten_name(std::string_view name) {
  return name.starts_with("aten::") ? name.substr(6) : name;
}

// The operator's tensors in argument order (list elements flattened), inputs or outputs.
std::vector<const AtenTensor*> tensors_of(const std::vector<AtenValue>& values) {
  std::vector<const AtenTensor*> out;
  for (const AtenValue& v : values)
    for (const AtenTensor& t : v.tensors) out.push_back(&t);
  return out;
}

const AtenTensor* tensor_argument(const AtenOperator& op, std::string_view name, std::size_t fallback) {
  for (const AtenValue& v : op.inputs)
    if (!name.empty() && v.name == name && v.tensors.size() == 1 && !v.is_tensor_list) return &v.tensors[0];
  const auto all = tensors_of(op.inputs);
  return fallback < all.size() ? all[fallback] : nullptr;
}

// Bytes read and written: every GPU tensor argument once (an in-place operator's self is read and written).
double tensor_bytes(const AtenOperator& op) {
  double bytes = 0;
  for (const auto* values : {&op.inputs, &op.outputs}) {
    std::unordered_set<std::int64_t> seen;
    for (const AtenTensor* t : tensors_of(*values))
      if (t->on_gpu && seen.insert(t->id).second) bytes += t->bytes();
  }
  return bytes;
}

DType first_float_dtype(const AtenOperator& op) {
  for (const auto* values : {&op.inputs, &op.outputs})
    for (const AtenTensor* t : tensors_of(*values))
      if (t->on_gpu && t->dtype) return *t->dtype;
  return DType::FP32;
}

double largest_elements(const AtenOperator& op) {
  double most = 0;
  for (const auto* values : {&op.outputs, &op.inputs})
    for (const AtenTensor* t : tensors_of(*values))
      if (t->on_gpu) most = std::max(most, t->elements());
  return most;
}

std::int64_t first_int(const AtenOperator& op, std::string_view name, std::int64_t fallback) {
  const auto* ints = op.input_ints(name);
  return ints && !ints->empty() ? (*ints)[0] : fallback;
}

ComputeSpec memory_bound(const AtenOperator& op, ComputeKind kind, Pass pass, double flops_per_element) {
  ComputeSpec spec;
  spec.kind = kind;
  spec.pass = pass;
  spec.dtype = first_float_dtype(op);
  const double elements = largest_elements(op);
  spec.flops = flops_per_element * elements;
  spec.bytes = tensor_bytes(op);
  spec.shape = {static_cast<std::int64_t>(elements)};
  return spec;
}

std::optional<ComputeSpec> gemm(const AtenOperator& op, std::string_view name, Pass pass) {
  const bool with_bias =
      name == "addmm" || name == "_addmm_activation" || name == "baddbmm" || name == "addbmm";
  const auto tensors = tensors_of(op.inputs);
  const std::size_t first = with_bias ? 1 : 0;
  if (tensors.size() < first + 2) return std::nullopt;
  const auto& a = tensors[first]->shape;
  const auto& b = tensors[first + 1]->shape;
  std::int64_t batch = 1, m = 0, k = 0, n = 0;
  if (a.size() == 2 && b.size() == 2 && a[1] == b[0]) {
    m = a[0], k = a[1], n = b[1];
  } else if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1]) {
    batch = a[0], m = a[1], k = a[2], n = b[2];
  } else {
    return std::nullopt;
  }
  ComputeSpec spec;
  spec.kind = ComputeKind::Gemm;
  spec.pass = pass;
  spec.dtype = tensors[first]->dtype.value_or(DType::FP32);
  // A batched GEMM is costed as one GEMM with the batches stacked along m, as the generator writes them.
  spec.shape = {batch * m, n, k};
  spec.flops = 2.0 * static_cast<double>(batch) * static_cast<double>(m) * static_cast<double>(n) *
               static_cast<double>(k);
  spec.bytes = tensor_bytes(op);
  return spec;
}

// {n, c, h, w, k, r, s, stride, pad} and the forward FLOPs of a 2-D convolution of input x by weights w.
struct ConvGeometry {
  std::vector<std::int64_t> shape;
  double flops = 0;
};

std::optional<ConvGeometry> conv_geometry(const AtenOperator& op, const AtenTensor& x, const AtenTensor& w) {
  if (x.shape.size() != 4 || w.shape.size() != 4) return std::nullopt;
  const std::int64_t stride = std::max<std::int64_t>(1, first_int(op, "stride", 1));
  const std::int64_t pad = std::max<std::int64_t>(0, first_int(op, "padding", 0));
  const std::int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const std::int64_t k = w.shape[0], per_group_c = w.shape[1], r = w.shape[2], s = w.shape[3];
  const double p = std::max<std::int64_t>(0, (h + 2 * pad - r) / stride + 1);
  const double q = std::max<std::int64_t>(0, (wd + 2 * pad - s) / stride + 1);
  ConvGeometry g;
  g.shape = {n, c, h, wd, k, r, s, stride, pad};
  g.flops = 2.0 * static_cast<double>(n) * static_cast<double>(k) * static_cast<double>(per_group_c) *
            static_cast<double>(r) * static_cast<double>(s) * p * q;
  return g;
}

ComputeSpec conv_kernel(const ConvGeometry& g, const AtenTensor& x, Pass pass, double bytes) {
  ComputeSpec spec;
  spec.kind = ComputeKind::Conv;
  spec.pass = pass;
  spec.dtype = x.dtype.value_or(DType::FP32);
  spec.shape = g.shape;
  spec.flops = g.flops;
  spec.bytes = bytes;
  return spec;
}

std::vector<ComputeSpec> conv_forward(const AtenOperator& op, Pass pass) {
  const AtenTensor* x = tensor_argument(op, "self", 0);
  const AtenTensor* w = tensor_argument(op, "weight", 1);
  if (!x || !w) return {memory_bound(op, ComputeKind::Conv, pass, 1)};
  const auto g = conv_geometry(op, *x, *w);
  if (!g) return {memory_bound(op, ComputeKind::Conv, pass, 1)};
  return {conv_kernel(*g, *x, pass, tensor_bytes(op))};
}

// convolution_backward computes the input's and the weights' gradients (as output_mask asks) in separate
// kernels: one op each, so that the measured conv_backward_data and conv_backward_weight tables apply.
std::vector<ComputeSpec> conv_backward(const AtenOperator& op) {
  const AtenTensor* dy = tensor_argument(op, "grad_output", 0);
  const AtenTensor* x = tensor_argument(op, "input", 1);
  const AtenTensor* w = tensor_argument(op, "weight", 2);
  if (!dy || !x || !w) return {memory_bound(op, ComputeKind::Conv, Pass::BackwardData, 1)};
  const auto g = conv_geometry(op, *x, *w);
  if (!g) return {memory_bound(op, ComputeKind::Conv, Pass::BackwardData, 1)};
  std::vector<std::int64_t> mask = {1, 1, 0};
  if (const auto* m = op.input_ints("output_mask"); m && m->size() == 3) mask = *m;
  // Each gradient kernel reads the output gradient and one operand and writes the other's gradient.
  const double bytes = dy->bytes() + x->bytes() + w->bytes();
  std::vector<ComputeSpec> out;
  if (mask[0]) out.push_back(conv_kernel(*g, *x, Pass::BackwardData, bytes));
  if (mask[1] || mask[2]) out.push_back(conv_kernel(*g, *x, Pass::BackwardWeight, bytes));
  return out;
}

std::vector<ComputeSpec> attention(const AtenOperator& op, std::string_view name, Pass pass) {
  const bool backward = kAttentionBackward.contains(name);
  const std::size_t first = backward ? 1 : 0;  // backward kernels take the output's gradient first
  const AtenTensor* q = tensor_argument(op, "query", first);
  const AtenTensor* k = tensor_argument(op, "key", first + 1);
  if (!q || !k || q->shape.size() != 4 || k->shape.size() != 4)
    return {memory_bound(op, ComputeKind::Attention, pass, 1)};
  const bool sequence_major = kSequenceMajorAttention.contains(name);
  const std::int64_t batch = q->shape[0], heads = q->shape[sequence_major ? 2 : 1];
  const std::int64_t seq = q->shape[sequence_major ? 1 : 2], head_dim = q->shape[3];
  const std::int64_t keys = k->shape[sequence_major ? 1 : 2];
  const bool causal = first_int(op, "is_causal", 0) != 0;
  // Fused kernels skip the tiles a causal mask empties (attention_work.h); backward recomputes the scores.
  const double fraction = workload::flash_attention_tile_fraction(static_cast<double>(keys), causal);
  const double forward_flops = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) *
                               static_cast<double>(seq) * static_cast<double>(keys) *
                               static_cast<double>(head_dim) * fraction;
  ComputeSpec spec;
  spec.kind = ComputeKind::Attention;
  spec.pass = backward ? Pass::BackwardData : pass;
  spec.dtype = q->dtype.value_or(DType::FP32);
  spec.shape = {batch, heads, seq, head_dim};
  spec.flops = backward ? 2.5 * forward_flops : forward_flops;
  spec.bytes = tensor_bytes(op);
  spec.kv_tiles = workload::flash_attention_kv_tiles(static_cast<double>(keys), fraction);
  return {spec};
}

}  // namespace

double AtenTensor::elements() const {
  double n = 1;
  for (std::int64_t d : shape) n *= static_cast<double>(d);
  return n;
}

bool AtenOperator::touches_gpu() const {
  for (const auto* values : {&inputs, &outputs})
    for (const AtenValue& v : *values)
      for (const AtenTensor& t : v.tensors)
        if (t.on_gpu) return true;
  return false;
}

const std::vector<std::int64_t>* AtenOperator::input_ints(std::string_view name) const {
  for (const AtenValue& v : inputs)
    if (v.name == name) return &v.ints;
  return nullptr;
}

AtenRole aten_role(std::string_view operator_name) {
  const std::string_view name = aten_name(operator_name);
  if (kViews.contains(name)) return AtenRole::View;
  if (is_kernel_operator(name)) return AtenRole::Kernel;
  return AtenRole::Composite;
}

std::vector<ComputeSpec> aten_kernels(const AtenOperator& op, Pass pass) {
  if (!op.touches_gpu()) return {};
  const std::string_view name = aten_name(op.name);
  if (kViews.contains(name)) return {};
  const bool backward_op = name.ends_with("_backward") || name.ends_with("_backward_data");
  const Pass kernel_pass = backward_op && pass == Pass::Forward ? Pass::BackwardData : pass;
  if (kGemms.contains(name)) {
    if (auto spec = gemm(op, name, kernel_pass)) return {*spec};
    return {memory_bound(op, ComputeKind::Gemm, kernel_pass, 1)};
  }
  if (kConvForward.contains(name)) return conv_forward(op, kernel_pass);
  if (name == "convolution_backward") return conv_backward(op);
  if (kAttentionForward.contains(name) || kAttentionBackward.contains(name))
    return attention(op, name, kernel_pass);
  if (kLayerNorms.contains(name))
    return {memory_bound(op, ComputeKind::LayerNorm, kernel_pass, backward_op ? 8 : 5)};
  if (kBatchNorms.contains(name))
    return {memory_bound(op, ComputeKind::BatchNorm, kernel_pass, backward_op ? 8 : 5)};
  if (kSoftmaxes.contains(name))
    return {memory_bound(op, ComputeKind::Softmax, kernel_pass, backward_op ? 4 : 5)};
  if (kPools.contains(name)) return {memory_bound(op, ComputeKind::Pool, kernel_pass, 1)};
  if (kEmbeddings.contains(name)) return {memory_bound(op, ComputeKind::Embedding, kernel_pass, 1)};
  if (kActivations.contains(name)) return {memory_bound(op, ComputeKind::Activation, kernel_pass, 1)};
  if (is_optimizer_kernel(name)) {
    // AdamW does about a dozen FLOPs per parameter; a foreach kernel one per element.
    const double per_element = name.starts_with("_fused_adam") ? 12 : 1;
    return {
        memory_bound(op, ComputeKind::Optimizer, pass == Pass::Forward ? Pass::Update : pass, per_element)};
  }
  if (kOthers.contains(name)) return {memory_bound(op, ComputeKind::Other, kernel_pass, 1)};
  return {memory_bound(op, ComputeKind::Elementwise, kernel_pass, 1)};
}

std::vector<std::string> schema_argument_names(std::string_view schema) {
  std::vector<std::string> names;
  const std::size_t open = schema.find('(');
  if (open == std::string_view::npos) return names;
  int depth = 0;
  std::string piece;
  auto finish = [&] {
    std::string_view text = piece;
    if (const auto eq = text.find('='); eq != std::string_view::npos) text = text.substr(0, eq);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    const auto space = text.rfind(' ');
    const std::string_view name = space == std::string_view::npos ? text : text.substr(space + 1);
    if (!name.empty() && name != "*") names.emplace_back(name);
    piece.clear();
  };
  for (std::size_t i = open + 1; i < schema.size(); ++i) {
    const char c = schema[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ')') {
      if (depth == 0) {
        finish();
        return names;
      }
      --depth;
    }
    if (c == ',' && depth == 0)
      finish();
    else
      piece += c;
  }
  return names;
}

}  // namespace simtrain::trace
