// Implements kineto_timeline.h.
#include "simulator/report/kineto_timeline.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "common/file_io.h"

namespace simtrain::report {
namespace {

constexpr int kGpuPid = 0;       // Kineto puts a device's activities under its device id
constexpr int kHostPid = 1;      // and the host's under the process id
constexpr int kFirstStream = 7;  // CUDA's first non-default stream id, as Kineto shows it

// NCCL's kernel names as Kineto records them ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)"), which is how
// trace analyses tell communication kernels apart.
std::string nccl_kernel_name(const trace::CollectiveSpec& c, const engine::OpEvent& e) {
  static const std::map<trace::CollectiveKind, const char*> kNames = {
      {trace::CollectiveKind::AllReduce, "AllReduce_Sum"},
      {trace::CollectiveKind::AllGather, "AllGather"},
      {trace::CollectiveKind::ReduceScatter, "ReduceScatter_Sum"},
      {trace::CollectiveKind::AllToAll, "SendRecv"},
      {trace::CollectiveKind::Broadcast, "Broadcast"},
      {trace::CollectiveKind::Reduce, "Reduce_Sum"},
      {trace::CollectiveKind::SendRecv, "SendRecv"}};
  const auto it = kNames.find(c.kind);
  static const std::map<DType, const char*> kTypes = {{DType::FP32, "f32"},
                                                      {DType::TF32, "f32"},
                                                      {DType::FP16, "f16"},
                                                      {DType::BF16, "bf16"},
                                                      {DType::FP8, "f8e4m3"}};
  const auto upper = [](std::string text) {
    for (char& ch : text) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return text;
  };
  std::string name =
      "ncclDevKernel_" + std::string(it == kNames.end() ? "Generic" : it->second) + "_" + kTypes.at(c.dtype);
  if (e.algorithm) name += "_" + upper(cost::to_string(*e.algorithm));
  if (e.protocol) name += "_" + upper(cost::to_string(*e.protocol));
  return name + "(ncclDevKernelArgsStorage<4096ul>)";
}

}  // namespace

std::vector<std::pair<int, nlohmann::json>> kineto_timelines(const trace::Trace& trace,
                                                             const engine::ReplayResult& replay,
                                                             const std::string& gpu_name,
                                                             double gpu_memory_bytes) {
  std::map<int, nlohmann::json> events;  // by rank
  std::map<int, double> end_of;
  std::int64_t correlation = 0;
  for (const engine::OpEvent& e : replay.events) {
    const trace::Program& program = trace.program_of(e.rank);
    const trace::Op& op = program.ops[e.op];
    nlohmann::json& list = events[e.rank];
    end_of[e.rank] = std::max(end_of[e.rank], e.end_s);
    const double ts = e.start_s * 1e6, dur = (e.end_s - e.start_s) * 1e6;
    if (op.type == trace::OpType::Compute && op.compute.kind == trace::ComputeKind::Host) {
      list.push_back({{"ph", "X"},
                      {"cat", "cpu_op"},
                      {"name", op.name},
                      {"pid", kHostPid},
                      {"tid", 1},
                      {"ts", ts},
                      {"dur", dur}});
      continue;
    }
    const int stream = kFirstStream + op.stream;
    nlohmann::json args = {
        {"device", 0}, {"stream", stream}, {"correlation", ++correlation}, {"External id", correlation}};
    std::string name = op.name;
    if (op.type == trace::OpType::Collective) {
      name = nccl_kernel_name(op.collective, e);
      const auto& group = trace.groups[op.collective.group];
      args["Collective name"] = std::string(to_string(op.collective.kind));
      args["In msg nelems"] = op.collective.bytes / bytes_per_element(op.collective.dtype);
      args["dtype"] = std::string(to_string(op.collective.dtype));
      args["Process Group Name"] = group.name;
      for (const auto& members : group.communicators)
        if (std::find(members.begin(), members.end(), e.rank) != members.end()) {
          args["Group size"] = members.size();
          args["Process Group Ranks"] = members;
        }
    } else if (op.type == trace::OpType::Send || op.type == trace::OpType::Recv) {
      name = op.type == trace::OpType::Send ? "ncclDevKernel_SendRecv(send)" : "ncclDevKernel_SendRecv(recv)";
      args["bytes"] = op.p2p.bytes;
    }
    list.push_back({{"ph", "X"},
                    {"cat", "kernel"},
                    {"name", name},
                    {"pid", kGpuPid},
                    {"tid", stream},
                    {"ts", ts},
                    {"dur", dur},
                    {"args", args}});
  }
  std::vector<std::pair<int, nlohmann::json>> out;
  for (auto& [rank, list] : events) {
    const double end = end_of[rank] * 1e6;
    list.push_back({{"ph", "X"},
                    {"cat", "user_annotation"},
                    {"name", "ProfilerStep#0"},
                    {"pid", kHostPid},
                    {"tid", 1},
                    {"ts", 0.0},
                    {"dur", end}});
    list.push_back({{"ph", "X"},
                    {"cat", "gpu_user_annotation"},
                    {"name", "ProfilerStep#0"},
                    {"pid", kGpuPid},
                    {"tid", kFirstStream},
                    {"ts", 0.0},
                    {"dur", end}});
    list.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", kGpuPid}, {"args", {{"name", "GPU 0"}}}});
    list.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", kHostPid}, {"args", {{"name", "host"}}}});
    nlohmann::json doc = {
        {"schemaVersion", 1},
        {"traceName",
         fmt::format("simtrain simulated rank {} of {} (no GPU ran it)", rank, trace.world_size)},
        {"deviceProperties", {{{"id", 0}, {"name", gpu_name}, {"totalGlobalMem", gpu_memory_bytes}}}},
        {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", trace.world_size}}},
        {"displayTimeUnit", "ms"},
        {"baseTimeNanoseconds", 0},
        {"traceEvents", std::move(list)}};
    out.emplace_back(rank, std::move(doc));
  }
  return out;
}

std::vector<std::string> write_kineto_timelines(const trace::Trace& trace, const engine::ReplayResult& replay,
                                                const std::string& gpu_name, double gpu_memory_bytes,
                                                const std::string& prefix) {
  std::vector<std::string> paths;
  for (const auto& [rank, doc] : kineto_timelines(trace, replay, gpu_name, gpu_memory_bytes)) {
    paths.push_back(fmt::format("{}.rank{}.pt.trace.json", prefix, rank));
    write_file_atomically(paths.back(), doc.dump());
  }
  return paths;
}

}  // namespace simtrain::report
