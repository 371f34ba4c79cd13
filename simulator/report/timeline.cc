// Implements timeline.h: Trace Event Format JSON, one process per rank, one thread per stream.
#include "simulator/report/timeline.h"

#include <set>

#include "common/file_io.h"

namespace simtrain::report {

nlohmann::json timeline_json(const trace::Trace& trace, const engine::ReplayResult& replay) {
  nlohmann::json events = nlohmann::json::array();
  std::set<int> ranks;
  for (const engine::OpEvent& e : replay.events) ranks.insert(e.rank);
  for (int rank : ranks) {
    const trace::Program& program = trace.program_of(rank);
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", rank},
                      {"args", {{"name", "rank " + std::to_string(rank)}}}});
    events.push_back(
        {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", rank}, {"args", {{"sort_index", rank}}}});
    for (std::size_t s = 0; s < program.streams.size(); ++s)
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", rank},
                        {"tid", s},
                        {"args", {{"name", program.streams[s]}}}});
  }
  for (const engine::OpEvent& e : replay.events) {
    const trace::Op& op = trace.program_of(e.rank).ops[e.op];
    nlohmann::json args;
    switch (op.type) {
      case trace::OpType::Compute:
        args = {{"kind", trace::to_string(op.compute.kind)},
                {"flops", op.compute.flops},
                {"bytes", op.compute.bytes}};
        break;
      case trace::OpType::Collective:
        args = {{"op", trace::to_string(op.collective.kind)}, {"bytes", op.collective.bytes}};
        if (e.algorithm) args["algorithm"] = cost::to_string(*e.algorithm);
        if (e.protocol) args["protocol"] = cost::to_string(*e.protocol);
        break;
      default:
        args = {{"peer_offset", op.p2p.peer_offset}, {"bytes", op.p2p.bytes}};
        break;
    }
    // Trace Event Format times are microseconds.
    events.push_back({{"ph", "X"},
                      {"name", op.name},
                      {"cat", trace::to_string(op.type)},
                      {"pid", e.rank},
                      {"tid", op.stream},
                      {"ts", e.start_s * 1e6},
                      {"dur", (e.end_s - e.start_s) * 1e6},
                      {"args", args}});
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

void write_timeline_file(const trace::Trace& trace, const engine::ReplayResult& replay,
                         const std::string& path) {
  write_output_file(path, timeline_json(trace, replay).dump());
}

}  // namespace simtrain::report
