// Per-GPU memory of large-model training, stage by stage, so that a plan that cannot fit is caught and the
// report can say which term is to blame.
#include "simulator/workload/parallel_memory.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/error.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/cross_entropy_fusion.h"
#include "simulator/workload/layer_activations.h"
#include "simulator/workload/pipeline_split.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload {
namespace {

// The CUDA context, cuBLAS/cuDNN/Transformer Engine workspaces and allocator slack: the same 1 GiB
// allowance as the data-parallel estimate (memory_estimate.cc). NCCL's own per-communicator buffers
// (a few MiB per channel and peer) are small beside the staging buffers counted below.
constexpr double kWorkspaceBytes = 1024.0 * 1024 * 1024;
// DeepSpeed ZeRO-1/2 stage gradients for the reduce(-scatter) and parameters for the all-gather in buckets
// of reduce_bucket_size and allgather_bucket_size elements, both 5e8 by default.
constexpr double kZeroBucketElements = 5e8;

bool mixed_precision(Precision precision) {
  return precision == Precision::AMP_BF16 || precision == Precision::AMP_FP16;
}

// Parameters one GPU holds, split by how data parallelism groups them: dense ones over dp * cp ranks,
// routed experts over the expert-data-parallel ranks.
struct StageParameters {
  double dense = 0;
  double expert = 0;
  double largest_layer = 0;  // dense + expert of one layer: what ZeRO-3/FSDP gathers at a time
  int layers = 0;
  bool has_moe = false;
};

double norm_parameters(const TransformerConfig& m) { return m.rms_norm ? m.hidden : 2.0 * m.hidden; }

// The layers of `stage` under the plan's split (pipeline_split.h), their parameters sharded Megatron's way
// (transformer_kernels.h), and the multi-token-prediction modules on the last stage.
StageParameters stage_parameters(const TransformerConfig& m, const ParallelConfig& c, int stage) {
  const PipelineSplit split = pipeline_split(c, m.layers);
  LayerSharding shard;
  shard.tp = c.tp;
  shard.ep = c.ep;
  shard.etp = c.expert_tp();
  StageParameters p;
  const auto add = [&](const PartParameters& part, bool moe, int count) {
    p.dense += (part.per_gpu - part.expert_per_gpu);
    p.expert += part.expert_per_gpu;
    p.largest_layer = std::max(p.largest_layer, part.per_gpu / std::max(1, count));
    p.has_moe = p.has_moe || moe;
    p.layers += count;
  };
  for (int chunk = 0; chunk < split.vpp; ++chunk) {
    for (int i = split.first(stage, chunk); i < split.first(stage, chunk) + split.layers(stage, chunk); ++i) {
      const bool moe = is_moe_layer(m, i);
      const char block = hybrid_block(m, i);
      add(block ? hybrid_layer_parameters(m, shard, block) : transformer_layer_parameters(m, shard, moe), moe,
          1);
    }
  }
  if (stage == c.pp - 1 && m.mtp_layers > 0)
    add(mtp_parameters(m, shard), is_moe_layer(m, m.layers - 1), mtp_modules_held(m));
  const double vocab_parallel = 1.0 * m.vocab * m.hidden / c.tp;
  if (stage == 0) p.dense += vocab_parallel;
  if (stage == c.pp - 1) {
    p.dense += norm_parameters(m);
    // A tied LM head shares the embedding on one stage; across stages Megatron keeps a second copy on the
    // last stage and all-reduces the two gradients.
    if (!m.tied_embeddings || c.pp > 1) p.dense += vocab_parallel;
  }
  return p;
}

// Staging buffers of the collectives and point-to-point transfers that live beside the model states:
// ZeRO-1/2 buckets, the layers ZeRO-3/FSDP gather ahead (current and prefetched) plus one layer's full
// gradients before their reduce-scatter, the sequence-parallel all-gather output, pipeline send/receive
// tensors, MoE dispatch/combine buffers and ring-attention K/V in flight. Megatron's plain DDP and its
// distributed optimizer reduce and gather in place in their contiguous buffers: nothing extra.
double communication_buffer_bytes(const TransformerConfig& m, const ParallelConfig& c,
                                  const StageParameters& p, double local_seq, double state_bytes_per_element,
                                  double activation_bytes_per_element) {
  double bytes = 0;
  if (c.fsdp != FsdpMode::None || c.zero == 3) {
    bytes += 3 * p.largest_layer * state_bytes_per_element;
  } else if (c.zero >= 1) {
    bytes += 2 * std::min(kZeroBucketElements, p.dense + p.expert) * state_bytes_per_element;
  }
  const double tokens = local_seq * c.micro_batch;
  if (c.sp && c.tp > 1) bytes += tokens * m.hidden * activation_bytes_per_element;
  if (c.pp > 1) bytes += 2 * tokens * m.hidden / (c.sp ? c.tp : 1) * activation_bytes_per_element;
  if (p.has_moe && c.moe_dispatcher == TokenDispatcher::AllGather) {
    // The gathered tokens of the ETP x EP group, and the experts' outputs scattered back into as many rows.
    bytes += 2 * tokens / c.tp * c.expert_tp() * c.ep * m.hidden * activation_bytes_per_element;
  } else if (p.has_moe) {
    bytes += 2 * tokens * m.experts_per_token * c.capacity_factor * m.hidden * activation_bytes_per_element;
  }
  if (c.cp > 1) {
    const double kv_width = kv_heads(m) * (qk_head_dim(m) + v_head_dim(m)) / 2 / c.tp;
    bytes += 2 * 2 * tokens * kv_width * activation_bytes_per_element;  // K and V, sending and receiving
  }
  return bytes;
}

// What the last stage holds beyond its decoder layers at its peak, with `held` micro-batches between their
// loss's forward and backward (all of them under GPipe, else one: the last stage runs each micro-batch's
// backward right after its forward). For each head, the model's and each multi-token-prediction module's:
// the final norm's and the output layer's inputs (16-bit, split under sequence parallelism) and the loss
// over its logits (cross_entropy_fusion.h), every other head's loss holding its saved bytes while one holds
// its peak. Each MTP module also keeps its transformer layer's activations as the decoder's last layer
// does, with its two norms' inputs and its projection's 2h input; under full recomputation Megatron reruns
// the module (MultiTokenPredictionLayer._checkpointed_forward), keeping only its two inputs, except under
// the block method, which it does not support for MTP.
double last_stage_head_bytes(const TransformerConfig& m, const ParallelConfig& c, int seq_len, double held,
                             double activation_bytes) {
  const double local_seq = static_cast<double>(seq_len) / c.cp;
  const double tokens = local_seq * c.micro_batch;
  const double split = c.sp && c.tp > 1 ? c.tp : 1;
  const double hidden_bytes = tokens * m.hidden / split * activation_bytes;
  const double heads = 1 + std::max(0, m.mtp_layers);
  const double logits = tokens * m.vocab / c.tp;
  const LossMemory loss = loss_memory(c.cross_entropy_fusion, activation_bytes);
  double bytes = heads * held * 2 * hidden_bytes +
                 logits * (loss.saved_bytes_per_logit * (heads * held - 1) + loss.peak_bytes_per_logit);
  if (m.mtp_layers > 0) {
    const bool rerun =
        c.recompute == Recompute::Full && c.recompute_layers.rule != RecomputedLayers::Rule::FirstOfChunk;
    ParallelConfig kept = c;
    if (!rerun && c.recompute == Recompute::Full) kept.recompute = Recompute::None;
    const double module =
        rerun ? 2 * hidden_bytes : layer_activation_bytes(m, m.layers - 1, kept, seq_len) + 4 * hidden_bytes;
    bytes += m.mtp_layers * held * module;
  }
  return bytes;
}

}  // namespace

