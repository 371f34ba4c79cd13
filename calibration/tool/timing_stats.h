// Statistics of repeated kernel timings, and the plan that decides how long a measurement runs: how many
// launches make one timed sample and how many operand sets to rotate so that no launch finds its data in L2.
#pragma once

#include <vector>

namespace simtrain::calibration::tool {

// What repeated samples of one kernel say about its duration. The profile records the median: it ignores
// the odd sample slowed by a clock change or another process, which a mean would not.
struct TimingSummary {
  double median_s = 0;
  double p10_s = 0;
  double p90_s = 0;
  double min_s = 0;
  double max_s = 0;
  int samples = 0;
};

// Throws Error on an empty list or a sample that is not a finite number > 0.
TimingSummary summarize(std::vector<double> samples_s);

// The q-quantile (0 <= q <= 1) of sorted values, interpolating linearly between neighbours (numpy's
// default). Throws Error on an empty list or q outside [0, 1].
double percentile(const std::vector<double>& sorted, double q);

// How long to measure. CUDA events resolve about 0.5 us, so kernels shorter than that are launched many
// times back to back within one sample, as a training step launches them; `target_sample_s` sets how long
// a sample lasts.
struct TimingPlan {
  int warmup_launches = 3;
  int samples = 15;
  int min_samples = 5;
  double target_sample_s = 1e-3;
  int max_launches_per_sample = 256;
  // A long kernel gets fewer samples (never under min_samples) so that one shape does not take minutes.
  double max_seconds_per_measurement = 2.0;

  static TimingPlan standard() { return {}; }
  static TimingPlan quick() { return {2, 7, 3, 5e-4, 128, 0.5}; }
};

// Launches per sample for a kernel estimated to take `estimate_s`: enough to fill target_sample_s.
int launches_per_sample(double estimate_s, const TimingPlan& plan);
// Samples to take of `launches` launches of `estimate_s` each within the plan's time limit.
int samples_to_take(double estimate_s, int launches, const TimingPlan& plan);

// How many sets of `set_bytes` of operands to rotate through so that, between two uses of one set, the
// others have streamed at least twice the L2 cache through it; limited to what fits in `budget_bytes`
// (at least 1).
int rotation_sets(double set_bytes, double l2_bytes, double budget_bytes);

}  // namespace simtrain::calibration::tool
