// Data parallelism as PyTorch DistributedDataParallel runs it: every rank runs forward and backward on its
// micro-batch; gradients are all-reduced in buckets (reverse layer order) on a communication stream while the
// backward pass goes on; the optimizer steps once all buckets are reduced. With gradient accumulation, the
// first grad_accum - 1 micro-steps skip the all-reduce (no_sync).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/host_profile.h"
#include "simulator/workload/memory_estimate.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/precision.h"

namespace simtrain::workload {

enum class Optimizer { SGD, Adam, LAMB };

struct DataParallelConfig {
  std::string model = "resnet50";
  ModelOptions model_options;
  int gpus = 8;
  int batch_per_gpu = 32;
  int grad_accum = 1;
  Precision precision = Precision::AMP_FP16;
  double bucket_bytes = 25.0 * 1024 * 1024;       // DDP bucket_cap_mb = 25
  double first_bucket_bytes = 1.0 * 1024 * 1024;  // DDP's smaller first bucket
  Optimizer optimizer = Optimizer::SGD;           // default chosen per model family by default_optimizer()
  // Each bucket's all-reduce starts when backward has produced its gradients (DDP); false: all start after
  // backward ends (DeepSpeed's default, framework.h).
  bool overlap_allreduce = true;
  std::string framework = "ddp";  // the Result's parallelism label (framework.h)
  // PyTorch FSDP's FULL_SHARD over every rank instead of DDP (--fsdp full with the eager generator): each
  // repeated block is a unit (fsdp_wrap.h) whose parameters are all-gathered before its forward and again
  // before its backward, and whose gradients are reduce-scattered after it, every micro-step; each rank
  // steps the optimizer on its 1/N shard. Under autocast the parameters are gathered in its 16-bit dtype
  // and gradients reduced in fp32 (FSDP's MixedPrecision with param_dtype the autocast dtype and
  // reduce_dtype fp32, as Composer's DEFAULT and torchtitan set it).
  bool fsdp = false;
  // With `fsdp`: the ranks each unit is sharded over, 0 = all of them (FULL_SHARD). Fewer is HYBRID_SHARD
  // (--fsdp hybrid: a node's worth, 8 GPUs): gathers and reduce-scatters stay within each group of
  // consecutive ranks, and each reduce-scatter's shard is then all-reduced across the groups.
  int fsdp_shard_size = 0;
  // Activation checkpointing of every repeated block (--recompute full with the eager generator; Hugging
  // Face's gradient_checkpointing, Composer's activation_checkpointing): forward keeps each block's input
  // only, and backward reruns the block's forward kernels before its own. Transformers only.
  bool activation_checkpointing = false;
  // Whose attention kernels: the one PyTorch's SDPA chooses for the GPU (Fused), the flash-attn package's
  // FlashAttention-2 or its Triton port (llm-foundry's attn_impl flash and triton).
  trace::AttentionKernel attention_kernel = trace::AttentionKernel::Fused;
  // When set, each kernel is launched by the rank's host thread after host->dispatch_per_kernel_s of CPU
  // work (a "host" stream of ComputeKind::Host ops, as imported traces have), so the GPU waits when the host
  // falls behind. Unset: kernels are issued as soon as the GPU can run them.
  std::optional<HostProfile> host;
};

// What the reference recipes use: SGD with momentum for the CNNs (torchvision's ImageNet recipe), Adam(W)
// for transformers. NVIDIA's BERT recipe uses LAMB, which costs the same as Adam here (same states and
// traffic), so transformers all get Adam.
Optimizer default_optimizer(const Model& model);
// "sgd", "adam", "lamb".
std::string_view to_string(Optimizer optimizer);
bool parse_optimizer(std::string_view text, Optimizer& out);

// fp32 optimizer state per parameter: SGD's momentum (4 B), Adam's and LAMB's two moments (8 B).
double optimizer_state_bytes_per_parameter(Optimizer optimizer);
// HBM traffic of the optimizer step per parameter: momentum SGD as PyTorch's foreach kernels run it, three
// passes (m *= momentum; m += g; p -= lr m: 8 + 12 + 12 B, the three launch groups of the CNN traces);
// fused Adam and LAMB read p, g, m, v and write p, m, v (28 B).
double optimizer_step_bytes_per_parameter(Optimizer optimizer);

// One DDP gradient bucket: the layers whose gradients it holds, in the order backward produces them
// (reverse layer order), and its size in bytes (fp32 gradients: 4 B per parameter).
struct GradientBucket {
  std::vector<std::size_t> layers;  // indices into Model::layers
  double bytes = 0;
};
// Assigns layers to buckets as DDP does, walking layers in reverse and closing a bucket as soon as it holds
// at least its cap (first_bucket_bytes for the first, bucket_bytes after), except that a layer's parameters
// are never split. Layers without parameters belong to no bucket.
std::vector<GradientBucket> gradient_buckets(const Model& model, double first_bucket_bytes,
                                             double bucket_bytes);

// Throws Error on impossible configurations, naming the option: "--gpus", "--batch-per-gpu", "--grad-accum",
// "--bucket-bytes", "--first-bucket-bytes", "--recompute" (a model without transformer blocks), "--fsdp" (a
// shard size that does not divide the GPUs). Ops are named
// "step<micro-step>.<layer>.<fwd|bwd_data|bwd_weight>" (a rerun forward "step<s>.recompute.<layer>.fwd"),
// "step<last>.bucket<i>.allreduce" and "optimizer.step"; under FSDP "step<s>.<unit>.all_gather.<fwd|bwd>"
// and "step<s>.<unit>.reduce_scatter" (hybrid: and "step<s>.<unit>.all_reduce"), where <unit> is the
// block's name ("model.layers.3") or "root".
trace::Trace generate_data_parallel_trace(const DataParallelConfig& config);

}  // namespace simtrain::workload