double ParallelMemoryEstimate::total_bytes() const {
  return weights_bytes + gradients_bytes + optimizer_states_bytes + activations_bytes +
         communication_buffers_bytes + workspace_bytes;
}

ModelStateBytes model_state_bytes(double parameters, const ParallelConfig& config, int shard_ranks,
                                  const ParallelMemoryOptions& options) {
  if (shard_ranks < 1)
    throw Error("data-parallel shard size must be at least 1, got " + std::to_string(shard_ranks));
  const bool mixed = mixed_precision(config.precision);
  const double weight_bytes = config.fp8 && config.fp8_param_gather ? 1 : mixed ? 2 : 4;
  const double gradient_bytes = mixed && !options.fp32_gradient_accumulation ? 2 : 4;
  // Adam: fp32 momentum and variance, plus an fp32 master copy when the weights themselves are 16-bit.
  const double optimizer_bytes = mixed ? 12 : 8;
  const bool fsdp = config.fsdp != FsdpMode::None;
  const double os_shard = config.zero >= 1 || config.distributed_optimizer || fsdp ? shard_ranks : 1;
  const double grad_shard = config.zero >= 2 || fsdp ? shard_ranks : 1;
  const double weight_shard = config.zero >= 3 || fsdp ? shard_ranks : 1;
  return {parameters * weight_bytes / weight_shard, parameters * gradient_bytes / grad_shard,
          parameters * optimizer_bytes / os_shard};
}

