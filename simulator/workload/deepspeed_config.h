// DeepSpeed's JSON configuration (the file given to deepspeed.initialize / --deepspeed_config), read as
// DeepSpeed reads it, into a large-model plan: ZeRO stage, overlap_comm, micro-batch, gradient
// accumulation and train_batch_size (which must agree, as DeepSpeed checks), fp16 / bf16.
//
// What simtrain does not model is refused (CPU or NVMe offload of optimizer states or parameters); keys
// that do not change a step's time in simtrain's model (the learning-rate schedule, clipping, logging,
// ZeRO's bucket and prefetch sizes) are listed back; keys DeepSpeed does not have are warned about once.
#pragma once

#include <string>
#include <vector>

#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

struct DeepSpeedPlan {
  ParallelConfig config;
  std::vector<std::string> no_effect;  // "gradient_clipping", "zero_optimization.reduce_bucket_size", ...
  std::vector<std::string> unknown;    // keys DeepSpeed's schema does not have (typos?)
};

// `base` (simtrain's own options: model, GPUs, sequence) with the file's settings. Throws Error naming the
// file and the key on a bad value, an offload, or batch sizes that do not agree.
DeepSpeedPlan parse_deepspeed_config(const std::string& json_text, const std::string& origin,
                                     ParallelConfig base);
DeepSpeedPlan read_deepspeed_config(const std::string& path, ParallelConfig base);

}  // namespace simtrain::workload
