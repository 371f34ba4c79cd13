// Implements timeline.h: Trace Event Format JSON, one process per rank, one thread per stream.
#include "simulator/report/timeline.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/file_io.h"

namespace simtrain::report {
namespace {

// Where each rank sits in each group's communicators: (communicator index, position), or (-1, -1).
using Placement = std::vector<std::vector<std::pair<int, int>>>;  // [group][rank]

Placement placement_of(const trace::Trace& trace) {
  Placement out(trace.groups.size(), std::vector<std::pair<int, int>>(trace.world_size, {-1, -1}));
  for (std::size_t g = 0; g < trace.groups.size(); ++g)
    for (std::size_t c = 0; c < trace.groups[g].communicators.size(); ++c) {
      const auto& members = trace.groups[g].communicators[c];
      for (std::size_t i = 0; i < members.size(); ++i)
        if (members[i] >= 0 && members[i] < trace.world_size)
          out[g][members[i]] = {static_cast<int>(c), static_cast<int>(i)};
    }
  return out;
}

// Perfetto flow events ("s" ... "t" ... "f", bound to the slices they fall in): each send to its receive,
// and the members of each collective instance from the lowest rank to the highest, so that the UI draws
// who waited on whom. Only among the ranks the timeline shows.
void add_flow_events(const trace::Trace& trace, const engine::ReplayResult& replay, nlohmann::json& events) {
  const Placement place = placement_of(trace);
  // Events in start order, so that the k-th send of a pair meets the k-th receive.
  std::vector<const engine::OpEvent*> ordered;
  for (const engine::OpEvent& e : replay.events) ordered.push_back(&e);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) {
    return a->start_s < b->start_s || (a->start_s == b->start_s && a->rank < b->rank);
  });
  // (sender, receiver, tag) -> k-th; (group, communicator, instance) -> members.
  std::map<std::tuple<int, int, int>, std::vector<const engine::OpEvent*>> sends, receives;
  std::map<std::tuple<int, int, int>, std::vector<const engine::OpEvent*>> collectives;
  std::map<std::pair<int, int>, int> instances;  // (rank, group) -> collectives seen
  const auto peer = [&](int rank, const trace::P2PSpec& p) {
    if (p.group >= place.size()) return -1;
    const auto [c, i] = place[p.group][rank];
    if (c < 0) return -1;
    const auto& members = trace.groups[p.group].communicators[c];
    const int n = static_cast<int>(members.size());
    return members[((i + p.peer_offset) % n + n) % n];
  };
  for (const engine::OpEvent* e : ordered) {
    const trace::Op& op = trace.program_of(e->rank).ops[e->op];
    if (op.type == trace::OpType::Send) {
      sends[{e->rank, peer(e->rank, op.p2p), op.p2p.tag}].push_back(e);
    } else if (op.type == trace::OpType::Recv) {
      receives[{peer(e->rank, op.p2p), e->rank, op.p2p.tag}].push_back(e);
    } else if (op.type == trace::OpType::Collective && op.collective.group < place.size()) {
      const int g = op.collective.group;
      const int k = instances[{e->rank, g}]++;
      collectives[{g, place[g][e->rank].first, k}].push_back(e);
    }
  }
  std::uint64_t id = 0;
  const auto flow = [&](const char* phase, const engine::OpEvent* e, const char* name) {
    const trace::Op& op = trace.program_of(e->rank).ops[e->op];
    nlohmann::json f = {{"ph", phase},    {"id", id},         {"name", name},          {"cat", name},
                        {"pid", e->rank}, {"tid", op.stream}, {"ts", e->start_s * 1e6}};
    if (phase[0] != 's') f["bp"] = "e";
    events.push_back(std::move(f));
  };
  for (const auto& [key, sent] : sends) {
    const auto found = receives.find(key);
    if (found == receives.end()) continue;
    for (std::size_t k = 0; k < std::min(sent.size(), found->second.size()); ++k, ++id) {
      flow("s", sent[k], "p2p");
      flow("f", found->second[k], "p2p");
    }
  }
  for (auto& [key, members] : collectives) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->rank < b->rank; });
    for (std::size_t m = 0; m < members.size(); ++m)
      flow(m == 0 ? "s" : m + 1 == members.size() ? "f" : "t", members[m], "collective");
    ++id;
  }
}

// A "memory" counter track per shown rank, in GiB: the estimate's state (weights, gradients, optimizer
// states, buffers, workspace) throughout, plus activations whose shape follows the rank's op order (each
// forward op keeps its share, each backward-data op frees one) and whose peak is the estimate's. Only for
// traces whose metadata splits their memory estimate (generated ones).
void add_memory_counters(const trace::Trace& trace, const engine::ReplayResult& replay,
                         nlohmann::json& events) {
  const auto& parts = trace.metadata.memory_breakdown_bytes;
  const auto activations = parts.find("activations");
  if (activations == parts.end()) return;
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  double state_bytes = 0;
  for (const auto& [what, bytes] : parts)
    if (what != "activations") state_bytes += bytes;
  std::map<int, std::vector<const engine::OpEvent*>> by_rank;
  for (const engine::OpEvent& e : replay.events) by_rank[e.rank].push_back(&e);
  for (auto& [rank, list] : by_rank) {
    const trace::Program& program = trace.program_of(rank);
    double forward_ops = 0, backward_ops = 0;
    for (const trace::Op& op : program.ops) {
      if (op.type != trace::OpType::Compute) continue;
      forward_ops += op.compute.pass == trace::Pass::Forward;
      backward_ops += op.compute.pass == trace::Pass::BackwardData;
    }
    if (forward_ops == 0 || backward_ops == 0) continue;
    std::stable_sort(list.begin(), list.end(),
                     [](const auto* a, const auto* b) { return a->end_s < b->end_s; });
    // Held activations in units of the whole step's, after each op ends; scaled so the peak is the
    // estimate's.
    std::vector<std::pair<double, double>> level;
    double held = 0, peak = 0;
    for (const engine::OpEvent* e : list) {
      const trace::Op& op = program.ops[e->op];
      if (op.type != trace::OpType::Compute) continue;
      if (op.compute.pass == trace::Pass::Forward)
        held += 1 / forward_ops;
      else if (op.compute.pass == trace::Pass::BackwardData)
        held = std::max(0.0, held - 1 / backward_ops);
      else
        continue;
      level.emplace_back(e->end_s, held);
      peak = std::max(peak, held);
    }
    if (peak <= 0) continue;
    events.push_back({{"ph", "C"},
                      {"name", "memory (GiB)"},
                      {"pid", rank},
                      {"ts", 0.0},
                      {"args", {{"state", state_bytes / kGiB}, {"activations", 0.0}}}});
    for (const auto& [t, h] : level)
      events.push_back(
          {{"ph", "C"},
           {"name", "memory (GiB)"},
           {"pid", rank},
           {"ts", t * 1e6},
           {"args",
            {{"state", state_bytes / kGiB}, {"activations", h / peak * activations->second / kGiB}}}});
  }
}

}  // namespace

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
  add_flow_events(trace, replay, events);
  add_memory_counters(trace, replay, events);
  return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

void write_timeline_file(const trace::Trace& trace, const engine::ReplayResult& replay,
                         const std::string& path) {
  write_output_file(path, timeline_json(trace, replay).dump());
}

}  // namespace simtrain::report
