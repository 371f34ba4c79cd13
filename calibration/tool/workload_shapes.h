// Where --model's and --trace's shapes come from. Built inside the project, simtrain-calibrate generates a
// model's training step with the simulator's own workload generator and reads traces with its importers, so
// every zoo model (and every model file) calibrates exactly the kernels simtrain will cost, and the two
// cannot drift apart. Built standalone on a GPU machine without the simulator's dependencies, it has the
// built-in copies of model_shapes.h, and a trace's shapes come from `simtrain trace shapes TRACE -o FILE`
// (run where simtrain is built) through --shapes FILE.
#pragma once

#include <string>

#include "calibration/tool/shape_set.h"

namespace simtrain::calibration::tool {

// Whether this build has the simulator's generator and importers.
bool workload_shapes_available();
// Every distinct shape of one training step of `model` at `batch` samples (mixed precision, one GPU, the
// model's default implementation and sequence length). Throws Error("--model: unknown model ...") listing
// the names this build knows.
ShapeSet shapes_of_model(const std::string& model, int batch);
// The micro-batch a --model named without one is calibrated at.
int default_batch_of_model(const std::string& model);
// Every distinct shape of the trace at `path` (any format `simtrain run --trace` takes). Throws Error when
// the build cannot read traces or the trace is malformed.
ShapeSet shapes_of_trace(const std::string& path);

}  // namespace simtrain::calibration::tool
