// Implements search_space.h: nested loops over the dimensions of a plan, each value list cut to what the
// model's shape allows, then validate() and the memory estimate.
#include "simulator/plan/search_space.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "simulator/workload/parallel_memory.h"
#include "simulator/workload/pipeline_split.h"

namespace simtrain::plan {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::vector<int> divisors(int n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, at_most); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::vector<int> powers_of_two(int at_most) {
  std::vector<int> out;
  for (int v = 1; v <= at_most; v *= 2) out.push_back(v);
  return out;
}

int to_int(const std::string& key, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value < 1 || value > (1 << 20))
    throw Error("--fix " + key + "=" + text + ": expected a whole number from 1 to " +
                std::to_string(1 << 20));
  return static_cast<int>(value);
}

// The fixed value of `key` as the only choice, or `free` when it is not fixed.
std::vector<int> choices(const SearchSpace& space, const std::string& key, std::vector<int> free) {
  const auto it = space.fixed.find(key);
  if (it == space.fixed.end()) return free;
  return {to_int(key, it->second)};
}

const std::vector<workload::Recompute> kRecompute = {
    workload::Recompute::None, workload::Recompute::Selective, workload::Recompute::Full};
const std::vector<Sharding> kSharding = {Sharding::None,      Sharding::DistributedOptimizer,
                                         Sharding::Zero1,     Sharding::Zero2,
                                         Sharding::Zero3,     Sharding::Fsdp,
                                         Sharding::HybridFsdp};

bool job_size_ok(const SearchSpace& space, int gpus) {
  if (gpus < space.min_gpus || gpus > space.max_gpus) return false;
  return gpus <= space.gpus_per_node ? true : gpus % space.gpus_per_node == 0;
}

}  // namespace

const char* to_string(Sharding sharding) {
  switch (sharding) {
    case Sharding::None:
      return "none";
    case Sharding::DistributedOptimizer:
      return "dist-opt";
    case Sharding::Zero1:
      return "zero1";
    case Sharding::Zero2:
      return "zero2";
    case Sharding::Zero3:
      return "zero3";
    case Sharding::Fsdp:
      return "fsdp";
    case Sharding::HybridFsdp:
      return "hsdp";
  }
  return "none";
}

bool parse_sharding(const std::string& text, Sharding& out) {
  for (Sharding s : kSharding)
    if (text == to_string(s)) {
      out = s;
      return true;
    }
  return false;
}

Sharding sharding_of(const workload::ParallelConfig& c) {
  if (c.distributed_optimizer) return Sharding::DistributedOptimizer;
  if (c.fsdp == workload::FsdpMode::FullShard) return Sharding::Fsdp;
  if (c.fsdp == workload::FsdpMode::HybridShard) return Sharding::HybridFsdp;
  switch (c.zero) {
    case 1:
      return Sharding::Zero1;
    case 2:
      return Sharding::Zero2;
    case 3:
      return Sharding::Zero3;
    default:
      return Sharding::None;
  }
}

void apply_sharding(Sharding sharding, workload::ParallelConfig& c) {
  c.distributed_optimizer = sharding == Sharding::DistributedOptimizer;
  c.zero = sharding == Sharding::Zero1   ? 1
           : sharding == Sharding::Zero2 ? 2
           : sharding == Sharding::Zero3 ? 3
                                         : 0;
  c.fsdp = sharding == Sharding::Fsdp         ? workload::FsdpMode::FullShard
           : sharding == Sharding::HybridFsdp ? workload::FsdpMode::HybridShard
                                              : workload::FsdpMode::None;
}

const std::vector<std::string>& fixable_keys() {
  static const std::vector<std::string> keys = {"tp", "pp",          "vpp",       "cp",      "ep",
                                                "dp", "micro-batch", "recompute", "sharding"};
  return keys;
}

