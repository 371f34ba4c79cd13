// Medians of achieved-over-peak rates per kernel family.
#include "calibration/tool/efficiency_fit.h"

#include <algorithm>
#include <cstdio>

#include "calibration/tool/timing_stats.h"

namespace simtrain::calibration::tool {
namespace {

enum class MathUnit { TensorCores, Tf32, Fp32 };

MathUnit unit_of(DType dtype) {
  if (dtype == DType::FP32) return MathUnit::Fp32;
  if (dtype == DType::TF32) return MathUnit::Tf32;
  return MathUnit::TensorCores;
}

// Achieved fractions of peak, per math unit.
struct Fractions {
  std::vector<double> of[3];
  void add(const CalibrationProfile& p, DType dtype, double flops, double time_s) {
    const double peak = p.peak_flops(dtype);
    if (peak > 0 && time_s > 0) of[static_cast<int>(unit_of(dtype))].push_back(flops / time_s / peak);
  }
};

void set_median(double& efficiency, std::vector<double> fractions, const char* name,
                std::vector<std::string>& log) {
  if (fractions.empty()) return;
  std::sort(fractions.begin(), fractions.end());
  efficiency = std::clamp(percentile(fractions, 0.5), 0.01, 1.0);
  char line[128];
  std::snprintf(line, sizeof line, "efficiency %s = %.3f (median of %zu measurements)", name, efficiency,
                fractions.size());
  log.push_back(line);
}

// `target` = the mean over `ops` of each op's rate at its largest measured buffer, over the device's memory
// bandwidth: the largest buffer is the one furthest past the L2 cache.
void set_bandwidth_fraction(const CalibrationProfile& profile, const std::vector<std::string>& ops,
                            double& target, const char* name, std::vector<std::string>& log) {
  if (profile.device.memory_bandwidth_Bps <= 0) return;
  double sum = 0;
  int measured = 0;
  for (const std::string& op : ops) {
    const MemoryBandwidthMeasurement* largest = nullptr;
    for (const MemoryBandwidthMeasurement& m : profile.memory)
      if (m.op == op && (largest == nullptr || m.bytes > largest->bytes)) largest = &m;
    if (largest == nullptr) continue;
    sum += largest->bandwidth_Bps;
    ++measured;
  }
  if (measured == 0) return;
  target = std::clamp(sum / measured / profile.device.memory_bandwidth_Bps, 0.01, 1.0);
  char line[128];
  std::snprintf(line, sizeof line, "efficiency %s = %.3f (PyTorch's kernel path, largest buffers)", name,
                target);
  log.push_back(line);
}

}  // namespace

double conv_flops(const std::vector<std::int64_t>& key) {
  if (key.size() != 9) return 0;
  const double n = key[0], c = key[1], h = key[2], w = key[3], k = key[4], r = key[5], s = key[6];
  const double stride = key[7], pad = key[8];
  const double p =
      std::max(1.0, static_cast<double>(static_cast<std::int64_t>((h + 2 * pad - r) / stride) + 1));
  const double q =
      std::max(1.0, static_cast<double>(static_cast<std::int64_t>((w + 2 * pad - s) / stride) + 1));
  return 2 * n * k * p * q * c * r * s;
}

std::vector<std::string> fit_efficiencies(CalibrationProfile& profile) {
  Fractions gemm, conv;
  for (const GemmMeasurement& g : profile.gemm)
    gemm.add(profile, g.dtype,
             2.0 * static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k), g.time_s);
  for (const KernelMeasurement& k : profile.kernels)
    if (k.op == "conv_forward" || k.op == "conv_backward_data" || k.op == "conv_backward_weight")
      conv.add(profile, k.dtype, conv_flops(k.shape), k.time_s);

  std::vector<std::string> log;
  Efficiencies& eff = profile.efficiencies;
  set_median(eff.gemm, gemm.of[0], "gemm", log);
  set_median(eff.gemm_tf32, gemm.of[1], "gemm_tf32", log);
  set_median(eff.gemm_fp32, gemm.of[2], "gemm_fp32", log);
  set_median(eff.conv, conv.of[0], "conv", log);
  set_median(eff.conv_tf32, conv.of[1], "conv_tf32", log);
  set_median(eff.conv_fp32, conv.of[2], "conv_fp32", log);

  double best_copy_Bps = 0;
  for (const MemoryBandwidthMeasurement& m : profile.memory)
    if (m.op == "device_copy") best_copy_Bps = std::max(best_copy_Bps, m.bandwidth_Bps);
  if (best_copy_Bps > 0 && profile.device.memory_bandwidth_Bps > 0) {
    eff.memory_bound = std::clamp(best_copy_Bps / profile.device.memory_bandwidth_Bps, 0.01, 1.0);
    char line[128];
    std::snprintf(line, sizeof line, "efficiency memory_bound = %.3f (best device copy)", eff.memory_bound);
    log.push_back(line);
  }
  set_bandwidth_fraction(profile, {"elementwise_unrolled", "elementwise_strided"},
                         eff.memory_bound_unvectorized, "memory_bound_unvectorized", log);
  set_bandwidth_fraction(profile, {"multi_tensor"}, eff.memory_bound_multi_tensor,
                         "memory_bound_multi_tensor", log);
  return log;
}

}  // namespace simtrain::calibration::tool
