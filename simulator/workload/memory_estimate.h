// Memory needed per GPU by a training configuration, term by term.
#pragma once

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/precision.h"

namespace simtrain::workload {

struct MemoryEstimate {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_states_bytes = 0;
  double activations_bytes = 0;
  double communication_buffers_bytes = 0;  // DDP buckets
  double workspace_bytes = 0;              // library workspaces and allocator slack

  double total_bytes() const;
};

// Per-GPU memory of data-parallel training: every rank holds full weights, gradients and optimizer states
// (`optimizer_state_bytes_per_parameter`: 8 for Adam, 4 for SGD with momentum) and the saved activations
// of one micro-batch. Activations are the elements each layer saves for backward (what PyTorch keeps:
// conv/linear inputs, BatchNorm and LayerNorm inputs, ReLU outputs, attention Q, K, V, O and softmax
// statistics, dropout masks, ...; a tensor saved by two layers counted once) times the micro-batch times the
// activation dtype's size. DDP's flat bucket copy of the gradients adds 4 B per parameter whenever
// bucket_bytes > 0 (0 = no bucketing). Workspace is a fixed 1 GiB for cuDNN/cuBLAS workspaces, the CUDA
// context and allocator slack. Throws Error when batch_per_gpu < 1.
MemoryEstimate estimate_data_parallel_memory(const Model& model, int batch_per_gpu, Precision precision,
                                             double optimizer_state_bytes_per_parameter, double bucket_bytes);

}  // namespace simtrain::workload
