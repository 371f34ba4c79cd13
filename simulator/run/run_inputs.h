// What a run was asked, for its Result to record: the workload (model, precision, batch, sequence length,
// parallel dimensions as numbers) or the trace files, the platform and the profile, each file named with a
// hash of its content, and the what-ifs. Two Results with equal `inputs` and `simtrain_version` come from
// the same question, whatever command line or scenario file produced them.
#pragma once

#include <nlohmann/json.hpp>

#include "simulator/run/simulation.h"

namespace simtrain::run {

// `out` is the finished run of `request` (its trace and its profile as loaded).
nlohmann::json describe_inputs(const RunRequest& request, const RunOutput& out);

}  // namespace simtrain::run
