// Per-GPU memory of large-model training under tensor, sequence, pipeline, context and expert parallelism
// with ZeRO/FSDP sharding, term by term, so that a plan that cannot fit is reported before it is simulated.
#pragma once

#include <vector>

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

// Choices the frameworks make differently that change the estimate but are not options of the plan itself.
struct ParallelMemoryOptions {
  // Megatron-LM accumulates and reduces gradients in an fp32 `main_grad` buffer (4 B per parameter);
  // DeepSpeed keeps 16-bit gradients (2 B), which is the ZeRO paper's accounting and the default here.
  // Ignored for fp32/tf32 training, whose gradients are fp32 anyway.
  bool fp32_gradient_accumulation = false;
  // FSDP hybrid shard shards within groups of this many data-parallel ranks (a node of 8 GPUs when there is
  // no model parallelism) and replicates across groups. Clamped to the data-parallel size.
  int shard_group = 8;
};

// What one GPU holds at its peak, for the pipeline stage that needs the most.
struct ParallelMemoryEstimate {
  double weights_bytes = 0;
  double gradients_bytes = 0;
  double optimizer_states_bytes = 0;       // master weights and Adam moments
  double activations_bytes = 0;            // saved for backward, all micro-batches in flight
  double communication_buffers_bytes = 0;  // collective and point-to-point staging buffers
  double workspace_bytes = 0;              // CUDA context, library workspaces, allocator slack

  int pipeline_stage = 0;              // the stage reported (0 = first)
  double parameters = 0;               // parameters of that stage's GPU after TP/PP/EP, before ZeRO/FSDP
  double in_flight_micro_batches = 0;  // micro-batches of activations that stage holds at its peak

  double total_bytes() const;
};

// Weights, gradients and optimizer states of `parameters` parameters on one GPU, sharded over `shard_ranks`
// data-parallel ranks as config.zero, config.fsdp and config.distributed_optimizer say. Mixed precision
// (amp-bf16, amp-fp16) keeps 16-bit weights (2 B/param), 16-bit gradients (2 B, or 4 B with
// fp32_gradient_accumulation) and Adam's K = 12 B/param of fp32 master weights, momentum and variance;
// fp32/tf32 keeps 4 + 4 + 8 B. ZeRO-1 and the distributed optimizer shard optimizer states, ZeRO-2 also
// gradients, ZeRO-3 and FSDP also weights. For FSDP hybrid shard pass the shard group as `shard_ranks`.
struct ModelStateBytes {
  double weights = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double total() const { return weights + gradients + optimizer_states; }
};
ModelStateBytes model_state_bytes(double parameters, const ParallelConfig& config, int shard_ranks,
                                  const ParallelMemoryOptions& options = {});

// How many micro-batches' worth of its own layers' activations pipeline stage `stage` holds at its peak,
// with `micro_batches` per optimizer step: 1F1B min(pp - stage, m) (pp on the first stage); GPipe all m;
// interleaved 1F1B (vpp > 1) Megatron's warm-up count of model chunks, which on the first stage is
// pp * (1 + (pp - 1) / (pp * vpp)) micro-batches (Korthikanti et al. section 4.2.3). Without pipelining
// (pp = 1) micro-batches run one after another under 1F1B: 1.
double in_flight_micro_batches(const ParallelConfig& config, int stage, int micro_batches);

// The peak of the activations pipeline stage `stage` holds, given its model chunks' bytes per micro-batch
// (chunk_bytes[c], one entry per virtual stage): without interleaving, the stage's bytes times
// in_flight_micro_batches. Interleaved, the chunks in flight in the order Megatron's schedule runs them
// (schedules.py, get_model_chunk_id): forward k runs chunk (k / pp) % vpp and backward j chunk
// vpp - 1 - (j / pp) % vpp; after the warm-up each forward adds its chunk and the backward after it frees
// one, so where chunks differ (the first stage's embedding in a layer's place, MoE beside dense layers) the
// peak is where the larger ones are in flight. Both orders repeat every pp x vpp passes, each chunk pp times
// in each, so the steady state's first period holds its peak.
double stage_activation_peak(const ParallelConfig& config, int stage, int micro_batches,
                             const std::vector<double>& chunk_bytes);

// Per-GPU memory of training `model` with `config` at `seq_len` tokens per sequence on `dp` data-parallel
// ranks (both resolved by the caller), the maximum over pipeline stages. Parameters per GPU: linear weights
// / tp (column-parallel biases too; row-parallel biases and norms replicated), vocabulary-parallel embedding
// and LM head / tp on the first and last stage (a tied LM head is a second copy when pp > 1, as Megatron
// keeps it), layers spread over the stages (interleaved chunks with vpp > 1), routed experts / (ep * tp),
// routers replicated. Dense parameters shard over dp * cp data-parallel ranks, expert parameters over
// dp * cp / ep, as Megatron groups them. Activations: each layer's layer_activation_bytes
// (layer_activations.h: the model's own tensor shapes, GEMM inputs quantized under FP8 and NVFP4 recipes),
// summed per model chunk, held as stage_activation_peak says, none for layers offloaded to the host;
// micro-batches per step = global_batch / (micro_batch * dp). On the last stage also the output layer's
// and the final norm's inputs, the loss over the logits as config.cross_entropy_fusion holds it
// (loss_memory in cross_entropy_fusion.h) and the multi-token-prediction modules' activations.
// Communication buffers and workspace as documented in the .cc. Not counted: learned position embeddings
// (not in TransformerConfig), vocabulary padding, the embedding's activations, Transformer Engine's FP8
// weight copies. Throws Error if seq_len or dp < 1.
ParallelMemoryEstimate estimate_parallel_memory(const TransformerConfig& model, const ParallelConfig& config,
                                                int seq_len, int dp,
                                                const ParallelMemoryOptions& options = {});

}  // namespace simtrain::workload
