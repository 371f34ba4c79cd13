// Implements optimizer_kernels.h; the launches as common/multi_tensor_apply.h packs them.
#include "simulator/workload/optimizer_kernels.h"

#include <cmath>
#include <cstdint>
#include <string>

#include "common/multi_tensor_apply.h"

namespace simtrain::workload {
namespace {

double dim(const Layer& layer, std::size_t i) {
  return i < layer.dims.size() ? static_cast<double>(layer.dims[i]) : 0;
}

}  // namespace

std::vector<double> parameter_tensors(const Model& model) {
  std::vector<double> tensors;
  for (const Layer& layer : model.layers) {
    if (layer.parameters <= 0) continue;
    const std::string& type = layer.type;
    double bias = 0;
    if (type == "linear" && dim(layer, 3) != 0) bias = dim(layer, 2);
    if (type == "conv" && dim(layer, 8) != 0) bias = dim(layer, 3);
    if (type == "layernorm" || type == "batchnorm") bias = layer.parameters / 2;
    // A tied Linear's weight is the embedding's tensor; only its bias is its own.
    if (layer.parameters - bias > 0) tensors.push_back(layer.parameters - bias);
    if (bias > 0) tensors.push_back(bias);
  }
  return tensors;
}

int multi_tensor_launches(const std::vector<double>& tensors, int depth) {
  std::vector<std::int64_t> elements;
  elements.reserve(tensors.size());
  for (double t : tensors) elements.push_back(static_cast<std::int64_t>(std::ceil(t)));
  return count_multi_tensor_launches(elements, depth);
}

std::vector<trace::ComputeSpec> optimizer_step_kernels(const trace::ComputeSpec& update,
                                                       const std::vector<double>& tensors,
                                                       Optimizer optimizer, bool grad_scaler) {
  double parameters = 0;
  for (double t : tensors) parameters += t;
  std::vector<trace::ComputeSpec> kernels;
  const auto launch = [&](double elements, double bytes, double flops) {
    trace::ComputeSpec k = update;
    k.flops = flops;
    k.bytes = bytes;
    k.shape = {static_cast<std::int64_t>(elements)};
    kernels.push_back(k);
  };
  if (grad_scaler) {
    const int unscale = multi_tensor_launches(tensors, 1);
    for (int i = 0; i < unscale; ++i)
      launch(parameters / unscale, 8 * parameters / unscale, parameters / unscale);
    launch(1, 16, 1);  // _amp_update_scale_
  }
  std::vector<int> launches;
  if (optimizer == Optimizer::SGD) {
    launches = {multi_tensor_launches(tensors, 1), multi_tensor_launches(tensors, 2),
                multi_tensor_launches(tensors, 2)};
  } else {
    launches = {multi_tensor_launches(tensors, 4)};
  }
  int main_launches = 0;
  for (int n : launches) main_launches += n;
  for (int i = 0; i < main_launches; ++i)
    launch(parameters / main_launches, update.bytes / main_launches, update.flops / main_launches);
  if (optimizer != Optimizer::SGD) {
    // Then the per-tensor step counters, one element each.
    const int counters = multi_tensor_launches(std::vector<double>(tensors.size(), 1), 1);
    for (int i = 0; i < counters; ++i) launch(1, 8, 1);
  }
  return kernels;
}

}  // namespace simtrain::workload
