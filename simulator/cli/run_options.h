// The options of `simtrain run`, shared with `simtrain sweep`, which checks a scenario file's keys against
// them before anything runs.
#pragma once

#include <boost/program_options.hpp>

#include "simulator/cost/nccl_choice.h"
#include "simulator/study/scenario_file.h"

namespace simtrain::cli {

boost::program_options::options_description run_options();

// --nccl-algo, --nccl-proto, --nccl-buffsize, --nccl-p2p-net-chunksize and --nccl-min-nchannels, as
// NCCL_ALGO, NCCL_PROTO, NCCL_BUFFSIZE, NCCL_P2P_NET_CHUNKSIZE and NCCL_MIN_NCHANNELS set NCCL (shared with
// simtrain collective), and --nccl-version; throws Error on an unknown name, a buffer under 64 bytes, a
// point-to-point chunk outside 16 bytes to 1 GiB or a channel count outside 1 to 64.
void add_nccl_options(boost::program_options::options_description& options);
cost::NcclOverride nccl_override_from_options(const boost::program_options::variables_map& vm);

// What `simtrain run` accepts, for checking a scenario file's keys before anything runs: unknown options,
// switches, and the options a sweep sets itself (--json, --omit-wall-time, --timeline...).
study::OptionLookup run_option_lookup();

// What the files a run of these settings reads say, for a study's run keys: the platform spec (named, given
// by path, or the default), and any --model, --profile or --trace given as a file. Zoo models and spec
// profiles are built into simtrain and covered by its version. Each file is read once per process.
study::InputContent run_input_content();

}  // namespace simtrain::cli
