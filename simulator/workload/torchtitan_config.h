// A torchtitan job file (the TOML given to torchtitan's train.py with --job.config_file), read as torchtitan
// reads it, into a large-model plan: the model ([model] name and flavor, "float8" among its converters),
// the batch and sequence ([training]), FSDP / HSDP, tensor, pipeline and context parallel degrees
// ([parallelism]; a shard degree of -1 takes the GPUs left over), and activation checkpointing.
//
// This reader follows torchtitan's schema with a [parallelism] table (2025 on); the older one, which kept
// the degrees under [training], is refused with one line. Sections that do not change a step's time (job,
// metrics, checkpoint, optimizer, learning-rate schedule, ...) are listed back; keys the schema does not
// have in the sections read are warned about once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

struct TorchtitanPlan {
  ParallelConfig config;
  std::optional<double> steps;         // [training] steps: the job's length
  std::vector<std::string> no_effect;  // "[optimizer]", "training.dataset", ...
  std::vector<std::string> unknown;    // keys of the sections read that the schema does not have
};

// `base` (simtrain's own options: GPUs, platform-independent defaults) with the file's settings. Throws
// Error naming the file, line and key on a bad value, a model simtrain does not have, degrees that do not
// divide the GPUs, or the older schema.
TorchtitanPlan parse_torchtitan_config(const std::string& toml_text, const std::string& origin,
                                       ParallelConfig base);
TorchtitanPlan read_torchtitan_config(const std::string& path, ParallelConfig base);

}  // namespace simtrain::workload
