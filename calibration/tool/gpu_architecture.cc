// Per-SM throughput of NVIDIA GPU generations, from the architecture whitepapers (Volta, Turing, Ampere GA100
// and GA10x, Ada, Hopper, Blackwell): e.g. A100 = 108 SMs x 1.41 GHz x 2048 = 312 TFLOP/s fp16.
#include "calibration/tool/gpu_architecture.h"

#include <cctype>
#include <sstream>

#include "common/error.h"

namespace simtrain::calibration::tool {

std::string ComputeCapability::text() const { return "sm_" + std::to_string(major) + std::to_string(minor); }

double PerSmRates::of(DType dtype) const {
  switch (dtype) {
    case DType::FP32:
      return fp32;
    case DType::TF32:
      return tf32;
    case DType::FP16:
      return fp16;
    case DType::BF16:
      return bf16;
    case DType::FP8:
      return fp8;
    case DType::FP4:
      return 0;  // NVFP4 GEMMs are not measured by the tool yet
  }
  return 0;
}

std::optional<PerSmRates> per_sm_rates(ComputeCapability cc) {
  const int sm = 10 * cc.major + cc.minor;
  switch (sm) {
    case 70:  // V100
    case 72:
      return PerSmRates{128, 0, 1024, 0, 0};
    case 75:  // T4, RTX 20: fp16 with fp32 accumulation at the full rate on data-centre boards
      return PerSmRates{128, 0, 512, 0, 0};
    case 80:  // A100, A30
      return PerSmRates{128, 1024, 2048, 2048, 0};
    case 86:  // A10, A40, RTX 30 (GeForce boards halve the fp32-accumulate tensor rate)
    case 87:
      return PerSmRates{256, 512, 1024, 1024, 0};
    case 89:  // L4, L40S, RTX 40
      return PerSmRates{256, 512, 1024, 1024, 2048};
    case 90:  // H100, H200, GH200
      return PerSmRates{256, 2048, 4096, 4096, 8192};
    case 100:  // B200, GB200
    case 103:
      return PerSmRates{256, 4096, 8192, 8192, 16384};
    case 120:  // RTX PRO 6000 Blackwell, RTX 50
      return PerSmRates{256, 512, 1024, 1024, 2048};
    default:
      return std::nullopt;
  }
}

double exponentials_per_clock_per_sm(ComputeCapability cc) {
  return 10 * cc.major + cc.minor == 103 ? 32 : 16;
}

bool supports(ComputeCapability cc, DType dtype) {
  if (const auto rates = per_sm_rates(cc)) return rates->of(dtype) > 0;
  const int sm = 10 * cc.major + cc.minor;
  switch (dtype) {
    case DType::FP32:
    case DType::FP16:
      return true;
    case DType::TF32:
    case DType::BF16:
      return sm >= 80;
    case DType::FP8:
      return sm >= 89;
    case DType::FP4:
      return false;  // not measured by the tool yet
  }
  return false;
}

std::map<DType, double> peak_flops_per_s(ComputeCapability cc, int sm_count, double clock_mhz) {
  std::map<DType, double> peaks;
  const auto rates = per_sm_rates(cc);
  if (!rates || sm_count <= 0 || clock_mhz <= 0) return peaks;
  for (DType dtype : kAllDTypes)
    if (rates->of(dtype) > 0) peaks[dtype] = sm_count * clock_mhz * 1e6 * rates->of(dtype);
  return peaks;
}

std::vector<DType> dtypes_to_measure(ComputeCapability cc, const std::string& gpu_name,
                                     const std::vector<DType>& requested,
                                     std::vector<std::string>& warnings) {
  const std::vector<DType> wanted =
      requested.empty() ? std::vector<DType>(std::begin(kAllDTypes), std::end(kAllDTypes)) : requested;
  std::vector<DType> chosen;
  for (DType dtype : wanted) {
    if (requested.empty() && dtype == DType::FP4) continue;  // NVFP4 GEMMs are not measured by the tool yet
    if (supports(cc, dtype)) {
      chosen.push_back(dtype);
      continue;
    }
    const std::string message =
        std::string(to_string(dtype)) + " is not supported on " + gpu_name + " (" + cc.text() + ")";
    if (!requested.empty()) throw Error("--dtypes: " + message);
    warnings.push_back("skipping " + message);
  }
  return chosen;
}

std::string driver_release_from_version_line(const std::string& line) {
  const std::size_t module = line.find("Kernel Module");
  if (module == std::string::npos) return "";
  std::istringstream words(line.substr(module));
  std::string word;
  while (words >> word)
    if (std::isdigit(static_cast<unsigned char>(word.front()))) return word;
  return "";
}

}  // namespace simtrain::calibration::tool
