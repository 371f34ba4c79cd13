// The options shared by `simtrain run` and `simtrain trace` that describe a generated workload.
#pragma once

#include <boost/program_options.hpp>

#include "simulator/workload/data_parallel.h"

namespace simtrain::cli {

// Declares --model, --gpus, --batch-per-gpu, --grad-accum, --precision, --seq-len, --bucket-mb, --optimizer.
void add_workload_options(boost::program_options::options_description& options);
// Builds the config from parsed options; throws Error naming the option on bad values.
workload::DataParallelConfig workload_from_options(const boost::program_options::variables_map& vm);

// Parses `args` against `options`; prints help and returns false when --help was given.
bool parse_or_help(const std::vector<std::string>& args,
                   const boost::program_options::options_description& options,
                   boost::program_options::variables_map& vm, const char* usage);

}  // namespace simtrain::cli
