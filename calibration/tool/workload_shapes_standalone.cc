// workload_shapes.h in the standalone build: the built-in models only, and no trace reader.
#include "calibration/tool/model_shapes.h"
#include "calibration/tool/workload_shapes.h"
#include "common/error.h"

namespace simtrain::calibration::tool {

bool workload_shapes_available() { return false; }

ShapeSet shapes_of_model(const std::string& model, int batch) { return model_shapes(model, batch); }

int default_batch_of_model(const std::string& model) { return default_batch(model); }

ShapeSet shapes_of_trace(const std::string& path) {
  throw Error("--trace " + path +
              ": this simtrain-calibrate was built standalone, without the simulator's trace readers; run "
              "`simtrain trace shapes TRACE -o FILE` where simtrain is built and pass --shapes FILE");
}

}  // namespace simtrain::calibration::tool
