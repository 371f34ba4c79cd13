// Median and percentiles of timing samples, and the arithmetic of how long and over how many buffers a
// kernel is timed.
#include "calibration/tool/timing_stats.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace simtrain::calibration::tool {

double percentile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw Error("percentile of no samples");
  if (!(q >= 0 && q <= 1)) throw Error("percentile: q must be in [0, 1], got " + std::to_string(q));
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

TimingSummary summarize(std::vector<double> samples_s) {
  if (samples_s.empty()) throw Error("no timing samples");
  for (double s : samples_s)
    if (!std::isfinite(s) || s <= 0) throw Error("timing sample " + std::to_string(s) + " is not > 0");
  std::sort(samples_s.begin(), samples_s.end());
  TimingSummary summary;
  summary.median_s = percentile(samples_s, 0.5);
  summary.p10_s = percentile(samples_s, 0.1);
  summary.p90_s = percentile(samples_s, 0.9);
  summary.min_s = samples_s.front();
  summary.max_s = samples_s.back();
  summary.samples = static_cast<int>(samples_s.size());
  return summary;
}

int launches_per_sample(double estimate_s, const TimingPlan& plan) {
  if (!(estimate_s > 0)) return plan.max_launches_per_sample;
  const double launches = std::ceil(plan.target_sample_s / estimate_s);
  return static_cast<int>(std::clamp(launches, 1.0, static_cast<double>(plan.max_launches_per_sample)));
}

int samples_to_take(double estimate_s, int launches, const TimingPlan& plan) {
  const double sample_s = std::max(estimate_s, 0.0) * std::max(launches, 1);
  if (sample_s <= 0) return plan.samples;
  const double affordable = std::floor(plan.max_seconds_per_measurement / sample_s);
  return static_cast<int>(
      std::clamp(affordable, static_cast<double>(plan.min_samples), static_cast<double>(plan.samples)));
}

int rotation_sets(double set_bytes, double l2_bytes, double budget_bytes) {
  if (!(set_bytes > 0)) return 1;
  const double wanted = 1 + std::ceil(2 * std::max(l2_bytes, 0.0) / set_bytes);
  const double affordable = std::floor(budget_bytes / set_bytes);
  return static_cast<int>(std::max(1.0, std::min(wanted, affordable)));
}

}  // namespace simtrain::calibration::tool