double in_flight_micro_batches(const ParallelConfig& config, int stage, int micro_batches) {
  const int m = std::max(1, micro_batches);
  if (config.schedule == PipelineSchedule::GPipe) return m;  // all forwards before any backward
  const int pp = std::max(1, config.pp);
  if (config.vpp > 1 && pp > 1) {
    // Megatron's interleaved schedule runs (pp - rank - 1) * 2 + (vpp - 1) * pp warm-up forwards of model
    // chunks before its first backward, so one more chunk is in flight at the peak; the combined 1F1B
    // (--overlap-moe-expert-parallel-comm) one chunk more.
    const int chunks = m * config.vpp;
    const int warmup =
        (pp - stage - 1) * 2 + (config.vpp - 1) * pp + (config.overlap_moe_expert_parallel_comm ? 1 : 0);
    return static_cast<double>(std::min(chunks, warmup + 1)) / config.vpp;
  }
  // Without a pipeline the combined 1F1B holds about one micro-batch too: while the next micro-batch's
  // forward stores layer l, the backward beside it has freed the layers above L - l.
  return std::min(pp - stage, m);
}

double stage_activation_peak(const ParallelConfig& config, int stage, int micro_batches,
                             const std::vector<double>& chunk_bytes) {
  const int pp = std::max(1, config.pp), vpp = static_cast<int>(chunk_bytes.size());
  if (vpp <= 1 || pp <= 1)
    return chunk_bytes.empty() ? 0 : chunk_bytes[0] * in_flight_micro_batches(config, stage, micro_batches);
  const int total = std::max(1, micro_batches) * vpp;
  const int warmup = std::min(
      total, (pp - stage - 1) * 2 + (vpp - 1) * pp + (config.overlap_moe_expert_parallel_comm ? 1 : 0));
  const auto forward_chunk = [&](int k) { return chunk_bytes[static_cast<std::size_t>((k / pp) % vpp)]; };
  const auto backward_chunk = [&](int j) {
    return chunk_bytes[static_cast<std::size_t>(vpp - 1 - (j / pp) % vpp)];
  };
  double held = 0, peak = 0;
  for (int k = 0; k < warmup; ++k) peak = std::max(peak, held += forward_chunk(k));
  const int steady_end = std::min(total, warmup + pp * vpp);
  for (int k = warmup, j = 0; k < steady_end; ++k, ++j) {
    peak = std::max(peak, held += forward_chunk(k));
    held -= backward_chunk(j);
  }
  return peak;
}

