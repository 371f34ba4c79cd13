// Chrome / Perfetto timeline of a replay (the "Trace Event Format" JSON that ui.perfetto.dev and
// chrome://tracing open): one process per rank, one thread per stream, each op a complete ("X") event.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "simulator/engine/replay.h"
#include "simulator/trace/trace.h"

namespace simtrain::report {

nlohmann::json timeline_json(const trace::Trace& trace, const engine::ReplayResult& replay);
// Writes the timeline atomically (temporary file, then rename); throws Error when the path is unwritable.
void write_timeline_file(const trace::Trace& trace, const engine::ReplayResult& replay,
                         const std::string& path);

}  // namespace simtrain::report
