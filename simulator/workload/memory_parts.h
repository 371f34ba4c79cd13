// A memory estimate's parts by name, as TraceMetadata::memory_breakdown_bytes and the Result report them.
// Both estimates (memory_estimate.h for data-parallel runs, parallel_memory.h for large-model plans) split
// memory the same way.
#pragma once

#include <map>
#include <string>

namespace simtrain::workload {

template <typename Estimate>
std::map<std::string, double> memory_parts(const Estimate& e) {
  return {{"weights", e.weights_bytes},
          {"gradients", e.gradients_bytes},
          {"optimizer_states", e.optimizer_states_bytes},
          {"activations", e.activations_bytes},
          {"communication_buffers", e.communication_buffers_bytes},
          {"workspace", e.workspace_bytes}};
}

}  // namespace simtrain::workload
