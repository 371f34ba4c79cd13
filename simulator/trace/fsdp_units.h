// PyTorch FullyShardedDataParallel's units, for scaling a one-GPU trace out to many with sharded
// parameters. FSDP wraps modules into units (size_based_auto_wrap_policy: a module whose not-yet-wrapped
// parameters reach min_num_params, 1e8 by default), and per unit:
//  - forward: all-gathers the unit's parameters before its first kernel (then frees them: the default
//    reshard_after_forward, except for the root unit, which runs first in backward and keeps them);
//  - backward: all-gathers them again before the unit's backward, prefetched while the unit before it runs
//    (BACKWARD_PRE), and reduce-scatters the gradients once the unit's last gradient is complete;
//  - the optimizer then updates only the local shard, 1/N of the parameters.
// A recorded step names its gradients (AccumulateGrad, in the order backward completes them) but not its
// modules, so the units are runs of consecutive gradients in that order, and each unit's forward span is
// placed by the GPU time its backward took (forward runs the units in the opposite order).
#pragma once

#include <cstddef>
#include <vector>

#include "simulator/trace/ddp_buckets.h"

namespace simtrain::trace {

// One FSDP unit: its parameters (as gradients, in backward order) and where its work lies among the step's
// GPU activities (indices in launch order).
struct FsdpUnit {
  double bytes = 0;  // the unit's parameters (= its gradients) in their dtype
  DType dtype = DType::FP32;
  int gradients = 0;
  std::size_t backward_first = 0;  // the first activity of the unit's backward
  std::size_t ready_after = 0;     // the activity after which its last gradient is complete
  std::size_t forward_first = 0;   // the first activity of the unit's forward
};

// The units for `gradients`, given in the order they become ready (their ready_after ascending): a unit
// closes once it holds at least `min_unit_params` parameters. The first unit's backward starts at
// `backward_start`, the first activity of the backward pass. forward_first is left 0: see place_forward.
std::vector<FsdpUnit> plan_fsdp_units(const std::vector<GradientReady>& gradients, double min_unit_params,
                                      std::size_t backward_start);

// Sets each unit's forward_first: the forward (activities [0, backward_start)) runs the units in reverse
// order, each taking the share of the forward's GPU time that its backward takes of the backward's.
// `activity_seconds` holds every activity's duration in launch order.
void place_fsdp_forward(std::vector<FsdpUnit>& units, const std::vector<double>& activity_seconds,
                        std::size_t backward_start);

}  // namespace simtrain::trace
