// A chosen plan as the commands that run it: the `simtrain run` options that simulate it (also what the
// search passes to its simulations) and the Megatron-LM arguments that would train it.
#pragma once

#include <string>
#include <vector>

#include "simulator/study/scenario_file.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::plan {

// `simtrain run` options for `config` on `platform`, as study settings ("--sp" is a switch set to "true").
std::vector<study::Setting> run_settings(const workload::ParallelConfig& config, const std::string& platform);

// "simtrain run --model gpt3-175b --platform dgx-a100 --gpus 1024 ..." (values shell-quoted when needed).
std::string run_command_line(const workload::ParallelConfig& config, const std::string& platform);

// Megatron-LM's pretrain_gpt.py arguments for the plan and model shape: parallel sizes, batch, sequence,
// precision, recomputation, the distributed optimizer. Sharding Megatron-LM does not have is named as the
// framework that has it: ZeRO stages as Megatron-DeepSpeed's --zero-stage, FSDP as --use-torch-fsdp2, hybrid
// shard as a note.
std::string megatron_arguments(const workload::ParallelConfig& config,
                               const workload::TransformerConfig& model);

}  // namespace simtrain::plan