ParallelMemoryEstimate estimate_parallel_memory(const TransformerConfig& model, const ParallelConfig& config,
                                                int seq_len, int dp, const ParallelMemoryOptions& options) {
  if (seq_len < 1) throw Error("--seq-len: must be at least 1, got " + std::to_string(seq_len));
  if (dp < 1) throw Error("--dp: must be at least 1, got " + std::to_string(dp));
  if (config.tp < 1 || config.pp < 1 || config.vpp < 1 || config.cp < 1 || config.ep < 1 ||
      config.micro_batch < 1) {
    throw Error("--tp, --pp, --vpp, --cp, --ep and --micro-batch must be at least 1");
  }
  const bool mixed = mixed_precision(config.precision);
  const double state_bytes = mixed ? 2 : 4;
  const double activation_bytes = mixed ? 2 : 4;
  const int micro_batches =
      config.global_batch > 0 ? std::max(1, config.global_batch / (config.micro_batch * dp)) : 1;
  const double local_seq = static_cast<double>(seq_len) / config.cp;
  // Each layer's bytes per micro-batch. Layers whose activations Transformer Engine offloads to the host
  // keep none on the GPU at the peak: it waits for each offload to end before the forward goes on past the
  // layers the GPU still holds (megatron_offload.h).
  std::vector<double> layer_bytes(static_cast<std::size_t>(std::max(0, model.layers)));
  for (int i = config.cpu_offloading_layers; i < model.layers; ++i)
    layer_bytes[static_cast<std::size_t>(i)] = layer_activation_bytes(model, i, config, seq_len);
  // Under full recomputation, what a layer keeps when it is not recomputed (ParallelConfig::recompute_layers)
  // and what it holds again while it is rerun.
  const bool full = config.recompute == Recompute::Full;
  std::vector<double> kept_bytes = layer_bytes;
  if (full) {
    ParallelConfig keeping = config;
    keeping.recompute = Recompute::None;
    for (int i = config.cpu_offloading_layers; i < model.layers; ++i)
      kept_bytes[static_cast<std::size_t>(i)] = layer_activation_bytes(model, i, keeping, seq_len);
  }
  const int group = std::max(1, config.recompute_layers.group());
  const PipelineSplit split = pipeline_split(config, model.layers);

  // Megatron reduces dense gradients over data x context parallel ranks, expert gradients over the
  // expert-data-parallel ranks: a stage's ranks over etp x ep.
  int dense_ranks = dp * config.cp;
  int expert_ranks = std::max(1, config.tp * dense_ranks / (config.expert_tp() * config.ep));
  if (config.fsdp == FsdpMode::HybridShard) {
    const int group = std::max(1, options.shard_group);
    dense_ranks = std::min(dense_ranks, group);
    expert_ranks = std::min(expert_ranks, group);
  }

  ParallelMemoryEstimate best;
  for (int stage = 0; stage < config.pp; ++stage) {
    const StageParameters p = stage_parameters(model, config, stage);
    const ModelStateBytes dense = model_state_bytes(p.dense, config, dense_ranks, options);
    const ModelStateBytes expert = model_state_bytes(p.expert, config, expert_ranks, options);
    ParallelMemoryEstimate e;
    e.pipeline_stage = stage;
    e.parameters = p.dense + p.expert;
    e.weights_bytes = dense.weights + expert.weights;
    e.gradients_bytes = dense.gradients + expert.gradients;
    e.optimizer_states_bytes = dense.optimizer_states + expert.optimizer_states;
    e.in_flight_micro_batches = in_flight_micro_batches(config, stage, micro_batches);
    std::vector<double> chunk_bytes(static_cast<std::size_t>(split.vpp), 0.0);
    // The largest group of recomputed layers (one layer, or a uniform group) whose full activations one
    // micro-batch's backward holds again at once, on top of what the schedule holds.
    double rerun_bytes = 0;
    for (int chunk = 0; chunk < split.vpp; ++chunk) {
      const int first = split.first(stage, chunk);
      double group_bytes = 0;
      for (int i = first; i < first + split.layers(stage, chunk); ++i) {
        const auto layer = static_cast<std::size_t>(i);
        const bool recomputed = recomputes_layer(config, split, stage, chunk, i);
        if ((i - first) % group == 0) group_bytes = 0;
        // A recomputed layer keeps its input unless a uniform group's first layer keeps it for the group.
        if (!recomputed)
          chunk_bytes[static_cast<std::size_t>(chunk)] += kept_bytes[layer];
        else if ((i - first) % group == 0)
          chunk_bytes[static_cast<std::size_t>(chunk)] += layer_bytes[layer];
        if (full && recomputed) rerun_bytes = std::max(rerun_bytes, group_bytes += kept_bytes[layer]);
      }
    }
    e.activations_bytes = stage_activation_peak(config, stage, micro_batches, chunk_bytes) + rerun_bytes;
    if (stage == config.pp - 1) {
      const double held = config.schedule == PipelineSchedule::GPipe ? e.in_flight_micro_batches : 1;
      e.activations_bytes += last_stage_head_bytes(model, config, seq_len, held, activation_bytes);
    }
    e.communication_buffers_bytes =
        communication_buffer_bytes(model, config, p, local_seq, state_bytes, activation_bytes);
    e.workspace_bytes = kWorkspaceBytes;
    if (stage == 0 || e.total_bytes() > best.total_bytes()) best = e;
  }
  return best;
}

}  // namespace simtrain::workload
