// Built-in spec profiles: datasheet figures for GPUs nobody has measured, and the lookup of a profile by spec
// name or file path.
//
// Figures come from validation/reference/datasheets/gpu_peak_specs.csv and interconnect_specs.csv: dense
// rates (no structured sparsity), TFLOP/s x 1e12, HBM GB/s x 1e9, NVLink per direction = bidirectional / 2.
// The P100, absent from those tables, takes NVIDIA's Tesla P100 PCIe datasheet figures.
#include "calibration/spec_profiles.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "calibration/profile_json.h"
#include "common/error.h"
#include "common/suggest.h"

namespace simtrain::calibration {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;

double tflops(double value) { return value * 1e12; }
double gb_per_s(double value) { return value * 1e9; }

// PCIe x16 per direction, nominal (the ml-engineering table lists 31 and 63 GB/s measured-ish figures for
// Gen4/Gen5; the nominal rate is what a datasheet promises and what other spec figures here are).
constexpr double kPcieGen3 = 16e9;
constexpr double kPcieGen4 = 32e9;
constexpr double kPcieGen5 = 64e9;

constexpr const char* kSource =
    "datasheet figures (dense, no sparsity) from stas00/ml-engineering@744d01e compute/accelerator/README.md "
    "and network/README.md tables, and vendor datasheets";

CalibrationProfile spec(std::string device_name, int sm_count, double clock_mhz, double memory_bytes,
                        double memory_bandwidth_Bps, std::map<DType, double> peaks, double nvlink_Bps,
                        double pcie_Bps) {
  CalibrationProfile profile;
  profile.kind = ProfileKind::Spec;
  profile.device = {std::move(device_name), sm_count,         clock_mhz,  memory_bytes,
                    memory_bandwidth_Bps,   std::move(peaks), nvlink_Bps, pcie_Bps};
  profile.environment.source = kSource;
  // Efficiencies stay at the struct defaults on purpose: they are tuned centrally, not per GPU.
  return profile;
}

// Tesla P100 PCIe datasheet (NVIDIA, 2016): 9.3 TFLOP/s fp32 and 18.7 fp16 (Pascal has no tensor cores; fp16
// is the packed half2 rate), 16 GB HBM2 at 732 GB/s, 56 SMs at 1303 MHz boost, PCIe Gen3 x16, no NVLink.
CalibrationProfile p100_pcie() {
  CalibrationProfile profile = spec("P100-PCIE-16GB", 56, 1303, 16 * kGiB, gb_per_s(732),
                                    {{DType::FP32, tflops(9.3)}, {DType::FP16, tflops(18.7)}}, 0, kPcieGen3);
  profile.environment.source = std::string(kSource) + "; P100: NVIDIA Tesla P100 PCIe datasheet";
  return profile;
}

// Volta: fp16 is tensor-core mixed precision; no tf32, bf16 or fp8.
std::map<DType, double> volta_peaks() { return {{DType::FP32, tflops(15.7)}, {DType::FP16, tflops(125)}}; }

std::map<DType, double> ampere_peaks() {
  return {{DType::FP32, tflops(19.5)},
          {DType::TF32, tflops(156)},
          {DType::FP16, tflops(312)},
          {DType::BF16, tflops(312)}};
}

std::map<DType, double> hopper_peaks() {
  return {{DType::FP32, tflops(67)},
          {DType::TF32, tflops(494.5)},
          {DType::FP16, tflops(989)},
          {DType::BF16, tflops(989)},
          {DType::FP8, tflops(1979)}};
}

std::map<DType, double> blackwell_peaks() {
  return {{DType::FP32, tflops(80)},
          {DType::TF32, tflops(1125)},
          {DType::FP16, tflops(2250)},
          {DType::BF16, tflops(2250)},
          {DType::FP8, tflops(4500)}};
}

// Memory sizes are what the card reports to software: V100, A100 and H100 sizes are binary (an "80GB" card
// has 80 GiB), while H200 (141 GB) and B200 (180 GB usable of 192 GiB physical) are marketed in decimal GB.
const std::map<std::string, CalibrationProfile>& catalogue() {
  static const std::map<std::string, CalibrationProfile> profiles = {
      {"v100-sxm2-16gb", spec("V100-SXM2-16GB", 80, 1530, 16 * kGiB, gb_per_s(900), volta_peaks(),
                              gb_per_s(300) / 2, kPcieGen3)},
      {"v100-sxm2-32gb", spec("V100-SXM2-32GB", 80, 1530, 32 * kGiB, gb_per_s(900), volta_peaks(),
                              gb_per_s(300) / 2, kPcieGen3)},
      {"p100-pcie-16gb", p100_pcie()},
      // The PCIe card: lower clocks (1380 MHz) give 14 / 112 TFLOP/s; no NVLink.
      {"v100-pcie-16gb", spec("V100-PCIE-16GB", 80, 1380, 16 * kGiB, gb_per_s(900),
                              {{DType::FP32, tflops(14)}, {DType::FP16, tflops(112)}}, 0, kPcieGen3)},
      {"a100-sxm4-40gb", spec("A100-SXM4-40GB", 108, 1410, 40 * kGiB, gb_per_s(1555), ampere_peaks(),
                              gb_per_s(600) / 2, kPcieGen4)},
      {"a100-sxm4-80gb", spec("A100-SXM4-80GB", 108, 1410, 80 * kGiB, gb_per_s(2039), ampere_peaks(),
                              gb_per_s(600) / 2, kPcieGen4)},
      // 1980 MHz is the SXM5 max boost; the ml-engineering table's 1830 MHz is the clock its peak math uses.
      {"h100-sxm5", spec("H100-SXM5-80GB", 132, 1980, 80 * kGiB, gb_per_s(3350), hopper_peaks(),
                         gb_per_s(900) / 2, kPcieGen5)},
      {"h200-sxm", spec("H200-SXM-141GB", 132, 1980, 141 * kGB, gb_per_s(4800), hopper_peaks(),
                        gb_per_s(900) / 2, kPcieGen5)},
      // Approximate: NVIDIA publishes no boost clock for B200; 1965 MHz is the commonly reported figure.
      {"b200", spec("B200-180GB", 148, 1965, 180 * kGB, gb_per_s(8000), blackwell_peaks(), gb_per_s(1800) / 2,
                    kPcieGen5)},
  };
  return profiles;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::vector<std::string> spec_profile_names() {
  std::vector<std::string> names;
  for (const auto& [name, profile] : catalogue()) names.push_back(name);
  return names;  // std::map keeps them sorted
}

std::optional<CalibrationProfile> spec_profile(const std::string& name) {
  const auto found = catalogue().find(lowercase(name));
  if (found == catalogue().end()) return std::nullopt;
  return found->second;
}

CalibrationProfile load_profile(const std::string& name_or_path) {
  if (auto profile = spec_profile(name_or_path)) return *profile;
  std::error_code ignored;
  if (std::filesystem::exists(name_or_path, ignored)) return read_profile_file(name_or_path);
  std::string names;
  for (const std::string& name : spec_profile_names()) names += (names.empty() ? "" : ", ") + name;
  throw Error("unknown profile '" + name_or_path + "'" + did_you_mean(name_or_path, spec_profile_names()) +
              ": not a spec profile (" + names + ") nor a readable file");
}

}  // namespace simtrain::calibration
