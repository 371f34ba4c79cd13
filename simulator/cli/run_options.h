// The options of `simtrain run`, shared with `simtrain sweep`, which checks a scenario file's keys against
// them before anything runs.
#pragma once

#include <boost/program_options.hpp>

#include "simulator/study/scenario_file.h"

namespace simtrain::cli {

boost::program_options::options_description run_options();

// What `simtrain run` accepts, for checking a scenario file's keys before anything runs: unknown options,
// switches, and the options a sweep sets itself (--json, --omit-wall-time, --timeline...).
study::OptionLookup run_option_lookup();

}  // namespace simtrain::cli
