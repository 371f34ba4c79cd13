// Implements kernel_class.h: the launching operator's name says what the kernel does; its input shapes say
// how much. Rules follow ATen's operator signatures (native_functions.yaml) as PyTorch 2.x records them.
#include "simulator/trace/kernel_class.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace simtrain::trace {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.starts_with(prefix); }
bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

double elements(const std::vector<std::int64_t>& shape) {
  double n = 1;
  for (std::int64_t d : shape) n *= static_cast<double>(d);
  return shape.empty() ? 0 : n;
}

const std::vector<std::int64_t>& input(const KinetoCpuOp& op, std::size_t i) {
  static const std::vector<std::int64_t> none;
  return i < op.input_dims.size() ? op.input_dims[i] : none;
}

// The bytes of input `i` (0 when it is not a tensor of a known type).
double input_bytes(const KinetoCpuOp& op, std::size_t i) {
  if (i >= op.input_types.size()) return 0;
  return elements(input(op, i)) * element_bytes(op.input_types[i]);
}

// "[2, 2]" -> {2, 2}; a bare "1" -> {1}; anything else -> {}.
std::vector<std::int64_t> integer_list(const KinetoCpuOp& op, std::size_t i) {
  std::vector<std::int64_t> values;
  if (i >= op.concrete_inputs.size()) return values;
  std::int64_t n = 0;
  bool in_number = false;
  for (char c : op.concrete_inputs[i]) {
    if (c >= '0' && c <= '9') {
      n = std::min<std::int64_t>(n * 10 + (c - '0'), std::int64_t{1} << 40);
      in_number = true;
    } else if (in_number) {
      values.push_back(n);
      n = 0;
      in_number = false;
    }
  }
  if (in_number) values.push_back(n);
  return values;
}

// The dtype of the first floating-point tensor input, fp32 when none.
DType op_dtype(const KinetoCpuOp& op) {
  DType dtype = DType::FP32;
  for (const std::string& type : op.input_types)
    if (dtype_of_profiler_type(type, dtype)) return dtype;
  return DType::FP32;
}

void set_gemm(ComputeSpec& spec, const KinetoCpuOp& op, double batch, std::int64_t m, std::int64_t n,
              std::int64_t k) {
  spec.kind = ComputeKind::Gemm;
  spec.dtype = op_dtype(op);
  spec.shape = {static_cast<std::int64_t>(batch) * m, n, k};
  const double size = bytes_per_element(spec.dtype);
  spec.flops = 2 * batch * static_cast<double>(m) * n * k;
  spec.bytes = batch * (static_cast<double>(m) * k + static_cast<double>(k) * n + static_cast<double>(m) * n) * size;
}

// A GEMM operator: mm(a, b), addmm(bias, a, b), bmm(a, b), baddbmm(c, a, b).
bool classify_gemm(const KinetoCpuOp& op, ComputeSpec& spec) {
  const std::string& name = op.name;
  std::size_t first = 0;
  if (name == "aten::mm" || name == "aten::bmm") first = 0;
  else if (name == "aten::addmm" || name == "aten::baddbmm" || name == "aten::_addmm_activation") first = 1;
  else return false;
  const auto& a = input(op, first);
  const auto& b = input(op, first + 1);
  if (a.size() == 2 && b.size() == 2 && a[1] == b[0]) {
    set_gemm(spec, op, 1, a[0], b[1], a[1]);
    return true;
  }
  if (a.size() == 3 && b.size() == 3 && a[0] == b[0] && a[2] == b[1]) {
    set_gemm(spec, op, static_cast<double>(a[0]), a[1], b[2], a[2]);
    return true;
  }
  spec.kind = ComputeKind::Gemm;  // a GEMM whose shapes were not recorded
  spec.dtype = op_dtype(op);
  return true;
}

