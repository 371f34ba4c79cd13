// PyTorch execution traces (torch.profiler.ExecutionTraceObserver's JSON, the input of MLCommons Chakra's
// converter) as a one-rank Trace. An execution trace records the operator graph the host ran (names, the
// call tree, tensor ids, shapes and dtypes) but no durations: the import keeps the operators that launch GPU
// kernels, derives each one's kind, shape, FLOPs and bytes (aten_kernels.h), and leaves duration_s = -1 so
// that the cost model times them from the profile.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "simulator/trace/trace.h"
#include "simulator/trace/trace_import.h"

namespace simtrain::trace {

// Whether `doc` is an execution trace (an object with a "schema" string other than the native trace's and
// a "nodes" array), without checking more of it.
bool looks_like_pytorch_et(const nlohmann::json& doc);

// The last ProfilerStep#N window of the trace (the whole trace, with a warning, when it has none) as one
// rank's program: kernels in issue order on stream "compute", collectives (c10d:: / record_param_comms
// nodes) on stream "comm" with dependencies from tensor data flow between the two. Metadata: model = the
// file's stem, nothing measured. Throws Error naming `origin` and the node id on an unsupported schema, a
// node whose ctrl_deps (parent) names no node or never reaches the root, a duplicate id, or malformed
// inputs/outputs (values, shapes and types that differ in length, a tensor that is not
// [id, storage, offset, numel, element_bytes, device], a shape that is not a list of sizes).
Trace import_pytorch_et(const nlohmann::json& doc, const std::string& origin, ImportReport& report);

}  // namespace simtrain::trace
