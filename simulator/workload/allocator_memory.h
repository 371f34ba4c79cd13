// Peak memory of one eager PyTorch training step as the caching allocator counts it
// (torch.cuda.max_memory_allocated / max_memory_reserved), so that a prediction can be checked against what
// a user's script prints. memory_estimate.h is the device-level view (context and library slack included)
// used to say whether a configuration fits.
#pragma once

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/precision.h"

namespace simtrain::workload {

// The terms of the peak, which falls at the start of backward: everything forward saved is alive, and
// optimizer.zero_grad() (set_to_none, PyTorch's default) has freed the previous step's gradients.
struct AllocatorPeak {
  double weights_bytes = 0;           // fp32 master weights
  double optimizer_states_bytes = 0;  // momentum (SGD) or both Adam moments
  // Under autocast, the 16-bit copy of every Linear and Conv weight (and bias), cached for the forward pass
  // and kept by autograd for the data gradient.
  double weight_casts_bytes = 0;
  double activations_bytes = 0;  // what each module saves for backward, in the dtype eager mode keeps it
  // The loss over the logits: the 16-bit logits the model returns, their fp32 upcast and fp32 log-probs.
  double loss_bytes = 0;
  // The backward pass's first gradients: twice the largest tensor one layer saves.
  double backward_transient_bytes = 0;

  double allocated_bytes() const;
  // Reserved = allocated x kReservedOverAllocated: the allocator's block rounding and segments kept for
  // reuse, one fitted figure (allocator_memory.cc gives its fit and leave-one-out error).
  double reserved_bytes() const;
};

// The peak of a stock eager step of `model` (torchvision, Hugging Face transformers with SDPA) on one GPU:
// no DDP buckets. `optimizer_state_bytes_per_parameter`: 8 for Adam, 4 for SGD with momentum.
// Throws Error when batch < 1.
AllocatorPeak estimate_allocator_peak(const Model& model, int batch, Precision precision,
                                      double optimizer_state_bytes_per_parameter);

}  // namespace simtrain::workload
