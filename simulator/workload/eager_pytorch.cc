// Implements eager_pytorch.h: each pass is a memory-bound kernel whose bytes are counted from the tensors it
// reads and writes.
#include "simulator/workload/eager_pytorch.h"

#include <cstdint>
#include <string>

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
  return kernel;
}

double dim(const Layer& layer, std::size_t i) {
  return i < layer.dims.size() ? static_cast<double>(layer.dims[i]) : 0;
}

}  // namespace

LayerKernels with_eager_pytorch_passes(LayerKernels kernels, const Layer& layer, const Model& model,
                                       int batch, Precision precision) {
  const bool autocast = precision == Precision::AMP_FP16 || precision == Precision::AMP_BF16;
  const DType low = activation_dtype(precision);
  const double e = static_cast<double>(bytes_per_element(low));
  const double n = batch;
  const std::string& type = layer.type;

  if (type == "rope") {
    // rotate_half: neg (half read, half written), cat (1 + 1), x * cos (1 + 1), rotated * sin (1 + 1),
    // their sum (2 + 1): ten passes where a fused kernel makes two. Backward mirrors it.
    const double elements = n * dim(layer, 0) * dim(layer, 1);
    kernels.forward = {pass(ComputeKind::Elementwise, Pass::Forward, low, elements, 5.5 * e, 4.5 * e)};
    kernels.backward = {pass(ComputeKind::Elementwise, Pass::BackwardData, low, elements, 5.5 * e, 4.5 * e)};
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
  if (!autocast) return kernels;

  if ((type == "linear" || type == "conv") && layer.parameters > 0) {
    // The fp32 weight cast to 16 bits before the first use in forward; its gradient cast back after backward.
    kernels.forward.insert(kernels.forward.begin(), pass(ComputeKind::Elementwise, Pass::Forward, low,
                                                         layer.parameters, kFp32Bytes, e));
    kernels.backward.push_back(
        pass(ComputeKind::Elementwise, Pass::BackwardWeight, low, layer.parameters, e, kFp32Bytes));
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

}  // namespace simtrain::workload
