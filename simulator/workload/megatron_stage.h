// Internal to the Megatron trace generator: everything one pipeline stage's program is built from, worked
// out once per trace, and the builder of that program (megatron_stage.cc). The plan search (simulator/plan/)
// reads the same StagePlan, so that its analytic estimate prices exactly the kernels and collectives that
// the generated trace would hold.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/parallel_config.h"
#include "simulator/workload/pipeline_schedule.h"
#include "simulator/workload/pipeline_split.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload::megatron {

// Indices into Trace::groups (see megatron_trace.h for their members); -1 when the trace has no such group.
struct GroupIds {
  int tp = -1, cp = -1, dp = -1, pp = -1, ep = -1, edp = -1, embd = -1;
  int etp = -1;        // the ranks an expert's FFN is split over: "tp", or "etp" under MoE parallel folding
  int shard = -1;      // ZeRO-3 / FSDP parameter sharding: "dp", or "fsdp_shard" under hybrid shard
  int replicate = -1;  // "fsdp_replicate" under hybrid shard
};

// The steps of every kind of decoder layer a model has, built for one GEMM dtype: dense or MoE, full or
// local attention (sliding window or chunks: GPT-OSS, Llama 4), and hybrid models' blocks by their pattern
// character ('M', '*', '-', 'E').
struct LayerKinds {
  LayerSteps dense, moe, local_dense, local_moe;
  std::map<char, LayerSteps> hybrid;

  // Decoder layer `index` (0-based) of `model`.
  const LayerSteps& of(const TransformerConfig& model, int index) const;
};

struct StagePlan {
  const TransformerConfig* model = nullptr;
  const ParallelConfig* config = nullptr;
  int pp = 1, vpp = 1, micro_batches = 1;
  int layers_per_chunk = 1;  // the most layers of a virtual stage (they differ under an uneven split)
  PipelineSplit split;       // which layers each virtual stage runs
  int data_shards = 1;       // ranks a dense gradient is reduced (and sharded) over: dp x cp
  int expert_shards = 1;     // dp x cp / ep
  PipelineOrder order;
  LayerSharding shard;
  // The LM head carries the multi-token-prediction modules' steps and parameters when the model has them
  // (they run on the last stage after it).
  LayerSteps embedding, lm_head;
  LayerKinds layers;
  // Under ParallelConfig::bf16_layers_at_start / _at_end, the same layers with 16-bit GEMMs (empty
  // otherwise).
  LayerKinds bf16_layers;
  std::map<char, PartParameters> hybrid_params;
  PartParameters dense_params, moe_params, embedding_params, lm_head_params;
  GroupIds groups;
  double p2p_bytes = 0;            // activation (or its gradient) one rank sends between stages
  // Under --cpu-offloading-num-layers, what each offloaded layer copies to the host and back per micro-batch
  // (megatron_offload.h): the tensors it saves for backward (layer_activations.h).
  std::vector<double> offload_bytes;
  double grad_bytes = 4;           // per parameter as gradients are reduced
  double param_bytes = 2;          // per parameter as parameters are gathered
  double bucket_parameters = 4e7;  // gradient bucket size
  bool shard_optimizer = false;    // distributed optimizer, ZeRO >= 1 or FSDP
  bool shard_gradients_each_micro_batch = false;  // ZeRO 2
  bool shard_parameters = false;                  // ZeRO 3 or FSDP

  // The steps and parameters of decoder layer `index` (0-based): dense or MoE, full or local attention,
  // with low-precision or (the first and last under --first-last-layers-bf16) 16-bit GEMMs.
  const LayerSteps& layer_steps(int index) const;
  const PartParameters& layer_params(int index) const;
};

inline constexpr const char* kStreamNames[] = {"compute",      "tp",           "ep",           "dp",
                                               "pp_recv_prev", "pp_send_next", "pp_recv_next", "pp_send_prev",
                                               "cp_send",      "cp_recv",      "dp_gather"};

// Everything but `order` and `groups` (the generator fills them in): validates `config` against `model`
// (parallel_config.h), resolves dtypes, layer steps, parameters, shard sizes and gradient bytes. `config`
// must have seq_len set, and `model` and `config` must outlive the plan, which points at them. Throws
// Error for invalid plans and for steps too large to simulate (kMaxOpsPerProgram).
StagePlan make_stage_plan(const TransformerConfig& model, const ParallelConfig& config);

trace::Program build_stage_program(const StagePlan& plan, int stage);

// HBM bytes the optimizer step moves per parameter it updates, as Megatron-LM's mixed-precision optimizer
// (megatron/optimizer/optimizer.py) runs it: with 16-bit gradients, their copy into fp32; with fp16 loss
// scaling, the unscale and inf/NaN check; the gradient norm for clipping; Adam over fp32 master weights
// (reads p, g, m, v, writes p, m, v: 28 B); the copy of the updated weights into the 16-bit model
// parameters; and zeroing the gradient buffer for the next step.
double optimizer_bytes_per_parameter(const StagePlan& plan);

// The optimizer step's kernel over the `parameters` this GPU updates: Adam's 12 FLOPs and
// optimizer_bytes_per_parameter bytes of HBM traffic per parameter.
trace::ComputeSpec optimizer_step(const StagePlan& plan, double parameters);

}  // namespace simtrain::workload::megatron
