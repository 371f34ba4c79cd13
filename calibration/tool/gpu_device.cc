// Querying the device and library versions.
#include "calibration/tool/gpu_device.h"

#include <algorithm>
#include <ctime>
#include <fstream>

#include "calibration/tool/gpu_architecture.h"
#include "calibration/tool/gpu_status.h"

namespace simtrain::calibration::tool {
namespace {

std::string dotted(int major, int minor, int patch = -1) {
  std::string text = std::to_string(major) + "." + std::to_string(minor);
  if (patch >= 0) text += "." + std::to_string(patch);
  return text;
}

int attribute(cudaDeviceAttr which, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, which, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The kernel module's release ("570.86.15") from /proc/driver/nvidia/version, or "" where there is none.
std::string driver_release() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  return std::getline(in, line) ? driver_release_from_version_line(line) : "";
}

}  // namespace

DeviceInfo open_device(int index) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) throw Error(std::string("no CUDA device: ") + cudaGetErrorString(status));
  if (count == 0) throw Error("no CUDA device: the driver reports none");
  if (index >= count)
    throw Error("--device " + std::to_string(index) + ": only " + std::to_string(count) +
                " CUDA device(s) visible");
  check_cuda(cudaSetDevice(index), "cudaSetDevice");
  cudaDeviceProp props{};
  check_cuda(cudaGetDeviceProperties(&props, index), "cudaGetDeviceProperties");

  DeviceInfo info;
  info.index = index;
  info.name = props.name;
  info.capability = {props.major, props.minor};
  info.sm_count = props.multiProcessorCount;
  info.clock_mhz = attribute(cudaDevAttrClockRate, index) / 1e3;
  info.memory_bytes = static_cast<double>(props.totalGlobalMem);
  // Double data rate: two transfers per memory clock on each bit of the bus.
  info.memory_bandwidth_Bps = 2.0 * attribute(cudaDevAttrMemoryClockRate, index) * 1e3 *
                              attribute(cudaDevAttrGlobalMemoryBusWidth, index) / 8;
  info.l2_bytes = props.l2CacheSize;
  info.visible_devices = count;
  return info;
}

double measurement_budget_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return std::min(0.5 * static_cast<double>(free_bytes), 16.0 * (1ull << 30));
}

MeasurementEnvironment measurement_environment(const std::string& command) {
  MeasurementEnvironment env;
  int version = 0;
  env.driver = driver_release();
  if (cudaDriverGetVersion(&version) == cudaSuccess)
    env.driver += (env.driver.empty() ? "CUDA " : " (CUDA ") + dotted(version / 1000, version % 1000 / 10) +
                  (env.driver.empty() ? "" : ")");
  if (cudaRuntimeGetVersion(&version) == cudaSuccess) env.cuda = dotted(version / 1000, version % 1000 / 10);
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    env.cublas = dotted(major, minor, patch);
  // cuDNN 9 encodes its version as major * 10000 + minor * 100 + patch.
  const std::size_t cudnn = cudnnGetVersion();
  env.cudnn = dotted(static_cast<int>(cudnn / 10000), static_cast<int>(cudnn % 10000 / 100),
                     static_cast<int>(cudnn % 100));
  // NCCL from 2.9 on: major * 10000 + minor * 100 + patch.
  if (ncclGetVersion(&version) == ncclSuccess)
    env.nccl = dotted(version / 10000, version % 10000 / 100, version % 100);
  env.date = utc_now_iso8601();
  env.command = command;
  return env;
}

}  // namespace simtrain::calibration::tool
