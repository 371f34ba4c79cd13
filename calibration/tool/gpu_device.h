// The GPU being calibrated: its properties as the driver reports them, and the device facts and software
// versions a profile records about it.
#pragma once

#include <string>

#include "calibration/calibration_profile.h"
#include "calibration/tool/gpu_architecture.h"

namespace simtrain::calibration::tool {

struct DeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  ComputeCapability capability;
  int sm_count = 0;
  double clock_mhz = 0;  // maximum SM clock
  double memory_bytes = 0;
  double memory_bandwidth_Bps = 0;  // 2 x memory clock x bus width; 0 when the driver does not say
  double l2_bytes = 0;
  int visible_devices = 0;
};

// Selects device `index` and reads its properties. Throws Error("no CUDA device: ...") when the driver finds
// none (or no driver is loaded) and Error("--device N: ...") when the index is out of range.
DeviceInfo open_device(int index);

// Device memory a single measurement may use: half of what is free now, at most 16 GiB.
double measurement_budget_bytes();

// Driver, CUDA runtime, cuBLAS, cuDNN and NCCL versions, the date (UTC, ISO 8601) and `command`.
MeasurementEnvironment measurement_environment(const std::string& command);

}  // namespace simtrain::calibration::tool
