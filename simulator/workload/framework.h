// The training frameworks a data-parallel job runs under, and what each adds beyond its kernels and
// collectives: how gradients are reduced, a one-off start-up and a per-step overhead.
//
// The overheads are parameters with documented defaults, not measurements of your cluster: override them
// (--startup-s, --step-overhead) with figures from your own runs. Defaults:
//  - PyTorch DDP (torchrun): 3 s start-up (process group and NCCL communicator set-up), no per-step overhead.
//  - Ray Train (TorchTrainer, which wraps DDP): 4 s plus 0.125 s per worker of start-up (Ray places one
//    actor per worker before DDP's set-up: 6 s at 16 workers, an assumption within the "few seconds" Ray's
//    docs give) and 2.3% per step, the gap Ray's own parity benchmark reports against native PyTorch on 16
//    GPU workers (149.80 s vs 146.46 s; docs.ray.io/en/latest/train/benchmarks.html, which also notes "a
//    constant setup overhead of a few seconds for both methods").
//  - DeepSpeed (engine, ZeRO stage 0): 5 s start-up (engine and communicator set-up); gradients are
//    all-reduced after backward in reduce_bucket_size = 5e8-element buckets, as DeepSpeed's default
//    overlap_comm = false for stages 0-2 does, instead of overlapping with backward as DDP does.
#pragma once

#include <optional>
#include <string_view>

#include "simulator/workload/data_parallel.h"

namespace simtrain::workload {

enum class Framework { PyTorchDDP, RayTrain, DeepSpeed };

// "ddp", "ray-train", "deepspeed".
std::string_view to_string(Framework framework);
std::optional<Framework> parse_framework(std::string_view text);

struct FrameworkOverheads {
  double startup_s = 0;             // once per job
  double startup_per_worker_s = 0;  // once per job, per worker (one worker per GPU)
  double step_overhead = 0;         // per optimizer step, as a fraction of the simulated iteration time

  double startup_for(int workers) const { return startup_s + startup_per_worker_s * workers; }
};
FrameworkOverheads default_overheads(Framework framework);

// Sets the gradient-reduction schedule the framework uses (bucket sizes, overlap with backward).
void apply_framework(Framework framework, DataParallelConfig& config);

}  // namespace simtrain::workload
