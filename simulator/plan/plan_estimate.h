// A fast analytic estimate of one Megatron-LM plan's iteration time, from the same StagePlan the trace
// generator builds (workload/megatron_stage.h), the same kernel cost tables (cost/compute_cost.h) and the
// same collective model (network_estimate.h), so that thousands of plans can be ranked before the best few
// are simulated with contention, overlap and the real pipeline schedule.
#pragma once

#include "simulator/cost/compute_cost.h"
#include "simulator/plan/network_estimate.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::plan {

// Exposed communication of one iteration on the critical pipeline stage, by parallelism dimension.
struct ExposedCommunication {
  double tp_s = 0;  // tensor (and sequence) parallel collectives the next kernel waits for
  double cp_s = 0;  // ring-attention exchanges slower than the attention round they overlap
  double ep_s = 0;  // expert all-to-alls
  double pp_s = 0;  // pipeline sends (blocking, as Megatron's batched p2p calls are)
  double dp_s = 0;  // gradient reduction and parameter gathers not hidden under the backward pass
  double total_s() const { return tp_s + cp_s + ep_s + pp_s + dp_s; }
};

struct PlanEstimate {
  double iteration_time_s = 0;
  double compute_s = 0;  // kernels of the critical stage, recomputation and optimizer step included
  double bubble_s = 0;   // pipeline fill and drain
  ExposedCommunication exposed;
  double offload_s = 0;     // activation copies to and from the host the layers do not hide
  double memory_bytes = 0;  // peak per GPU (workload/parallel_memory.h)
  double tokens_per_iteration = 0;
  double model_flops = 0;  // per iteration, without recomputation
  double mfu = 0;          // against the peak of the compute dtype
};

// What every plan of one search shares.
struct EstimateContext {
  const workload::TransformerConfig* model = nullptr;
  const cost::ComputeCostModel* compute = nullptr;
  const NetworkEstimate* network = nullptr;
  // Collectives hold SMs beside the kernels, as simulations replay them (run::RunRequest::comm_sms).
  bool comm_sms = true;
};

// The estimate, per micro-batch and stage: each layer's kernels at their table cost, its tensor- and
// expert-parallel collectives (an asynchronous one counts only what outlasts the kernel it overlaps), the
// ring-attention rounds, recomputation (full: the forward again; selective: the attention core), the
// blocking pipeline sends; the slower of the first stage (embedding) and last (LM head). The iteration is
// m micro-batches of that, plus the fill and drain of the schedule ((pp - 1) / vpp micro-batches' worth),
// plus gradient reduction beyond what the last micro-batch's backward hides (all of it without
// overlap_grad_reduce; ZeRO-3/FSDP: per-layer gathers and reduce-scatters beyond their layer's compute),
// the parameter all-gather after a sharded optimizer step, the tied-embedding all-reduce, and the optimizer
// step; with activation offloading, the copies the layers beside them do not hide (offloaded_copies_s). The
// data-parallel collectives that do hide under kernels hold one SM per NCCL network channel meanwhile (with
// context.comm_sms), which lengthens those kernels, counted as compute.
// `config` must have seq_len resolved. Throws Error when the plan is invalid (parallel_config.h).
PlanEstimate estimate_plan(const workload::ParallelConfig& config, const EstimateContext& context);

// What one micro-batch's activation copies add to the step (--cpu-offloading-num-layers N of L layers; the
// synchronisation of workload/megatron_offload.h): the copies run one after another beside the layers, and
// layer L-N+i's forward waits for layer i's copy, so they are hidden while the N copies take no longer than
// the L-2 layers' forwards they overlap; the copies back likewise under the backwards. `copies_s` is the N
// layers' copies one way, `forward_s` and `backward_s` one layer's passes.
double offloaded_copies_s(int layers, double copies_s, double forward_s, double backward_s);

}  // namespace simtrain::plan
