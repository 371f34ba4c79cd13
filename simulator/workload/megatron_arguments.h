// Megatron-LM's own command-line arguments (pretrain_gpt.py's names and meanings), so that a line pasted from
// a Megatron script models the run it describes: parallel sizes, batches, recomputation, precision, the
// model's shapes, and Megatron's defaults where they differ from simtrain's (its gradient reduction does
// not overlap backward unless --overlap-grad-reduce is given).
//
// --num-layers-per-virtual-pipeline-stage N is Megatron's older way of saying interleaving: N layers per
// model chunk, so simtrain's --vpp (model chunks per pipeline rank) is num_layers / (pp x N); newer
// Megatron's --virtual-pipeline-model-parallel-size is --vpp itself.
//
// Arguments that do not change a step's time (data paths, tokenizer files, learning-rate schedule, logging,
// checkpointing) are accepted and listed back, never silently dropped; --train-iters sets the job's steps.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

// The Megatron-LM arguments of a command line, in order: name without the dashes, and value ("" for a
// switch).
struct MegatronArguments {
  std::vector<std::pair<std::string, std::string>> given;

  bool empty() const { return given.empty(); }
  bool has(const std::string& name) const;
};

// Moves Megatron-LM's arguments out of `args` (those simtrain knows, with the value each takes), leaving
// simtrain's own options in order. A name both use (--seed) is Megatron's only on a line with other Megatron
// arguments. Throws Error when one that takes a value is last.
MegatronArguments take_megatron_arguments(std::vector<std::string>& args);

// What a Megatron command line adds to a plan.
struct MegatronPlan {
  ParallelConfig config;
  std::optional<double> train_iters;  // --train-iters, or --train-samples over the global batch: the steps
  std::vector<std::string> ignored;   // accepted arguments that do not change a step's time ("--lr", ...)
};

// The text of a simtrain option given explicitly on the command line ("tp" -> "8"; "" for a switch), or
// nullopt when it was not given: a Megatron name and its simtrain alias must agree.
using GivenOption = std::function<std::optional<std::string>(const std::string& simtrain_option)>;

// `base` (from simtrain's own options) with the Megatron arguments applied. Throws Error naming the
// argument on a bad value, on a Megatron name that disagrees with its simtrain alias, and on what simtrain
// does not model (e.g. --recompute-num-layers without --recompute-method).
MegatronPlan apply_megatron_arguments(const MegatronArguments& arguments, ParallelConfig base,
                                      const GivenOption& given);

}  // namespace simtrain::workload
