// workload_shapes.h inside the project: the simulator's generator and importers through
// trace::calibration_shapes_file, parsed back as a shapes file.
#include "calibration/tool/workload_shapes.h"

#include "calibration/tool/model_shapes.h"
#include "calibration/tool/shapes_file.h"
#include "common/error.h"
#include "simulator/trace/calibration_shapes.h"
#include "simulator/trace/trace_import.h"
#include "simulator/workload/data_parallel.h"
#include "simulator/workload/model_zoo.h"

namespace simtrain::calibration::tool {

bool workload_shapes_available() { return true; }

ShapeSet shapes_of_model(const std::string& model, int batch) {
  if (batch < 1) throw Error("--batch: must be at least 1, got " + std::to_string(batch));
  workload::DataParallelConfig config;
  config.model = model;
  config.gpus = 1;
  config.batch_per_gpu = batch;
  try {
    config.optimizer = workload::default_optimizer(workload::build_model(model));
    const trace::Trace step = workload::generate_data_parallel_trace(config);
    return parse_shapes(trace::calibration_shapes_file(step, "model " + model), "model " + model);
  } catch (const Error& error) {
    throw Error(std::string("--model: ") + error.what());
  }
}

int default_batch_of_model(const std::string& model) {
  for (const std::string& name : builtin_model_names())
    if (name == model) return default_batch(model);
  // A sequence of a few thousand tokens is already a typical micro-batch for a language model.
  return workload::build_model(model).seq_len > 0 ? 1 : 32;
}

ShapeSet shapes_of_trace(const std::string& path) {
  trace::ImportReport report;
  const trace::Trace trace = trace::import_trace_files({path}, {}, report);
  return parse_shapes(trace::calibration_shapes_file(trace, path), path);
}

}  // namespace simtrain::calibration::tool
