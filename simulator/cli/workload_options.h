// The options shared by `simtrain run` and `simtrain trace` that describe a generated workload.
#pragma once

#include <optional>
#include <string>

#include <boost/program_options.hpp>

#include "simulator/workload/data_parallel.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::cli {

// Declares --model, --gpus, --batch-per-gpu, --grad-accum, --precision, --seq-len, --bucket-mb, --optimizer.
void add_workload_options(boost::program_options::options_description& options);
// Builds the config from parsed options; throws Error naming the option on bad values.
workload::DataParallelConfig workload_from_options(const boost::program_options::variables_map& vm);

// Declares --cross-entropy-loss-fusion and --cross-entropy-fusion-impl (add_parallel_options does too).
void add_loss_options(boost::program_options::options_description& options);
// The loss they choose: Megatron's unfused one without them. Throws Error naming the option on a bad value.
workload::CrossEntropyFusion loss_from_options(const boost::program_options::variables_map& vm);

// Declares the model-parallel options of large-model training: --tp --sp --pp --vpp --cp --ep --dp --zero
// --fsdp --distributed-optimizer --micro-batch --global-batch --recompute --schedule.
void add_parallel_options(boost::program_options::options_description& options);
// True when any model-parallel option was given: the run is then generated as Megatron-LM/DeepSpeed run it.
bool wants_model_parallelism(const boost::program_options::variables_map& vm);
// The large-model configuration from the parsed options (model, gpus, seq len and precision included;
// --precision fp8 means FP8 GEMMs with bf16 elsewhere, as Transformer Engine runs them).
workload::ParallelConfig parallel_from_options(const boost::program_options::variables_map& vm);

// The text of an option given explicitly on the command line ("" for a switch), or nullopt when it was not
// given (or only has its default).
std::optional<std::string> explicit_option_text(const boost::program_options::variables_map& vm,
                                                const std::string& name);

// Parses `args` against `options` (bare arguments fill `positional`); prints help and returns false when
// --help was given.
bool parse_or_help(const std::vector<std::string>& args,
                   const boost::program_options::options_description& options,
                   boost::program_options::variables_map& vm, const char* usage,
                   const boost::program_options::positional_options_description& positional = {});

}  // namespace simtrain::cli