void parse_fixed(const std::string& text, std::map<std::string, std::string>& fixed) {
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string field = text.substr(start, comma - start);
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) throw Error("--fix: expected key=value, got '" + field + "'");
    const std::string key = field.substr(0, equals), value = field.substr(equals + 1);
    const auto& keys = fixable_keys();
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw Error("--fix: unknown key '" + key +
                  "' (tp, pp, vpp, cp, ep, dp, micro-batch, recompute, sharding)");
    if (key == "recompute") {
      workload::Recompute unused;
      if (!workload::parse_recompute(value, unused))
        throw Error("--fix recompute=" + value + ": expected none, selective or full");
    } else if (key == "sharding") {
      Sharding unused;
      if (!parse_sharding(value, unused))
        throw Error("--fix sharding=" + value +
                    ": expected none, dist-opt, zero1, zero2, zero3, fsdp or hsdp");
    } else {
      to_int(key, value);
    }
    if (!fixed.emplace(key, value).second) throw Error("--fix: " + key + "= given twice");
    start = comma + 1;
  }
}

namespace {

// Megatron's activation offloading (--cpu-offloading-num-layers) as the lever of last resort for a plan that
// does not fit: the fewest layers whose activations, kept in host memory, bring the plan within the GPU's
// memory; false (the plan unchanged) where even all but one layer do not, or Megatron refuses offloading
// for it (validate(), parallel_config.cc: pipelining, recomputation). The estimate falls as layers are
// offloaded, so the search halves the range.
bool offload_to_fit(const SearchSpace& space, const workload::TransformerConfig& model,
                    workload::ParallelConfig& c) {
  if (!space.offload || model.layers < 2) return false;
  c.cpu_offloading_layers = 1;
  try {
    workload::validate(c, model, c.gpus);
  } catch (const Error&) {
    c.cpu_offloading_layers = 0;
    return false;
  }
  const int dp = c.data_parallel_size();
  const auto fits = [&](int layers) {
    c.cpu_offloading_layers = layers;
    return workload::estimate_parallel_memory(model, c, space.seq_len, dp).total_bytes() <=
           space.memory_bytes;
  };
  if (!fits(model.layers - 1)) {
    c.cpu_offloading_layers = 0;
    return false;
  }
  int low = 0, high = model.layers - 1;  // low does not fit, high does
  while (high - low > 1) {
    const int middle = (low + high) / 2;
    (fits(middle) ? high : low) = middle;
  }
  c.cpu_offloading_layers = high;
  return true;
}

// Full recomputation of fewer layers (Megatron's --recompute-method block): of a plan that fits recomputing
// every layer, the fewest layers of each model chunk whose recomputation still brings it within the GPU's
// memory, since each layer left out saves its forward's rerun. The estimate falls with each layer
// recomputed, so the search halves the range; a plan that fits recomputing none is left as it is (the plan
// without recomputation is its better self).
void recompute_fewest_layers(const SearchSpace& space, const workload::TransformerConfig& model,
                             workload::ParallelConfig& c) {
  const int chunk_layers = workload::pipeline_split(c, model.layers).max_chunk_layers();
  const int dp = c.data_parallel_size();
  const auto fits = [&](int layers) {
    c.recompute_layers = {workload::RecomputedLayers::Rule::FirstOfChunk, layers};
    return workload::estimate_parallel_memory(model, c, space.seq_len, dp).total_bytes() <=
           space.memory_bytes;
  };
  int low = 0, high = chunk_layers;  // low does not fit, high does
  if (chunk_layers < 2 || fits(low)) {
    c.recompute_layers = {};
    return;
  }
  while (high - low > 1) {
    const int middle = (low + high) / 2;
    (fits(middle) ? high : low) = middle;
  }
  c.recompute_layers = high < chunk_layers
                           ? workload::RecomputedLayers{workload::RecomputedLayers::Rule::FirstOfChunk, high}
                           : workload::RecomputedLayers{};
}

}  // namespace

