// Per-GPU memory of data-parallel training, term by term, so that a report can say what does not fit and why.
#include "simulator/workload/memory_estimate.h"

#include "common/error.h"

namespace simtrain::workload {
namespace {

// cuDNN and cuBLAS workspaces plus the CUDA context and allocator slack: a fixed allowance of about 1 GiB,
// what nvidia-smi shows beyond PyTorch's own tensors on current drivers.
constexpr double kWorkspaceBytes = 1024.0 * 1024 * 1024;

}  // namespace

double MemoryEstimate::total_bytes() const {
  return weights_bytes + gradients_bytes + optimizer_states_bytes + activations_bytes +
         communication_buffers_bytes + workspace_bytes;
}

MemoryEstimate estimate_data_parallel_memory(const Model& model, int batch_per_gpu, Precision precision,
                                             double optimizer_state_bytes_per_parameter,
                                             double bucket_bytes) {
  if (batch_per_gpu < 1)
    throw Error("--batch-per-gpu: must be at least 1, got " + std::to_string(batch_per_gpu));
  if (optimizer_state_bytes_per_parameter < 0)
    throw Error("optimizer state bytes per parameter must not be negative");
  const double parameters = model.parameters();
  const double parameter_bytes = bytes_per_element(kParameterDType);
  double saved_elements = 0;
  for (const Layer& layer : model.layers) saved_elements += layer.saved_activation_elements_per_sample;

  MemoryEstimate estimate;
  estimate.weights_bytes = parameters * parameter_bytes;
  estimate.gradients_bytes = parameters * parameter_bytes;
  estimate.optimizer_states_bytes = parameters * optimizer_state_bytes_per_parameter;
  estimate.activations_bytes =
      saved_elements * batch_per_gpu * bytes_per_element(activation_dtype(precision));
  // DDP copies every gradient into a flat bucket for the all-reduce: one more fp32 copy of all gradients,
  // whatever the bucket size. Without bucketing (bucket_bytes == 0) there is none.
  estimate.communication_buffers_bytes = bucket_bytes > 0 ? parameters * parameter_bytes : 0;
  estimate.workspace_bytes = kWorkspaceBytes;
  return estimate;
}

}  // namespace simtrain::workload
