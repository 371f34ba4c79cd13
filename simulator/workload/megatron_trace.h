// The Megatron-LM trace generator: a transformer trained with tensor (+ sequence), context, pipeline
// (GPipe, 1F1B, interleaved), expert and data parallelism (plain, distributed optimizer, ZeRO 1-3, FSDP),
// activation recomputation and FP8 GEMMs, as one program per pipeline stage shared by all its ranks.
#pragma once

#include <string>

#include "simulator/trace/trace.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

// Megatron's rank order: tensor-parallel rank fastest, then context, then data, then pipeline.
// (Its "tp-cp-ep-dp-pp" order with expert groups carved out of the dp x cp ranks.)
struct MegatronLayout {
  int tp = 1, cp = 1, dp = 1, pp = 1;
  int world() const { return tp * cp * dp * pp; }
  int rank(int tp_rank, int cp_rank, int dp_rank, int pp_rank) const {
    return ((pp_rank * dp + dp_rank) * cp + cp_rank) * tp + tp_rank;
  }
  int stage_of(int rank) const { return rank / (tp * cp * dp); }
};

// The communicator groups of a trace, in this order (indices into Trace::groups):
//   "tp"  tensor-parallel groups (tp consecutive ranks)
//   "cp"  context-parallel groups
//   "dp"  gradient-reduction groups: the dp x cp ranks of a stage with equal tp rank
//   "pp"  pipeline groups, ranks in stage order (send/recv peer offsets +1 / -1)
//   "ep"  expert-parallel groups: ep consecutive ranks of a "dp" communicator (only with experts)
//   "edp" expert-data-parallel groups: the "dp" ranks with equal ep rank (only with experts)
//   "embd" first and last stage's ranks with equal (tp, cp, dp) rank (only tied embeddings and pp > 1)
// Streams of every program: "compute" (kernels), "tp" (tensor-parallel collectives, which the next kernel
// waits for), "ep" (expert all-to-alls), "dp" (gradient reduction), "pp_recv_prev",
// "pp_send_next", "pp_recv_next", "pp_send_prev" (one per pipeline channel, so that p2p in flight in both
// directions cannot block each other), "cp_send", "cp_recv" (the ring attention exchange), "dp_gather"
// (parameter all-gathers of ZeRO-3 / FSDP units and the distributed optimizer, apart from the reductions).
//
// Per micro-batch the stage runs its schedule (pipeline_schedule.h) step by step: a forward receives the
// activation (micro_batch x seq / cp x hidden / tp elements: each TP rank sends its 1/tp share, as
// Megatron's scatter-gather optimisation and sequence parallelism do; without sequence parallelism the TP
// group then all-gathers the whole activation before using it), runs embedding (first virtual
// stage), layers, LM head (last), and sends on; a backward mirrors it with gradients. The kernel after a
// send waits for it, as Megatron's batched p2p calls block. Tags are unique per (direction, micro-batch,
// sending virtual stage). Data parallelism: gradients are reduced in buckets of max(40M, 1M x dp)
// parameters (Megatron's default with overlap_grad_reduce) in reverse layer order, each launched once the
// last micro-batch's backward has produced it (with config.overlap_grad_reduce off: once the whole backward
// pass is over): all-reduce, or with the distributed optimizer / ZeRO 1 a
// reduce-scatter and, after the sharded optimizer step, an all-gather of the 16-bit parameters; ZeRO 2
// reduce-scatters after every micro-batch; ZeRO 3 and FSDP all-gather each layer's parameters before its
// forward and backward (one layer ahead) and reduce-scatter its gradients after its backward (FSDP hybrid
// shard: within groups of 8 data-parallel ranks, then an all-reduce across them at the end).
// Micro-batches per step = global_batch / (micro_batch x dp). config.seq_len must be set (the caller
// resolves the model's default). Throws Error for invalid plans (validate() in parallel_config.h).
trace::Trace generate_megatron_trace(const TransformerConfig& model, const std::string& model_name,
                                     const ParallelConfig& config);

// The trace's metadata (batch, tokens, model FLOPs, memory estimate) without its programs, e.g. for a step
// whose iteration time is extrapolated from shorter steps (run/micro_batch_extrapolation.h).
trace::TraceMetadata megatron_metadata(const TransformerConfig& model, const std::string& model_name,
                                       const ParallelConfig& config);

// Model FLOPs of one iteration without recomputation: 3 x forward_flops_per_token x global_batch x seq.
double megatron_model_flops(const TransformerConfig& model, int seq_len, double global_batch);

// "tp8 sp pp8 vpp1 dp16 dist-opt", with cpN, epN, zeroN, fsdp / hsdp, gpipe, recompute-selective / -full
// and fp8 appended when used.
std::string megatron_parallelism(const ParallelConfig& config, int dp);

}  // namespace simtrain::workload