Enumeration enumerate_plans(const SearchSpace& space, const workload::TransformerConfig& model) {
  Enumeration out;
  // Reasons are formatted only for the first refusal: most combinations are refused.
  const auto reject = [&](const auto& why) {
    ++out.invalid;
    if (out.first_rejection.empty()) out.first_rejection = why();
  };
  const int node = std::max(1, space.gpus_per_node);
  const std::vector<int> tps = choices(space, "tp", powers_of_two(space.max_tp > 0 ? space.max_tp : node));
  const std::vector<int> cps = choices(space, "cp", powers_of_two(8));
  const std::vector<int> pps = choices(space, "pp", divisors(model.layers, space.max_gpus));
  const std::vector<int> eps =
      choices(space, "ep", model.experts > 0 ? divisors(model.experts, space.max_gpus) : std::vector<int>{1});
  const std::vector<int> micro_batches = choices(space, "micro-batch", powers_of_two(16));
  std::vector<workload::Recompute> recomputes = kRecompute;
  if (auto it = space.fixed.find("recompute"); it != space.fixed.end()) {
    workload::Recompute r;
    workload::parse_recompute(it->second, r);
    recomputes = {r};
  }
  std::vector<Sharding> shardings = kSharding;
  if (auto it = space.fixed.find("sharding"); it != space.fixed.end()) {
    Sharding s;
    parse_sharding(it->second, s);
    shardings = {s};
  }
  const auto fixed_dp =
      space.fixed.count("dp") ? std::optional<int>(to_int("dp", space.fixed.at("dp"))) : std::nullopt;

  for (int tp : tps)
    for (int cp : cps)
      for (int pp : pps) {
        const int model_parallel = tp * cp * pp;
        // Data-parallel sizes: every size that gives a job size in range (and divides the batch).
        std::vector<int> dps;
        if (fixed_dp) {
          dps = {*fixed_dp};
        } else {
          for (int dp = std::max(1, space.min_gpus / model_parallel);
               1LL * dp * model_parallel <= space.max_gpus; ++dp)
            if (1LL * dp * model_parallel >= space.min_gpus && (space.global_batch % dp == 0 || dps.empty()))
              dps.push_back(dp);
          if (dps.empty()) {
            ++out.considered;
            reject([&] {
              return fmt::format("--gpus {}: no multiple of tp {} x cp {} x pp {} = {} in {}..{}",
                                 space.max_gpus, tp, cp, pp, model_parallel, space.min_gpus, space.max_gpus);
            });
          }
        }
        for (int dp : dps) {
          const int gpus = model_parallel * dp;
          if (!job_size_ok(space, gpus)) {
            ++out.considered;
            reject([&] {
              return fmt::format(
                  "--gpus {}: tp {} x cp {} x pp {} x dp {} is outside {}..{} or not whole nodes of {}", gpus,
                  tp, cp, pp, dp, space.min_gpus, space.max_gpus, node);
            });
            continue;
          }
          std::vector<int> vpps = {1};
          if (pp > 1) vpps = divisors(model.layers / std::max(1, pp), 8);
          if (space.fixed.count("vpp")) vpps = {to_int("vpp", space.fixed.at("vpp"))};
          for (int vpp : vpps)
            for (int ep : eps)
              for (int mb : micro_batches)
                for (workload::Recompute recompute : recomputes)
                  for (Sharding sharding : shardings) {
                    ++out.considered;
                    workload::ParallelConfig c;
                    c.model = space.model;
                    c.gpus = gpus;
                    c.tp = tp;
                    c.sp = tp > 1;
                    c.pp = pp;
                    c.vpp = vpp;
                    c.cp = cp;
                    c.ep = ep;
                    c.dp = dp;
                    c.micro_batch = mb;
                    c.global_batch = space.global_batch;
                    c.seq_len = space.seq_len;
                    c.recompute = recompute;
                    c.schedule = vpp > 1 ? workload::PipelineSchedule::Interleaved
                                         : workload::PipelineSchedule::OneFOneB;
                    c.precision = space.precision;
                    c.fp8 = space.fp8;
                    c.cross_entropy_fusion = space.cross_entropy_fusion;
                    apply_sharding(sharding, c);
                    try {
                      workload::validate(c, model, gpus);
                    } catch (const Error& error) {
                      reject([&] { return std::string(error.what()); });
                      continue;
                    }
                    const long long micro_batch_count = space.global_batch / (1LL * mb * dp);
                    if (vpp > 1 && micro_batch_count % pp != 0) {
                      reject([&] {
                        return fmt::format(
                            "--vpp {}: interleaving needs the {} micro-batches to divide by pp {}", vpp,
                            micro_batch_count, pp);
                      });
                      continue;
                    }
                    if (pp > 1 && (c.zero >= 2 || c.fsdp != workload::FsdpMode::None)) {
                      reject([&] {
                        return fmt::format("--pp {}: {} does not combine with pipeline parallelism", pp,
                                           to_string(sharding));
                      });
                      continue;
                    }
                    const double bytes =
                        workload::estimate_parallel_memory(model, c, space.seq_len, dp).total_bytes();
                    if (out.least_memory_bytes == 0 || bytes < out.least_memory_bytes)
                      out.least_memory_bytes = bytes;
                    if (bytes > space.memory_bytes) {
                      if (!offload_to_fit(space, model, c)) {
                        ++out.over_memory;
                        continue;
                      }
                      ++out.offloaded;
                    } else if (recompute == workload::Recompute::Full && !space.fixed.count("recompute")) {
                      recompute_fewest_layers(space, model, c);
                      out.recompute_some += c.recompute_layers.rule != workload::RecomputedLayers::Rule::All;
                    }
                    out.plans.push_back(c);
                  }
        }
      }
  return out;
}

