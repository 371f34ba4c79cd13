// Implements framework.h.
#include "simulator/workload/framework.h"

#include <string>

namespace simtrain::workload {

std::string_view to_string(Framework framework) {
  switch (framework) {
    case Framework::PyTorchDDP:
      return "ddp";
    case Framework::RayTrain:
      return "ray-train";
    case Framework::DeepSpeed:
      return "deepspeed";
  }
  return "ddp";
}

std::optional<Framework> parse_framework(std::string_view text) {
  if (text == "ddp") return Framework::PyTorchDDP;
  if (text == "ray-train" || text == "ray") return Framework::RayTrain;
  if (text == "deepspeed") return Framework::DeepSpeed;
  return std::nullopt;
}

FrameworkOverheads default_overheads(Framework framework) {
  switch (framework) {
    case Framework::PyTorchDDP:
      return {3.0, 0.0, 0.0};
    case Framework::RayTrain:
      return {4.0, 0.125, 0.023};
    case Framework::DeepSpeed:
      return {5.0, 0.0, 0.0};
  }
  return {};
}

void apply_framework(Framework framework, DataParallelConfig& config) {
  config.framework = std::string(to_string(framework));
  if (framework != Framework::DeepSpeed) return;  // Ray Train runs PyTorch DDP underneath
  constexpr double kReduceBucketElements = 5e8;   // DeepSpeed's reduce_bucket_size default
  config.bucket_bytes = config.first_bucket_bytes = kReduceBucketElements * 4;  // fp32 gradients
  config.overlap_allreduce = false;
}

}  // namespace simtrain::workload
