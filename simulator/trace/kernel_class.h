// What a recorded GPU activity computes, for costing it on another GPU (cost/): its kind, pass, dtype,
// shape, FLOPs and bytes, worked out from the ATen operator that launched it (its name, input shapes and
// types, as torch.profiler records them with record_shapes) and the activity itself. A kernel whose
// launcher is not recognised keeps kind Other: its recorded time is then all that is known of it.
#pragma once

#include <vector>

#include "simulator/trace/kineto_events.h"
#include "simulator/trace/trace.h"

namespace simtrain::trace {

// The operators enclosing a launch, outermost first, on the launching thread.
using OperatorStack = std::vector<const KinetoCpuOp*>;

// The ComputeSpec of `activity` (duration_s left at -1: the caller sets the measured time). Never throws:
// shapes it cannot read leave the spec without a shape.
ComputeSpec classify_activity(const KinetoGpuActivity& activity, const OperatorStack& launchers);

// The dtype of a profiler type name ("c10::Half", "c10::BFloat16", "float", "c10::Float8_e4m3fn"), or
// false when it is not a floating-point type simtrain models.
bool dtype_of_profiler_type(const std::string& type, DType& out);

// Bytes of one element of a profiler type name (8 for "long int", 2 for "c10::Half"), 0 when unknown.
double element_bytes(const std::string& type);

}  // namespace simtrain::trace
