// Implements deepspeed_config.h.
#include "simulator/workload/deepspeed_config.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_parse.h"

namespace simtrain::workload {
namespace {

using nlohmann::json;

// Top-level keys whose values do not change a step's time in simtrain's model.
constexpr const char* kNoEffect[] = {"gradient_clipping",
                                     "steps_per_print",
                                     "wall_clock_breakdown",
                                     "scheduler",
                                     "optimizer",
                                     "zero_allow_untested_optimizer",
                                     "activation_checkpointing",
                                     "flops_profiler",
                                     "tensorboard",
                                     "wandb",
                                     "csv_monitor",
                                     "comms_logger",
                                     "dump_state",
                                     "prescale_gradients",
                                     "gradient_predivide_factor",
                                     "sparse_gradients",
                                     "amp",
                                     "data_efficiency",
                                     "checkpoint",
                                     "elasticity",
                                     "communication_data_type",
                                     "seq_parallel_communication_data_type",
                                     "memory_breakdown",
                                     "aio",
                                     "compression_training"};
// zero_optimization keys that tune buffers and prefetching, not the collectives simtrain models.
constexpr const char* kZeroNoEffect[] = {"contiguous_gradients",
                                         "reduce_scatter",
                                         "reduce_bucket_size",
                                         "allgather_partitions",
                                         "allgather_bucket_size",
                                         "sub_group_size",
                                         "stage3_prefetch_bucket_size",
                                         "stage3_param_persistence_threshold",
                                         "stage3_max_live_parameters",
                                         "stage3_max_reuse_distance",
                                         "stage3_gather_16bit_weights_on_model_save",
                                         "round_robin_gradients",
                                         "load_from_fp32_weights",
                                         "elastic_checkpoint",
                                         "memory_efficient_linear",
                                         "ignore_unused_parameters",
                                         "cpu_offload"};
// Keys read below.
constexpr const char* kRead[] = {"train_batch_size",
                                 "train_micro_batch_size_per_gpu",
                                 "gradient_accumulation_steps",
                                 "zero_optimization",
                                 "fp16",
                                 "bf16"};

bool in(const char* const* begin, const char* const* end, const std::string& key) {
  for (auto it = begin; it != end; ++it)
    if (key == *it) return true;
  return false;
}

class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw Error(origin_, 0, key, message);
  }

  // A positive whole number, or 0 for absent or "auto" (the training script fills it in).
  int count(const json& parent, const char* key, const std::string& path) const {
    if (!parent.contains(key)) return 0;
    const json& v = parent[key];
    if (v.is_string() && v.get<std::string>() == "auto") return 0;
    if (!v.is_number()) fail(path, "expected a whole number or \"auto\"");
    const double d = v.get<double>();
    if (!(d >= 1) || d > 1e9 || d != std::floor(d)) fail(path, "expected a whole number of at least 1");
    return static_cast<int>(d);
  }

  // true / false, nullopt when absent or "auto".
  std::optional<bool> flag(const json& parent, const char* key, const std::string& path) const {
    if (!parent.contains(key)) return std::nullopt;
    const json& v = parent[key];
    if (v.is_string() && v.get<std::string>() == "auto") return std::nullopt;
    if (!v.is_boolean()) fail(path, "expected true, false or \"auto\"");
    return v.get<bool>();
  }

 private:
  std::string origin_;
};

}  // namespace

