// Implements allocator_memory.h: the tensors eager PyTorch keeps alive at the start of backward, layer by
// layer, in the dtype autocast leaves them in. The rules are PyTorch's and Hugging Face's code, checked
// against the peaks measured on an H200 (traces/pytorch/h200_steps.json; README "Memory").
#include "simulator/workload/allocator_memory.h"

#include <algorithm>
#include <string>

#include "common/error.h"

namespace simtrain::workload {
namespace {

constexpr double kFp32Bytes = 4;
constexpr double kMaskBytes = 1;   // dropout keeps a bool mask
constexpr double kIndexBytes = 8;  // max pooling keeps int64 argmax indices
// max_memory_reserved / max_memory_allocated over the seven steps of traces/pytorch/h200_steps.json ranges
// 1.031 (GPT-2 XL) to 1.120 (ResNet-50 b256); their mean, 1.077, predicts each left-out step within 5.2%.
constexpr double kReservedOverAllocated = 1.077;

double dim(const Layer& layer, std::size_t i) {
  return i < layer.dims.size() ? static_cast<double>(layer.dims[i]) : 0;
}

struct Dtypes {
  bool autocast = false;
  double low = 4;     // bytes of a 16-bit activation under autocast, else fp32
  double stream = 4;  // a transformer's residual stream: fp32 under autocast (fp32 embeddings and adds)
};

// Bytes one sample of `layer` leaves saved for backward.
double saved_bytes_per_sample(const Layer& layer, const Dtypes& t) {
  const std::string& type = layer.type;
  const double zoo = layer.saved_activation_elements_per_sample;
  if (type == "linear") {
    // Under autocast every Linear saves its own 16-bit cast of its input: q, k and v each cast the fp32
    // stream, and out-projections read a fresh contiguous copy of the attention output.
    return t.autocast ? dim(layer, 0) * dim(layer, 1) * t.low : zoo * t.low;
  }
  if (type == "layernorm") return dim(layer, 0) * dim(layer, 1) * t.stream;
  // Hugging Face's eager RMSNorm keeps its fp32 input (for pow) and the normalised tensor (for the scale).
  if (type == "rmsnorm") return 2 * dim(layer, 0) * dim(layer, 1) * t.stream;
  if (type == "gelu_new") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) as separate operations: autocast runs pow in fp32, so
    // pow keeps an fp32 copy of x, tanh its fp32 output, the last product 1 + tanh (fp32) and 0.5 x.
    return dim(layer, 0) * (t.autocast ? 3 * kFp32Bytes + t.low : 4 * kFp32Bytes);
  }
  if (type == "dropout") return dim(layer, 0) * kMaskBytes;
  if (type == "maxpool") return zoo * kIndexBytes;
  if (type == "cross_entropy") return 0;  // counted in loss_bytes
  return zoo * t.low;
}

// The 16-bit copy autocast makes of each weight a GEMM or convolution reads, including a tied LM head's
// embedding matrix (whose parameters belong to the embedding layer).
double cast_elements(const Layer& layer) {
  if (layer.type == "conv") return layer.parameters;
  if (layer.type != "linear") return 0;
  const bool tied = dim(layer, 4) != 0;
  return layer.parameters + (tied ? dim(layer, 1) * dim(layer, 2) : 0);
}

}  // namespace

double AllocatorPeak::allocated_bytes() const {
  return weights_bytes + optimizer_states_bytes + weight_casts_bytes + activations_bytes + loss_bytes +
         backward_transient_bytes;
}

double AllocatorPeak::reserved_bytes() const { return allocated_bytes() * kReservedOverAllocated; }

AllocatorPeak estimate_allocator_peak(const Model& model, int batch, Precision precision,
                                      double optimizer_state_bytes_per_parameter) {
  if (batch < 1) throw Error("--batch-per-gpu: must be at least 1, got " + std::to_string(batch));
  Dtypes t;
  t.autocast = precision == Precision::AMP_FP16 || precision == Precision::AMP_BF16;
  t.low = static_cast<double>(bytes_per_element(activation_dtype(precision)));
  t.stream = model.transformer ? kFp32Bytes : t.low;

  AllocatorPeak peak;
  const double parameters = model.parameters();
  peak.weights_bytes = parameters * kFp32Bytes;
  peak.optimizer_states_bytes = parameters * optimizer_state_bytes_per_parameter;
  double largest = 0;
  for (const Layer& layer : model.layers) {
    if (t.autocast) peak.weight_casts_bytes += cast_elements(layer) * t.low;
    const double saved = saved_bytes_per_sample(layer, t) * batch;
    peak.activations_bytes += saved;
    largest = std::max(largest, saved);
    if (layer.type == "cross_entropy") {
      // The logits stay alive (the model returns them); the loss upcasts them to fp32 and log_softmax keeps
      // its fp32 output.
      const double logits = dim(layer, 0) * dim(layer, 1) * batch;
      peak.loss_bytes += logits * (t.low + 2 * kFp32Bytes);
    }
  }
  peak.backward_transient_bytes = 2 * largest;
  return peak;
}

}  // namespace simtrain::workload
