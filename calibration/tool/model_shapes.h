// The layer shapes of the zoo models a user is most likely to calibrate for, built in because the GPU
// machine that runs simtrain-calibrate cannot link the simulator's workload library.
#pragma once

#include <string>
#include <vector>

#include "calibration/tool/shape_set.h"

namespace simtrain::calibration::tool {

// resnet50, bert-large, gpt2-xl, llama2-7b.
std::vector<std::string> builtin_model_names();
// The micro-batch calibrated when --batch is not given, a typical per-GPU batch for the model.
int default_batch(const std::string& model);
// Every distinct kernel shape of one training step of `model` at `batch` samples, at the model's default
// sequence length. Throws Error("unknown model ...") listing the known names.
ShapeSet model_shapes(const std::string& model, int batch);

}  // namespace simtrain::calibration::tool
