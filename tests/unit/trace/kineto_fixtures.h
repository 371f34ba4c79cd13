// Hand-built Chrome-trace documents for the Kineto importer's tests: the events torch.profiler writes, with
// only the fields the importer reads, at times chosen so that expected results follow by hand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simtrain::testing {

using nlohmann::json;

// A trace document being built; times in µs.
class KinetoDoc {
 public:
  KinetoDoc() { doc_ = {{"schemaVersion", 1}, {"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA H200"}}})},
                        {"traceEvents", json::array()}}; }

  KinetoDoc& step(int number, double ts, double dur) {
    return add({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(number)},
                {"pid", 1}, {"tid", 1}, {"ts", ts}, {"dur", dur}});
  }

  KinetoDoc& op(const std::string& name, double ts, double dur, json args = json::object(), int tid = 1) {
    return add({{"ph", "X"}, {"cat", "cpu_op"}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts},
                {"dur", dur}, {"args", args}});
  }

  KinetoDoc& runtime(const std::string& name, double ts, double dur, std::int64_t correlation, int tid = 1) {
    return add({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts},
                {"dur", dur}, {"args", {{"correlation", correlation}}}});
  }

  KinetoDoc& kernel(const std::string& name, double ts, double dur, std::int64_t correlation, int stream = 7) {
    return add({{"ph", "X"}, {"cat", "kernel"}, {"name", name}, {"pid", 0}, {"tid", stream}, {"ts", ts},
                {"dur", dur}, {"args", {{"correlation", correlation}, {"stream", stream}, {"device", 0}}}});
  }

  // A launch: the runtime call at `ts` (1 µs) and its kernel at `kernel_ts`.
  KinetoDoc& launch(const std::string& kernel_name, double ts, double kernel_ts, double kernel_dur,
                    std::int64_t correlation, int stream = 7, int tid = 1) {
    runtime("cudaLaunchKernel", ts, 1, correlation, tid);
    return kernel(kernel_name, kernel_ts, kernel_dur, correlation, stream);
  }

  KinetoDoc& add(json event) {
    doc_["traceEvents"].push_back(std::move(event));
    return *this;
  }

  json& doc() { return doc_; }

 private:
  json doc_;
};

}  // namespace simtrain::testing