DeepSpeedPlan parse_deepspeed_config(const std::string& json_text, const std::string& origin,
                                     ParallelConfig base) {
  const json doc = parse_json(json_text, origin);
  const Reader in_file(origin);
  if (!doc.is_object()) in_file.fail("", "expected a JSON object of DeepSpeed settings");
  DeepSpeedPlan plan;
  ParallelConfig& c = base;
  for (const auto& [key, value] : doc.items()) {
    if (in(std::begin(kRead), std::end(kRead), key)) continue;
    (in(std::begin(kNoEffect), std::end(kNoEffect), key) ? plan.no_effect : plan.unknown).push_back(key);
  }

  // Precision: fp16 or bf16 (mixed, over fp32 master weights); neither is fp32.
  const auto enabled = [&](const char* section) -> std::optional<bool> {
    if (!doc.contains(section)) return std::nullopt;
    if (!doc[section].is_object()) in_file.fail(section, "expected an object with \"enabled\"");
    return in_file.flag(doc[section], "enabled", std::string(section) + ".enabled");
  };
  const auto fp16 = enabled("fp16"), bf16 = enabled("bf16");
  if (fp16.value_or(false) && bf16.value_or(false))
    in_file.fail("bf16.enabled", "fp16 and bf16 are both enabled");
  if (fp16.value_or(false)) c.precision = Precision::AMP_FP16;
  if (bf16.value_or(false)) c.precision = Precision::AMP_BF16;
  if (fp16.has_value() && bf16.has_value() && !*fp16 && !*bf16) c.precision = Precision::FP32;

  if (doc.contains("zero_optimization")) {
    const json& zero = doc["zero_optimization"];
    if (!zero.is_object()) in_file.fail("zero_optimization", "expected an object");
    for (const auto& [key, value] : zero.items()) {
      const std::string path = "zero_optimization." + key;
      if (key == "stage") {
        if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 3)
          in_file.fail(path, "expected 0, 1, 2 or 3");
        c.zero = value.get<int>();
      } else if (key == "overlap_comm") {
        if (auto overlap = in_file.flag(zero, "overlap_comm", path)) c.overlap_grad_reduce = *overlap;
      } else if (key == "offload_optimizer" || key == "offload_param") {
        const bool off = value.is_object() && value.contains("device") && value["device"].is_string() &&
                         value["device"].get<std::string>() != "none";
        if (off)
          in_file.fail(path + ".device", "offloading to " + value["device"].get<std::string>() +
                                             " is not modelled (simtrain keeps every state on the GPU)");
        plan.no_effect.push_back(path);
      } else if (in(std::begin(kZeroNoEffect), std::end(kZeroNoEffect), key)) {
        plan.no_effect.push_back(path);
      } else {
        plan.unknown.push_back(path);
      }
    }
  }

  // Batches, as DeepSpeed checks them: train_batch_size = micro-batch x accumulation x data-parallel ranks.
  const int dp = c.dp > 0 ? c.dp : c.gpus / std::max(1, c.tp * c.pp * c.cp);
  const int global = in_file.count(doc, "train_batch_size", "train_batch_size");
  int micro = in_file.count(doc, "train_micro_batch_size_per_gpu", "train_micro_batch_size_per_gpu");
  int accumulation = in_file.count(doc, "gradient_accumulation_steps", "gradient_accumulation_steps");
  if (global > 0 && micro > 0 && accumulation == 0) {
    if (global % (micro * dp) != 0)
      in_file.fail("train_batch_size", std::to_string(global) + " is not a multiple of micro-batch " +
                                           std::to_string(micro) + " x " + std::to_string(dp) + " ranks");
    accumulation = global / (micro * dp);
  }
  if (global > 0 && micro == 0) {
    accumulation = std::max(accumulation, 1);
    if (global % (accumulation * dp) != 0)
      in_file.fail("train_batch_size", std::to_string(global) + " is not a multiple of accumulation " +
                                           std::to_string(accumulation) + " x " + std::to_string(dp) +
                                           " ranks");
    micro = global / (accumulation * dp);
  }
  if (micro == 0) micro = c.micro_batch;
  if (accumulation == 0) accumulation = 1;
  if (global > 0 && global != micro * accumulation * dp)
    in_file.fail("train_batch_size", std::to_string(global) + " is not micro-batch " + std::to_string(micro) +
                                         " x accumulation " + std::to_string(accumulation) + " x " +
                                         std::to_string(dp) + " data-parallel ranks (" +
                                         std::to_string(micro * accumulation * dp) +
                                         "), as DeepSpeed requires");
  c.micro_batch = micro;
  c.global_batch = micro * accumulation * dp;
  plan.config = std::move(c);
  return plan;
}

DeepSpeedPlan read_deepspeed_config(const std::string& path, ParallelConfig base) {
  return parse_deepspeed_config(read_file(path), path, std::move(base));
}

}  // namespace simtrain::workload