namespace {

// The value of `key` in a plan, as --fix writes it.
std::string value_of(const workload::ParallelConfig& c, const std::string& key) {
  if (key == "tp") return std::to_string(c.tp);
  if (key == "pp") return std::to_string(c.pp);
  if (key == "vpp") return std::to_string(c.vpp);
  if (key == "cp") return std::to_string(c.cp);
  if (key == "ep") return std::to_string(c.ep);
  if (key == "dp") return std::to_string(c.dp);
  if (key == "micro-batch") return std::to_string(c.micro_batch);
  if (key == "recompute") return std::string(workload::to_string(c.recompute));
  return to_string(sharding_of(c));
}

// Of the values `plans` take for `key`, the one nearest `wanted` (numerically where both are numbers).
std::string nearest_value(const std::vector<workload::ParallelConfig>& plans, const std::string& key,
                          const std::string& wanted) {
  std::string best;
  double best_distance = 0;
  const double target = std::atof(wanted.c_str());
  for (const workload::ParallelConfig& c : plans) {
    const std::string value = value_of(c, key);
    const double distance = std::abs(std::atof(value.c_str()) - target);
    if (best.empty() || distance < best_distance) {
      best = value;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

std::string explain_no_plan(const SearchSpace& space, const workload::TransformerConfig& model,
                            const Enumeration& enumeration) {
  // A fixed value that leaves no plan, where freeing it would leave some.
  for (const auto& [key, value] : space.fixed) {
    SearchSpace freed = space;
    freed.fixed.erase(key);
    const Enumeration without = enumerate_plans(freed, model);
    if (without.plans.empty()) continue;
    SearchSpace only = space;
    only.fixed = {{key, value}};
    const Enumeration alone = enumerate_plans(only, model);
    const std::string why = alone.plans.empty() && !alone.first_rejection.empty() && alone.over_memory == 0
                                ? alone.first_rejection
                                : "leaves no plan that fits with the other constraints";
    return fmt::format("--fix {}={}: {}; nearest feasible: --fix {}={}", key, value, why, key,
                       nearest_value(without.plans, key, value));
  }
  if (enumeration.over_memory > 0) {
    // More GPUs shard the model further; try doubling the cluster.
    std::string nearest = "none within 64x the GPUs";
    for (int factor = 2; factor <= 64; factor *= 2) {
      SearchSpace larger = space;
      larger.min_gpus = space.max_gpus * factor;
      larger.max_gpus = space.max_gpus * factor;
      larger.fixed.erase("dp");
      if (!enumerate_plans(larger, model).plans.empty()) {
        nearest = "--gpus " + std::to_string(larger.max_gpus);
        break;
      }
    }
    return fmt::format(
        "{} does not fit in GPU memory on any plan: the leanest needs {:.1f} GiB per GPU, the GPU has {:.1f} "
        "GiB; "
        "nearest feasible: {}",
        space.model, enumeration.least_memory_bytes / kGiB, space.memory_bytes / kGiB, nearest);
  }
  return "no valid plan: " + (enumeration.first_rejection.empty() ? std::string("nothing to enumerate")
                                                                  : enumeration.first_rejection);
}

}  // namespace simtrain::plan
