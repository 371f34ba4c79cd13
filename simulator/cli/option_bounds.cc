// Implements option_bounds.h: the ranges, and the check that reads any numeric option type.
#include "simulator/cli/option_bounds.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "common/limits.h"

namespace simtrain::cli {
namespace {

// [min, max], or (min, max] when `above_min`: the values an option may take.
struct OptionRange {
  const char* name;
  double min;
  double max;
  bool above_min = false;
};

constexpr double kRanks = limits::kMaxRanks;
constexpr double kMicroBatches = limits::kMaxMicroBatches;

// Sizes are bounded by common/limits.h; times, fractions and factors by what still means something (a job of
// more than a million years, a straggler a thousand times slower, a kernel noise sigma above 1 whose
// log-normal factor spans e^±3).
constexpr OptionRange kRanges[] = {
    {"gpus", 1, kRanks},
    {"nodes", 1, kRanks},
    {"gpus-per-node", 1, limits::kMaxGpusPerNode},
    {"batch-per-gpu", 1, 1 << 20},
    {"grad-accum", 1, kMicroBatches},
    {"seq-len", 0, 1 << 24},
    {"bucket-mb", 0, 1 << 20, true},
    {"tp", 1, kRanks},
    {"pp", 1, kRanks},
    {"vpp", 1, 1024},
    {"cp", 1, kRanks},
    {"ep", 1, kRanks},
    {"dp", 0, kRanks},
    {"zero", 0, 3},
    {"micro-batch", 1, 1 << 20},
    {"global-batch", 0, double{limits::kMaxMicroBatches} * (1 << 20)},
    {"steps", 0, 1e12, true},
    {"epochs", 0, 1e9, true},
    {"dataset-size", 0, 1e15, true},
    {"startup-s", 0, 3.2e13},
    {"step-overhead", 0, 100},
    {"jitter-run", 0, 1},
    {"jitter-kernel", 0, 1},
    {"timeline-ranks", 1, kRanks},
};

// The option's value as a double, or NaN when it is not numeric (the table only names numeric options).
double numeric_value(const boost::any& value) {
  if (const auto* v = boost::any_cast<double>(&value)) return *v;
  if (const auto* v = boost::any_cast<int>(&value)) return *v;
  if (const auto* v = boost::any_cast<long long>(&value)) return static_cast<double>(*v);
  if (const auto* v = boost::any_cast<std::uint64_t>(&value)) return static_cast<double>(*v);
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

void check_option_bounds(const boost::program_options::variables_map& vm) {
  for (const OptionRange& range : kRanges) {
    const auto found = vm.find(range.name);
    if (found == vm.end() || found->second.empty()) continue;
    const double value = numeric_value(found->second.value());
    const bool inside = std::isfinite(value) && (range.above_min ? value > range.min : value >= range.min) &&
                        value <= range.max;
    if (!inside)
      throw Error(fmt::format("--{}: must be {} {} {} {}, got {}", range.name,
                              range.above_min ? "above" : "from", range.min, range.above_min ? "and at most" : "to",
                              range.max, value));
  }
}

}  // namespace simtrain::cli
