// The collectives PyTorch FSDP (FULL_SHARD, FSDP1's defaults) issues around one micro-step of the eager
// generator's kernels, and which kernels wait for them:
//  - forward: the root unit's parameters are gathered first and kept; each block's before its first kernel,
//    the next block's prefetched as soon as the block before the current one has freed its own
//    (limit_all_gathers: at most two blocks' gathered parameters alive at once);
//  - backward: each block gathers its parameters again (resharded after forward) and, as it starts,
//    prefetches the next block in backward order (BACKWARD_PRE) once the block before it has finished;
//  - each block's gradients are reduce-scattered once its backward is done, the root's at the end; under
//    HYBRID_SHARD the reduced shard is then all-reduced across the replicas, on the same stream.
// Gathers run on their own stream and reduce-scatters on another, so both overlap the kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/fsdp_wrap.h"

namespace simtrain::workload {

// Where the collectives run: the program's streams for gathers and for gradient reductions (each its own,
// beside the kernels'), and the trace's communicator groups: the ranks a unit is sharded over, and under
// HYBRID_SHARD the replicas each shard's reduced gradients are then all-reduced across.
struct FsdpStreams {
  std::uint8_t gather = 0;
  std::uint8_t reduce_scatter = 0;
  std::uint16_t shard_group = 0;
  std::optional<std::uint16_t> replicate_group;
  int shard_size = 1;  // ranks per shard group: the all-reduced shard is 1/shard_size of the unit
};

// FSDP's MixedPrecision: param_dtype (what is gathered) and reduce_dtype (what gradients are reduced in).
struct FsdpDtypes {
  DType gather = DType::FP32;
  DType reduce = DType::FP32;
};

// One micro-step's FSDP collectives: the generator calls before_* and after_* around each layer's kernels
// (forward in layer order, backward in reverse), then finish().
class FsdpMicroStep {
 public:
  // Ops are appended to `program`, named after `prefix` ("step2."); `model` and `wrap` must outlive this.
  // `previous_step_end`: the last kernel of the micro-step before, after which the root unit (resharded at
  // the end of every backward) may be gathered again.
  FsdpMicroStep(const Model& model, const FsdpWrap& wrap, FsdpDtypes dtypes, FsdpStreams streams,
                std::string prefix, std::optional<std::uint32_t> previous_step_end, trace::Program& program);

  // The ops layer `layer`'s first forward kernel waits for (appending the gathers issued before it).
  std::vector<std::uint32_t> before_forward(std::size_t layer);
  // `last_kernel`: the last forward kernel appended so far, once layer `layer`'s are.
  void after_forward(std::size_t layer, std::uint32_t last_kernel);
  // The ops layer `layer`'s first backward kernel waits for; `end_of_forward`, the forward's last kernel.
  std::vector<std::uint32_t> before_backward(std::size_t layer, std::uint32_t end_of_forward);
  // `last_kernel`: the last backward kernel appended so far, once layer `layer`'s are.
  void after_backward(std::size_t layer, std::uint32_t last_kernel);
  // Appends the root unit's gradient reduction after `end_of_backward`; returns every gradient reduction
  // of the micro-step, which the optimizer step waits for.
  std::vector<std::uint32_t> finish(std::uint32_t end_of_backward);

 private:
  std::uint32_t gather(const std::string& name, double parameters, std::vector<std::uint32_t> deps);
  // The reduce-scatter (and under HYBRID_SHARD the all-reduce after it) of `parameters` gradients.
  void reduce(const std::string& unit, double parameters, std::uint32_t after);
  void gather_forward(std::size_t unit, std::vector<std::uint32_t> deps);
  void gather_backward(std::size_t unit, std::vector<std::uint32_t> deps);
  std::string unit_name(std::size_t unit) const;

  const Model& model_;
  const FsdpWrap& wrap_;
  FsdpDtypes dtypes_;
  FsdpStreams streams_;
  std::string prefix_;
  trace::Program& program_;
  std::optional<std::uint32_t> root_gather_;
  bool root_gather_awaited_ = false;
  std::vector<std::optional<std::uint32_t>> forward_gather_, backward_gather_;
  std::vector<std::optional<std::uint32_t>> forward_end_, backward_end_;
  std::vector<std::uint32_t> gradient_reductions_;
};

}  // namespace simtrain::workload
