// The parallel plans a search considers for one model on a range of cluster sizes: every combination of
// tensor (with sequence), context, pipeline (with virtual stages), expert and data parallelism, optimizer
// sharding, micro-batch and recomputation that Megatron-LM (or DeepSpeed / FSDP) would accept and that fits
// in GPU memory (offloading activations to the host where nothing else makes a plan fit), with the user's
// fixed values honoured; and, when none is left, the one line that says why.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::plan {

// How data parallelism shards training state (parallel_config.h); the search's own names for them.
enum class Sharding { None, DistributedOptimizer, Zero1, Zero2, Zero3, Fsdp, HybridFsdp };
const char* to_string(Sharding sharding);  // "none", "dist-opt", "zero1", "zero2", "zero3", "fsdp", "hsdp"
bool parse_sharding(const std::string& text, Sharding& out);
Sharding sharding_of(const workload::ParallelConfig& config);
void apply_sharding(Sharding sharding, workload::ParallelConfig& config);

struct SearchSpace {
  std::string model;  // zoo name
  int min_gpus = 8, max_gpus = 8;
  int gpus_per_node = 8;  // a job larger than a node takes whole nodes
  int global_batch = 0;   // sequences per step
  int seq_len = 0;        // resolved (the model's default when the user gave none)
  workload::Precision precision = workload::Precision::AMP_BF16;
  bool fp8 = false;
  // The loss every plan runs (Megatron's --cross-entropy-loss-fusion): what the last stage holds of the
  // logits, and the loss's kernels.
  workload::CrossEntropyFusion cross_entropy_fusion = workload::CrossEntropyFusion::Unfused;
  int max_tp = 0;           // 0 = the GPUs of a node (tensor parallelism stays on NVLink)
  double memory_bytes = 0;  // per GPU
  // A plan without pipelining or recomputation that does not fit may keep the activations of its first
  // layers in host memory (Megatron's --cpu-offloading-num-layers): as few layers as make it fit.
  bool offload = true;
  // Values the user fixed (--fix tp=8): tp, pp, vpp, cp, ep, dp, micro-batch, recompute, sharding.
  std::map<std::string, std::string> fixed;
};

// The keys --fix accepts, and the parse of "tp=8,pp=4" (repeatable). Throws Error naming the bad field.
const std::vector<std::string>& fixable_keys();
void parse_fixed(const std::string& text, std::map<std::string, std::string>& fixed);

struct Enumeration {
  std::vector<workload::ParallelConfig> plans;  // valid and fitting in memory
  std::size_t considered = 0;                   // combinations tried (= plans + invalid + over_memory)
  std::size_t invalid = 0;                      // refused by validate() or the search's own rules
  std::size_t over_memory = 0;                  // valid but too large for the GPU
  std::size_t offloaded = 0;                    // of the plans, those that fit by offloading activations
  std::size_t recompute_some = 0;               // of the plans, those that recompute some layers in full
  double least_memory_bytes = 0;                // the leanest valid plan's peak per GPU (0 when none)
  std::string first_rejection;                  // why the first refused combination was refused
};

// Every plan of the space. Beyond validate() (parallel_config.h), as the frameworks require: sequence
// parallelism whenever tp > 1 (it only saves memory and time in Megatron-LM); interleaving only when the
// micro-batches divide by pp (Megatron-LM's rule); ZeRO-2/3 and FSDP only without pipelining (DeepSpeed and
// FSDP do not combine with it); a job larger than one node on whole nodes. Throws Error on a fixed value
// that cannot be parsed.
Enumeration enumerate_plans(const SearchSpace& space, const workload::TransformerConfig& model);

// When `enumeration` holds no plan: one line naming the constraint that failed and the nearest setting that
// has a plan (another value of the first fixed key that does not work, more GPUs, or less batch).
std::string explain_no_plan(const SearchSpace& space, const workload::TransformerConfig& model,
                            const Enumeration& enumeration);

}  // namespace simtrain::plan
