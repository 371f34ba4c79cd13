// The options that say how a recorded trace is imported, shared by `simtrain trace import` and
// `simtrain run --trace`: the step window, the host's speed, and scaling a one-GPU recording out as DDP or
// FSDP.
#pragma once

#include <boost/program_options.hpp>

#include "simulator/trace/trace_import.h"

namespace simtrain::cli {

// Declares --step, --host-speed, --host-step-time and --fsdp-min-params. --gpus, --bucket-mb and --fsdp
// are declared by the workload options of `run`, and by add_scale_out_options for `trace import`.
void add_trace_import_options(boost::program_options::options_description& options);
void add_scale_out_options(boost::program_options::options_description& options);

// The ImportOptions the parsed options describe; throws Error naming the option on a bad value.
trace::ImportOptions import_options_from(const boost::program_options::variables_map& vm);

}  // namespace simtrain::cli
