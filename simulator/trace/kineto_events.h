// The events of a Kineto / Chrome-trace JSON file as torch.profiler exports it, typed: CPU operators, CUDA
// runtime and driver calls, GPU activities (kernels, memcpy, memset) and stream synchronisations, each with
// the fields the importer needs and nothing else. Parsing checks every field it keeps, so that an event
// with a missing correlation id or a negative duration is one error naming the file and the event, not a
// silently wrong replay; event kinds the importer does not use are counted, not rejected.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace simtrain::trace {

// A CPU operator (`cpu_op`): an ATen op, an autograd node, or a record_function range. Times in µs.
struct KinetoCpuOp {
  std::size_t event = 0;  // index in traceEvents, for messages
  std::string name;
  double start_us = 0;
  double duration_us = 0;
  std::int64_t thread = 0;
  // With record_shapes: each input's dimensions ({} for a scalar or a non-tensor) and type ("c10::Half").
  std::vector<std::vector<std::int64_t>> input_dims;
  std::vector<std::string> input_types;
  std::vector<std::string> concrete_inputs;  // scalar arguments as text ("1", "[2, 2]"), "" for tensors
  // record_param_comms (c10d's collectives): what NCCL was asked to do.
  std::string collective;  // "allreduce", "allgather", "_reduce_scatter_base", ...; empty when none
  std::int64_t in_elements = 0;
  std::int64_t out_elements = 0;
  std::string comm_dtype;               // "Float", "BFloat16", ...
  std::vector<int> process_group_ranks;  // the communicator's global ranks, in order
  std::string process_group_name;

  double end_us() const { return start_us + duration_us; }
};

// A CUDA runtime or driver call on a host thread (`cuda_runtime`, `cuda_driver`).
struct KinetoRuntimeCall {
  std::size_t event = 0;
  std::string name;  // "cudaLaunchKernel", "cudaStreamSynchronize", ...
  double start_us = 0;
  double duration_us = 0;
  std::int64_t thread = 0;
  std::int64_t correlation = 0;

  double end_us() const { return start_us + duration_us; }
};

enum class GpuActivityKind : std::uint8_t { Kernel, Memcpy, Memset };

// Work a GPU stream executed (`kernel`, `gpu_memcpy`, `gpu_memset`), linked to its launch by `correlation`.
struct KinetoGpuActivity {
  std::size_t event = 0;
  GpuActivityKind kind = GpuActivityKind::Kernel;
  std::string name;
  double start_us = 0;
  double duration_us = 0;
  std::int64_t stream = 0;
  std::int64_t correlation = 0;
  double bytes = 0;  // memcpy and memset

  double end_us() const { return start_us + duration_us; }
};

// A stream synchronisation Kineto recorded (`cuda_sync`): the stream `stream` waits for the work of
// `wait_on_stream` (a cudaStreamWaitEvent), or the host waits for a stream (-1: the whole device).
struct KinetoSync {
  std::size_t event = 0;
  std::string name;  // "Wait on Stream", "Stream Sync", "Event Sync", "Context Sync"
  double start_us = 0;
  std::int64_t stream = -1;
  std::int64_t wait_on_stream = -1;
  std::int64_t correlation = 0;  // of the runtime call that synchronised
};

// A `ProfilerStep#N` window on the host.
struct KinetoStep {
  int number = 0;
  double start_us = 0;
  double end_us = 0;
};

struct KinetoTrace {
  std::string origin;
  int rank = -1;        // distributedInfo.rank; -1 when the trace does not say
  int world_size = 0;   // distributedInfo.world_size; 0 when it does not say
  std::string gpu_name;  // deviceProperties[0].name, e.g. "NVIDIA H200"; empty when absent
  std::vector<KinetoStep> steps;                 // by start time
  std::vector<KinetoCpuOp> cpu_ops;              // by start time
  std::vector<KinetoRuntimeCall> runtime_calls;  // by start time
  std::vector<KinetoGpuActivity> gpu_activities;  // by start time
  std::vector<KinetoSync> syncs;                 // by start time
  // Event categories (`cat`, or `ph` for uncategorised events) the importer does not use, with their counts.
  std::map<std::string, std::uint64_t> unknown_kinds;
};

// True when `doc` looks like a Chrome trace: an object with a `traceEvents` array.
bool looks_like_kineto(const nlohmann::json& doc);

// The typed events of a Chrome-trace document. Throws Error(origin, 0, "traceEvents[i]", ...) naming the
// event when a kept event lacks a field or has one of the wrong type or out of range.
KinetoTrace parse_kineto(const nlohmann::json& doc, const std::string& origin);

}  // namespace simtrain::trace
