// Every trace format simtrain reads, behind one call: the native trace, Kineto / Chrome-trace JSON from
// torch.profiler (kineto_import.h), PyTorch execution traces (pytorch_et_import.h) and MLCommons Chakra
// protobuf execution traces (chakra_trace.h). The format is detected from the content, never the name, so
// `simtrain run --trace FILE` takes any of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/trace/trace.h"

namespace simtrain::trace {

enum class TraceFormat : std::uint8_t { Native, Kineto, PytorchExecutionTrace, ChakraProtobuf };

std::string_view to_string(TraceFormat format);

// The format of a file's bytes (already gunzipped). Throws Error naming `origin` when it is none of them.
TraceFormat detect_trace_format(const std::string& bytes, const std::string& origin);

// How scaled-out data-parallel ranks hold the model: whole (PyTorch DDP) or sharded (PyTorch FSDP, full
// shard).
enum class DataParallelSharding : std::uint8_t { Ddp, Fsdp };

// How to turn recorded traces into the one-iteration Trace the engine replays.
struct ImportOptions {
  // The ProfilerStep#N window to take; nullopt = the steady-state one (the last complete window).
  std::optional<int> step;
  // Data-parallel ranks to scale a one-rank trace out to, as PyTorch DDP or FSDP forms them; 0 = as recorded.
  int data_parallel_ranks = 0;
  DataParallelSharding sharding = DataParallelSharding::Ddp;
  double ddp_bucket_bytes = 25.0 * 1024 * 1024;  // DDP's bucket_cap_mb default
  double fsdp_min_unit_params = 1e8;  // size_based_auto_wrap_policy's min_num_params (fsdp_units.h)
  // Host speed relative to the host the trace was recorded on (2 = twice as fast); see host_dispatch.h.
  double host_speed = 1;
  // When > 0: the unprofiled step time measured on the recording machine, from which the host's speed is
  // calibrated (host_dispatch.h); overrides host_speed.
  double host_step_time_s = 0;
};

// What an import noticed without failing: unknown event kinds (counted), a trace without step windows, ...
// One line each, for the command line to print as warnings.
struct ImportReport {
  std::vector<std::string> warnings;
  TraceFormat format = TraceFormat::Native;
};

// The Trace in `paths` (one file per rank for Kineto; one file for the other formats; Chakra: one file per
// rank). Throws Error naming the file and the offending event on malformed input.
Trace import_trace_files(const std::vector<std::string>& paths, const ImportOptions& options,
                         ImportReport& report);

}  // namespace simtrain::trace