void set_conv(ComputeSpec& spec, const KinetoCpuOp& op, const std::vector<std::int64_t>& x,
              const std::vector<std::int64_t>& w, const std::vector<std::int64_t>& stride,
              const std::vector<std::int64_t>& pad, double passes) {
  spec.kind = ComputeKind::Conv;
  spec.dtype = op_dtype(op);
  // PyTorch runs fp32 convolutions on TF32 tensor cores unless told not to (cudnn.allow_tf32 = True).
  if (spec.dtype == DType::FP32) spec.dtype = DType::TF32;
  if (x.size() != 4 || w.size() != 4) return;
  const std::int64_t s = stride.empty() ? 1 : std::max<std::int64_t>(stride[0], 1);
  const std::int64_t p = pad.empty() ? 0 : pad[0];
  spec.shape = {x[0], x[1], x[2], x[3], w[0], w[2], w[3], s, p};
  const double out_h = std::max<double>(1, std::floor((x[2] + 2.0 * p - w[2]) / s) + 1);
  const double out_w = std::max<double>(1, std::floor((x[3] + 2.0 * p - w[3]) / s) + 1);
  const double size = bytes_per_element(spec.dtype);
  spec.flops = passes * 2.0 * x[0] * w[0] * out_h * out_w * static_cast<double>(w[1]) * w[2] * w[3];
  spec.bytes = passes * (elements(x) + elements(w) + x[0] * w[0] * out_h * out_w) * size;
}

// convolution(input, weight, bias, stride, padding, ...), cudnn_convolution(input, weight, padding, stride,
// ...), convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, ..., output_mask).
bool classify_conv(const KinetoCpuOp& op, ComputeSpec& spec) {
  const std::string& name = op.name;
  if (name == "aten::convolution" || name == "aten::_convolution") {
    set_conv(spec, op, input(op, 0), input(op, 1), integer_list(op, 3), integer_list(op, 4), 1);
    spec.pass = Pass::Forward;
    return true;
  }
  if (name == "aten::cudnn_convolution" || name == "aten::cudnn_convolution_relu" ||
      name == "aten::miopen_convolution") {
    set_conv(spec, op, input(op, 0), input(op, 1), integer_list(op, 3), integer_list(op, 2), 1);
    spec.pass = Pass::Forward;
    return true;
  }
  if (name == "aten::convolution_backward") {
    // Both gradients (data and weight) by default: output_mask says which.
    const auto mask = op.concrete_inputs.size() > 10 ? op.concrete_inputs[10] : std::string();
    const double passes = mask.empty() ? 2 : std::count(mask.begin(), mask.end(), 'T') > 1 ? 2 : 1;
    set_conv(spec, op, input(op, 1), input(op, 2), integer_list(op, 4), integer_list(op, 5), passes);
    spec.pass = Pass::BackwardData;
    return true;
  }
  return false;
}

// The fused attention operators: their query is the first 4-D input, {batch, heads, seq, head_dim}.
bool classify_attention(const KinetoCpuOp& op, ComputeSpec& spec) {
  const std::string& name = op.name;
  if (!contains(name, "attention") || !starts_with(name, "aten::_")) return false;
  const bool backward = contains(name, "backward");
  spec.kind = ComputeKind::Attention;
  spec.dtype = op_dtype(op);
  spec.pass = backward ? Pass::BackwardData : Pass::Forward;
  for (const auto& q : op.input_dims) {
    if (q.size() != 4) continue;
    spec.shape = {q[0], q[1], q[2], q[3]};
    // Q K^T and P V: 4 b h s^2 d forward; backward computes four such products.
    const double forward = 4.0 * q[0] * q[1] * static_cast<double>(q[2]) * q[2] * q[3];
    spec.flops = backward ? 2 * forward : forward;
    spec.bytes = (backward ? 8 : 4) * elements(q) * bytes_per_element(spec.dtype);
    break;
  }
  return true;
}

