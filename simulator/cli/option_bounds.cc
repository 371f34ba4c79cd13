// Implements option_bounds.h: the ranges, and the check that reads any numeric option type.
#include "simulator/cli/option_bounds.h"

#include <optional>

#include <cstdint>
#include <limits>
#include <string>

#include "common/error.h"
#include "common/input_limits.h"
#include "common/number_checks.h"

namespace simtrain::cli {
namespace {

// The values an option may take. Fractions and sigmas state their upper bound as part of their meaning;
// the other bounds only guard against the absurd and are named to those who cross them.
struct OptionRange {
  const char* name;
  NumberRange range;
};

constexpr double kRanks = static_cast<double>(kMaxRanks);
constexpr double kMicroBatches = kMaxMicroBatches;

constexpr NumberRange at_least(double min, double max) { return {min, true, max, false}; }
constexpr NumberRange above(double min, double max) { return {min, false, max, false}; }
constexpr NumberRange between(double min, double max) { return {min, true, max, true}; }

// Sizes are bounded by common/input_limits.h; times, fractions and factors by what still means something (a
// job of more than a million years, a kernel noise sigma above 1 whose log-normal factor spans e^±3).
constexpr OptionRange kRanges[] = {
    {"gpus", at_least(1, kRanks)},
    {"nodes", at_least(1, kRanks)},
    {"gpus-per-node", at_least(1, kMaxGpusPerNode)},
    {"batch-per-gpu", at_least(1, 1 << 20)},
    {"grad-accum", at_least(1, kMicroBatches)},
    {"seq-len", at_least(0, 1 << 24)},
    {"bucket-mb", above(0, 1 << 20)},
    {"step", at_least(0, 1e9)},
    {"host-speed", between(1e-3, 1e3)},
    {"host-step-time", above(0, kMaxDuration_s)},
    {"tp", at_least(1, kRanks)},
    {"pp", at_least(1, kRanks)},
    {"vpp", at_least(1, 1024)},
    {"cp", at_least(1, kRanks)},
    {"ep", at_least(1, kRanks)},
    {"dp", at_least(0, kRanks)},
    {"zero", between(0, 3)},
    {"micro-batch", at_least(1, 1 << 20)},
    {"global-batch", at_least(0, kMicroBatches * (1 << 20))},
    {"steps", above(0, 1e12)},
    {"epochs", above(0, 1e9)},
    {"dataset-size", above(0, 1e15)},
    {"startup-s", at_least(0, 3.2e13)},
    {"step-overhead", between(0, 100)},
    {"jitter-run", between(0, 1)},
    {"jitter-kernel", between(0, 1)},
    {"timeline-ranks", at_least(1, kRanks)},
    {"jobs", at_least(1, 4096)},
    {"shards", at_least(1, 1 << 20)},
    {"time-limit", above(0, 3.2e13)},
};

// The option's value as a double, or nullopt when a subcommand takes it as text (plan's --gpus 256..2048),
// which that subcommand's own parser checks.
std::optional<double> numeric_value(const boost::any& value) {
  if (const auto* v = boost::any_cast<double>(&value)) return *v;
  if (const auto* v = boost::any_cast<int>(&value)) return *v;
  if (const auto* v = boost::any_cast<long long>(&value)) return static_cast<double>(*v);
  if (const auto* v = boost::any_cast<std::uint64_t>(&value)) return static_cast<double>(*v);
  return std::nullopt;
}

}  // namespace

void check_option_bounds(const boost::program_options::variables_map& vm) {
  for (const OptionRange& option : kRanges) {
    const auto found = vm.find(option.name);
    if (found == vm.end() || found->second.empty()) continue;
    const std::optional<double> value = numeric_value(found->second.value());
    if (!value) continue;
    if (auto why = range_violation(*value, option.range))
      throw Error(std::string("--") + option.name + ": " + *why);
  }
}

}  // namespace simtrain::cli
