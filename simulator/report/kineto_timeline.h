// The timeline as torch.profiler would have written it: one Kineto-style JSON file per simulated rank
// (distributedInfo, deviceProperties, a ProfilerStep#0 annotation over the iteration, each GPU op a
// "kernel" event on its stream with a correlation id, NCCL collectives named and annotated as c10d
// records them, host ops as "cpu_op"), so that Holistic Trace Analysis and TensorBoard's profiler open a
// simulated run like a measured one. Nothing in them was measured: every file says so in its traceName.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "simulator/engine/replay.h"
#include "simulator/trace/trace.h"

namespace simtrain::report {

// The ranks the replay recorded events for, and each one's document.
std::vector<std::pair<int, nlohmann::json>> kineto_timelines(const trace::Trace& trace,
                                                             const engine::ReplayResult& replay,
                                                             const std::string& gpu_name,
                                                             double gpu_memory_bytes);

// Writes `prefix`.rank<N>.pt.trace.json for each recorded rank (atomically, never through a symbolic link);
// returns the paths written.
std::vector<std::string> write_kineto_timelines(const trace::Trace& trace, const engine::ReplayResult& replay,
                                                const std::string& gpu_name, double gpu_memory_bytes,
                                                const std::string& prefix);

}  // namespace simtrain::report
