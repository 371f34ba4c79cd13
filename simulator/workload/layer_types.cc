// The zoo's layer constructors: parameter counts and saved-for-backward tensors of each layer type, as
// PyTorch's modules define them.
#include <utility>

#include "common/error.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {
namespace {

Layer make(const std::string& name, const std::string& type, double parameters,
           std::vector<std::int64_t> dims, double saved_elements) {
  Layer layer;
  layer.name = name;
  layer.type = type;
  layer.parameters = parameters;
  layer.dims = std::move(dims);
  layer.saved_activation_elements_per_sample = saved_elements;
  return layer;
}

double d(std::int64_t value) { return static_cast<double>(value); }

}  // namespace

std::int64_t conv_output_size(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  return (size + 2 * pad - kernel) / stride + 1;
}

Layer conv(const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k,
           std::int64_t r, std::int64_t s, std::int64_t stride, std::int64_t pad, bool bias) {
  const double parameters = d(k) * d(c) * d(r) * d(s) + (bias ? d(k) : 0);
  // Convolution saves its input for the weight gradient (the weight itself is a parameter).
  return make(name, "conv", parameters, {c, h, w, k, r, s, stride, pad, bias ? 1 : 0}, d(c) * d(h) * d(w));
}

Layer linear(const std::string& name, std::int64_t tokens, std::int64_t in, std::int64_t out, bool bias,
             bool tied) {
  const double parameters = (tied ? 0 : d(in) * d(out)) + (bias ? d(out) : 0);
  return make(name, "linear", parameters, {tokens, in, out, bias ? 1 : 0, tied ? 1 : 0}, d(tokens) * d(in));
}

Layer batchnorm(const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w) {
  return make(name, "batchnorm", 2 * d(c), {c, h, w}, d(c) * d(h) * d(w));
}

Layer layernorm(const std::string& name, std::int64_t tokens, std::int64_t hidden) {
  return make(name, "layernorm", 2 * d(hidden), {tokens, hidden}, d(tokens) * d(hidden));
}

Layer rmsnorm(const std::string& name, std::int64_t tokens, std::int64_t hidden) {
  return make(name, "rmsnorm", d(hidden), {tokens, hidden}, d(tokens) * d(hidden));
}

Layer activation(const std::string& name, const std::string& type, std::int64_t elements) {
  if (type != "relu" && type != "gelu" && type != "gelu_new" && type != "tanh") {
    throw Error("unknown activation type '" + type + "' for layer " + name);
  }
  return make(name, type, 0, {elements}, d(elements));
}

Layer swiglu(const std::string& name, std::int64_t tokens, std::int64_t ffn) {
  // Eager silu(gate) * up saves gate (for silu), silu(gate) and up (for the product).
  return make(name, "swiglu", 0, {tokens, ffn}, 3 * d(tokens) * d(ffn));
}

Layer pool(const std::string& name, const std::string& type, std::int64_t c, std::int64_t h, std::int64_t w,
           std::int64_t window, std::int64_t stride, std::int64_t pad) {
  if (type != "maxpool" && type != "avgpool") {
    throw Error("unknown pooling type '" + type + "' for layer " + name);
  }
  // Max pooling saves the argmax indices (one per output); average pooling needs only shapes.
  const double outputs =
      d(c) * d(conv_output_size(h, window, stride, pad)) * d(conv_output_size(w, window, stride, pad));
  return make(name, type, 0, {c, h, w, window, stride, pad}, type == "maxpool" ? outputs : 0);
}

Layer add(const std::string& name, std::int64_t elements, std::int64_t inputs, bool fork) {
  return make(name, "add", 0, {elements, inputs, fork ? 1 : 0}, 0);
}

Layer concat(const std::string& name, std::int64_t elements, std::int64_t inputs) {
  // The concatenated tensor is saved by the BatchNorm that consumes it, and counted there.
  return make(name, "concat", 0, {elements, inputs}, 0);
}

Layer dropout(const std::string& name, std::int64_t elements) {
  // The saved mask holds one byte per element: half a 16-bit activation.
  return make(name, "dropout", 0, {elements}, 0.5 * d(elements));
}

Layer embedding(const std::string& name, std::int64_t tokens, std::int64_t vocab, std::int64_t hidden) {
  // Saves only the integer indices, negligible next to activations.
  return make(name, "embedding", d(vocab) * d(hidden), {tokens, vocab, hidden}, 0);
}

Layer param_add(const std::string& name, std::int64_t elements, std::int64_t parameter_elements) {
  return make(name, "param_add", d(parameter_elements), {elements, parameter_elements}, 0);
}

Layer class_token(const std::string& name, std::int64_t tokens_in, std::int64_t hidden) {
  return make(name, "class_token", d(hidden), {tokens_in, hidden}, 0);
}

Layer rope(const std::string& name, std::int64_t tokens, std::int64_t elements_per_token) {
  // Backward needs only the cos/sin tables.
  return make(name, "rope", 0, {tokens, elements_per_token}, 0);
}

Layer attention(const std::string& name, std::int64_t seq, std::int64_t heads, std::int64_t head_dim,
                bool causal, std::int64_t kv_heads) {
  if (kv_heads == 0) kv_heads = heads;
  // Flash-style attention saves Q, K, V, O and one softmax statistic (log-sum-exp) per row; under
  // grouped-query attention K and V have kv_heads heads.
  const double saved = (2 * d(heads) + 2 * d(kv_heads)) * d(seq) * d(head_dim) + d(seq) * d(heads);
  return make(name, "attention", 0, {seq, heads, head_dim, causal ? 1 : 0, kv_heads}, saved);
}

Layer cross_entropy(const std::string& name, std::int64_t tokens, std::int64_t classes) {
  // log_softmax saves its output (the log-probabilities) for backward.
  return make(name, "cross_entropy", 0, {tokens, classes}, d(tokens) * d(classes));
}

Layer input_already_saved(Layer layer) {
  layer.saved_activation_elements_per_sample = 0;
  return layer;
}

Layer shares_input_of_previous(Layer layer) {
  layer.shares_input = true;
  return input_already_saved(std::move(layer));
}

}  // namespace simtrain::workload::zoo