// Operators whose kernels read and write their tensors once: the kind by name, bytes from the inputs (and
// an output as large as the largest input).
bool classify_memory_bound(const KinetoCpuOp& op, ComputeSpec& spec) {
  const std::string& name = op.name;
  if (!starts_with(name, "aten::")) return false;
  if (contains(name, "batch_norm")) spec.kind = ComputeKind::BatchNorm;
  else if (contains(name, "layer_norm") || contains(name, "rms_norm")) spec.kind = ComputeKind::LayerNorm;
  else if (contains(name, "softmax")) spec.kind = ComputeKind::Softmax;
  else if (contains(name, "embedding")) spec.kind = ComputeKind::Embedding;
  else if (contains(name, "pool")) spec.kind = ComputeKind::Pool;
  else if (contains(name, "_fused_adam") || contains(name, "_fused_sgd") || starts_with(name, "aten::_foreach_") ||
           contains(name, "_amp_foreach") || contains(name, "_amp_update_scale"))
    spec.kind = ComputeKind::Optimizer;
  else if (contains(name, "relu") || contains(name, "gelu") || contains(name, "silu") || contains(name, "tanh") ||
           contains(name, "sigmoid") || contains(name, "threshold_backward") || contains(name, "hardtanh"))
    spec.kind = ComputeKind::Activation;
  else spec.kind = ComputeKind::Elementwise;
  spec.dtype = op_dtype(op);
  double bytes = 0, largest = 0;
  for (std::size_t i = 0; i < op.input_dims.size(); ++i) {
    const double b = input_bytes(op, i);
    bytes += b;
    largest = std::max(largest, b);
  }
  spec.bytes = bytes + largest;
  return true;
}

}  // namespace

bool dtype_of_profiler_type(const std::string& type, DType& out) {
  if (type == "c10::Half") out = DType::FP16;
  else if (type == "c10::BFloat16") out = DType::BF16;
  else if (type == "float" || type == "double") out = DType::FP32;
  else if (starts_with(type, "c10::Float8")) out = DType::FP8;
  else return false;
  return true;
}

double element_bytes(const std::string& type) {
  if (type == "c10::Half" || type == "c10::BFloat16" || type == "short int") return 2;
  if (type == "float" || type == "int") return 4;
  if (type == "double" || type == "long int") return 8;
  if (starts_with(type, "c10::Float8") || type == "unsigned char" || type == "bool" || type == "signed char")
    return 1;
  return 0;
}

ComputeSpec classify_activity(const KinetoGpuActivity& activity, const OperatorStack& launchers) {
  ComputeSpec spec;
  if (activity.kind != GpuActivityKind::Kernel) {
    // A copy reads and writes its bytes; a memset only writes them.
    spec.kind = ComputeKind::Elementwise;
    spec.bytes = activity.kind == GpuActivityKind::Memcpy ? 2 * activity.bytes : activity.bytes;
    return spec;
  }
  for (const KinetoCpuOp* op : launchers) {
    if (starts_with(op->name, "Optimizer.step")) spec.pass = Pass::Update;
    if (starts_with(op->name, "autograd::engine::evaluate_function") && spec.pass != Pass::Update)
      spec.pass = Pass::BackwardData;
  }
  // The innermost operator that says what the kernel is: a GEMM inside linear inside a module's range.
  for (auto it = launchers.rbegin(); it != launchers.rend(); ++it) {
    const KinetoCpuOp& op = **it;
    const Pass pass = spec.pass;
    if (classify_gemm(op, spec) || classify_conv(op, spec) || classify_attention(op, spec)) {
      if (spec.kind == ComputeKind::Gemm) spec.pass = pass;
      if (pass == Pass::Update) spec.pass = pass;
      return spec;
    }
  }
  for (auto it = launchers.rbegin(); it != launchers.rend(); ++it)
    if (classify_memory_bound(**it, spec)) return spec;
  return spec;
}

}  // namespace simtrain::trace
