// A large-model training configuration as Megatron-LM, DeepSpeed and PyTorch FSDP name it: how the model is
// split (tensor, sequence, pipeline, context, expert parallelism), how data parallelism shards training
// state (ZeRO, FSDP, distributed optimizer), and the batch, sequence, recomputation and precision settings.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/cross_entropy_fusion.h"
#include "simulator/workload/cuda_graphs.h"
#include "simulator/workload/host_profile.h"
#include "simulator/workload/precision.h"
#include "simulator/workload/recompute_modules.h"
#include "simulator/workload/token_dispatcher.h"

namespace simtrain::workload {

enum class Recompute { None, Selective, Full };
enum class PipelineSchedule { GPipe, OneFOneB, Interleaved };  // Interleaved when vpp > 1
enum class FsdpMode { None, FullShard, HybridShard };

// Which layers full recomputation reruns, and how many it reruns at once. Megatron's --recompute-method
// block --recompute-num-layers n recomputes the first n layers of each model chunk; --recompute-method
// uniform --recompute-num-layers n recomputes every layer, n at a time: it keeps only the input of each
// group of n consecutive layers of a chunk and reruns a group's forward just before the group's backward
// (both TransformerBlock._checkpointed_forward). torchtitan's selective_ac_option n (before 2026) wraps every
// n-th of the blocks a rank builds, counted from 1 across its model parts. Layers not recomputed keep their
// activations and recompute nothing; the others (All, FirstOfChunk, EveryNth) are rerun one at a time.
struct RecomputedLayers {
  enum class Rule { All, FirstOfChunk, EveryNth, UniformGroups };
  Rule rule = Rule::All;
  int n = 0;
  // Whether the layer at position `in_chunk` of its model chunk and `in_stage` of its rank's layers (chunk
  // by chunk) recomputes.
  bool includes(int in_chunk, int in_stage) const;
  // How many consecutive layers of a chunk one checkpoint covers (rerun together): n under UniformGroups,
  // else 1.
  int group() const { return rule == Rule::UniformGroups ? n : 1; }
};

struct DecoderShape;

struct ParallelConfig {
  std::string model = "gpt3-175b";
  // Set when the model is given by its shapes (Megatron-LM's --num-layers ...) instead of `model`, a zoo key
  // or model file; `model` is then its name.
  std::shared_ptr<const DecoderShape> decoder;
  int gpus = 8;
  int tp = 1;       // tensor parallel size (Megatron column/row-parallel linears)
  bool sp = false;  // sequence parallelism: reduce-scatter/all-gather instead of all-reduce in TP
  int pp = 1;       // pipeline stages
  int vpp = 1;      // virtual stages (model chunks) per pipeline rank; > 1 = interleaved 1F1B
  int cp = 1;       // context parallel size (ring attention)
  int ep = 1;       // expert parallel size (MoE layers)
  // Expert tensor parallel size (Megatron's --expert-tensor-parallel-size; 0 = tp, Megatron's default): how
  // many ranks split each expert's FFN. Below tp the expert layout is "folded" (Megatron-Core's MoE
  // parallel folding): the ranks of a pipeline stage are regrouped as etp x ep x expert-data-parallel, so
  // expert parallelism can span the tensor-parallel ranks too.
  int etp = 0;
  int expert_tp() const { return etp > 0 ? etp : tp; }
  // Uneven pipeline splits (pipeline_split.h): layers on the first and last pipeline ranks (-1 = the even
  // share; Megatron's --decoder-first/last-pipeline-num-layers), or the embedding and the loss counted as a
  // layer each (--account-for-embedding/loss-in-pipeline-split).
  int pp_first_layers = -1;
  int pp_last_layers = -1;
  bool pp_embedding_in_split = false;
  bool pp_loss_in_split = false;
  // An explicit split (empty = the rules above): the decoder layers of each pipeline rank, each rank's count
  // split evenly over its vpp chunks, or of each virtual stage (pp x vpp counts, chunk-major), what
  // Megatron-Bridge's explicit layouts give for the layers (pipeline_split.h).
  std::vector<int> pp_layers;
  int dp = 0;  // data parallel size; 0 = gpus / (tp * pp * cp)
  int data_parallel_size() const { return dp > 0 ? dp : gpus / (tp * pp * cp); }
  int zero = 0;  // DeepSpeed ZeRO stage 0-3
  FsdpMode fsdp = FsdpMode::None;
  bool distributed_optimizer = false;  // Megatron's: optimizer states sharded over DP (like ZeRO-1)
  int micro_batch = 1;                 // sequences per micro-batch
  int global_batch = 0;                // sequences per optimizer step; 0 = micro_batch * dp
  int seq_len = 0;                     // 0 = the model's default
  // Multi-token-prediction modules in place of the model's own (Megatron's --mtp-num-layers; DeepSeek-V3
  // has one): 0 trains without them, as Megatron-Bridge's "w/o MTP" runs do. Unset = the model's.
  std::optional<int> mtp_layers;
  Recompute recompute = Recompute::None;
  // Under full recomputation, the layers it applies to.
  RecomputedLayers recompute_layers;
  // Under selective recomputation, the submodules rerun (Megatron's --recompute-modules; its default, the
  // attention core, when not given).
  RecomputeModules recompute_modules = kDefaultRecomputeModules;
  // Megatron's --cpu-offloading-num-layers (Transformer Engine's activation offloading): the first N decoder
  // layers copy what they saved for backward to host memory after their forward pass and back before their
  // backward pass, on a stream of their own, so the GPU holds the other layers' activations only
  // (megatron_offload.h). Megatron allows it without pipelining or recomputation, for fewer layers than the
  // model has.
  int cpu_offloading_layers = 0;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  Precision precision = Precision::AMP_BF16;
  bool fp8 = false;  // Transformer Engine low-precision GEMMs (FP8 on Hopper and later, NVFP4 on Blackwell)
  QuantRecipe quant_recipe = QuantRecipe::Delayed;  // how their operands are quantized, when fp8
  // Megatron's --first-last-layers-bf16 with --num-layers-at-start-in-bf16 and --num-layers-at-end-in-bf16:
  // the first and the last decoder layers of the whole model keep 16-bit GEMMs under FP8 or NVFP4
  // (megatron/core/fp8_utils.py and fp4_utils.py, by global layer number).
  int bf16_layers_at_start = 0;
  int bf16_layers_at_end = 0;
  // Fused flash attention (current Megatron-LM, Transformer Engine), or the unfused attention of Megatron-LM
  // before 2022 (batched GEMMs, softmax and dropout over seq x seq scores in memory).
  bool flash_attention = true;
  // Whose fused kernel: the one Transformer Engine chooses for the GPU (AttentionKernel::Fused), or
  // FlashAttention-2's (the flash-attn package, PyTorch SDPA's flash backend: PyTorch training stacks outside
  // Transformer Engine) or its Triton port's.
  trace::AttentionKernel attention_kernel = trace::AttentionKernel::Fused;
  // The layers' pointwise work runs as PyTorch's eager mode runs a plain PyTorch model's code, one ATen
  // kernel per operator (torchtitan's Llama without torch.compile: RMSNorm in fp32 steps, rotary embeddings
  // through complex numbers, SwiGLU as silu and a product, the keys and values repeated for grouped-query
  // attention), not the fused kernels of Transformer Engine or of torch.compile (transformer_kernels.h).
  bool eager_pointwise = false;
  double capacity_factor = 1.0;  // MoE token capacity per expert, relative to an even split
  // Implementation choices that changed between Megatron-LM releases (transformer_kernels.h and
  // megatron_trace.h say what each does); the defaults are current Megatron-LM with its overlap options on.
  bool async_tp_all_reduce = true;           // off: --no-async-tensor-model-parallel-allreduce (2021)
  bool gradient_accumulation_fusion = true;  // off: --no-gradient-accumulation-fusion (before mid-2022)
  // Data-parallel gradient reduction under the last micro-batch's backward (PyTorch DDP, Megatron's
  // --overlap-grad-reduce), or after the whole backward pass (Megatron's local DDP of 2021-22, and
  // Megatron-core without --overlap-grad-reduce).
  bool overlap_grad_reduce = true;
  // With the distributed optimizer, the all-gather of the updated parameters runs under the next step's
  // forward pass, bucket by bucket, each bucket gathered before the first layer that uses it (Megatron's
  // --overlap-param-gather, on in Megatron-Bridge's recipes); off: gathered after the optimizer step.
  bool overlap_param_gather = true;
  // Interleaved schedule: pipeline sends run asynchronously and only the receives are waited for
  // (Megatron's default since 2023; --no-overlap-p2p-communication, and Megatron-LM before, block on the
  // send). The non-interleaved 1F1B schedule always blocks.
  bool overlap_p2p_communication = true;
  // The pipeline sends and receives that are not overlapped go as one batch_isend_irecv, after which
  // Megatron-Core calls torch.cuda.synchronize (ModelParallelConfig.batch_p2p_sync, on by default and in
  // Megatron-Bridge's recipes): the host stops until the device has drained, all its streams. Matters only
  // with a host profile (--host); off with --no-batch-p2p-sync.
  bool batch_p2p_sync = true;
  // Transformer Engine's userbuffers (Megatron's --tp-comm-overlap; async TP in torchtitan): with sequence
  // parallelism the all-gathers before the column-parallel GEMMs and the reduce-scatters after the
  // row-parallel ones are cut into TP chunks exchanged while the GEMM computes the other chunks.
  bool tp_comm_overlap = false;
  // Megatron-Core's --overlap-moe-expert-parallel-comm (combined 1F1B): in the steady state each forward runs
  // together with another micro-batch's backward, layer by layer, so that one pass's expert-parallel
  // all-to-alls are in flight while the other's kernels run. The schedule runs one more warm-up forward to
  // make those pairs independent (pipeline_schedule.h).
  bool overlap_moe_expert_parallel_comm = false;
  // Megatron's --moe-pad-expert-input-to-capacity (token dropping with static expert shapes): the MoE
  // dispatcher never reads the token counts back to the host. Off (dropless), the host waits for them once
  // per MoE layer's forward pass.
  bool moe_pad_to_capacity = false;
  // Megatron's --fp8-param-gather: under FP8 training the weights are kept in FP8 and the distributed
  // optimizer's (or FSDP's) parameter all-gathers move one byte a parameter instead of two.
  bool fp8_param_gather = false;
  // Megatron's --moe-token-dispatcher-type. simtrain's default is alltoall, which Megatron-Bridge's recipes
  // and Megatron-LM's MoE examples set.
  TokenDispatcher moe_dispatcher = TokenDispatcher::AllToAll;
  // Megatron's --moe-flex-dispatcher-backend: the flex dispatcher's kernels, DeepEP's by default as in
  // Megatron-LM (Megatron-Bridge's recipes mostly set HybridEP).
  FlexBackend moe_flex_backend = FlexBackend::DeepEP;
  // Megatron-Core's use_transformer_engine_op_fuser: the routed experts' MLP runs as Transformer Engine's
  // fused grouped ops, biases and the clamped activation inside them. Off, TEGroupedMLP adds fc2's biases
  // and clamps the activation's input in PyTorch (moe_kernels.cc).
  bool te_op_fuser = false;
  // The loss's kernels (cross_entropy_fusion.h): Megatron-LM's default runs it unfused; Megatron-Bridge's
  // recipes set cross_entropy_loss_fusion with Transformer Engine's implementation.
  CrossEntropyFusion cross_entropy_fusion = CrossEntropyFusion::Unfused;
  // Megatron-LM's --grad-reduce-in-bf16 (Megatron-Bridge's grad_reduce_in_fp32 = False, which its
  // performance recipes set): bf16 training accumulates and reduces gradients in bf16 main_grad buffers,
  // half the bytes of the default fp32 ones.
  bool grad_reduce_in_bf16 = false;
  // PyTorch FSDP2's MixedPrecisionPolicy(reduce_dtype=torch.float32), torchtitan's default
  // (training.mixed_precision_reduce): 16-bit gradients are cast to fp32 and reduce-scattered in fp32,
  // twice the bytes of FSDP's and DeepSpeed's 16-bit reduction.
  bool fsdp_reduce_in_fp32 = false;
  // The host thread launching the step's kernels (host_profile.h, --host); unset, the host never holds the
  // GPU back.
  std::optional<HostProfile> host;
  // Each operator dispatch of the step costs the host this many times the profile's dispatch_per_kernel_s;
  // what C++ loops add behind a dispatch does not (host_profile.h). The CLI sets Megatron-Core's
  // kMegatronCoreHostOverhead; 1 runs the profile's eager PyTorch cost as measured.
  double host_overhead = 1;
  // What Megatron's pipeline schedule costs the host per pass, a micro-batch's forward or backward through
  // one model chunk, beside the dispatches of its ops: in the profile's dispatch_per_kernel_s (the CLI sets
  // kMegatronCorePassOverhead; 0 = none). A full-iteration CUDA graph replays the schedule with the rest.
  double host_pass_overhead = 0;
  // What Megatron-Core's Python for a MoE layer costs the host per forward pass beside the dispatches of its
  // ops, in the profile's dispatch_per_kernel_s (LayerStep::moe_layer_python; the CLI sets
  // kMegatronCoreMoeLayerOverhead; 0 = none). A CUDA graph capturing the experts replays it with them.
  double host_moe_layer_overhead = 0;
  // Megatron's CUDA graphs (cuda_graphs.h; --cuda-graph-impl, --cuda-graph-scope): a captured region costs
  // the host one graph launch instead of a dispatch per kernel, and a full-iteration graph none at all.
  CudaGraphs cuda_graphs;
};

std::string_view to_string(Recompute recompute);

// What a layer's backward pass first reruns of its forward pass: nothing, every step (full recomputation)
// or the steps of the selected submodules (selective).
struct RecomputedSteps {
  bool any = false;
  bool all = false;
  RecomputeModules modules = 0;
  bool includes(RecomputeModules step_modules) const { return all || (step_modules & modules) != 0; }
  // Whether a step of these modules runs in this pass; a recompute-only step (LayerStep::recompute_only)
  // runs in a selective recomputation of its modules alone.
  bool runs(RecomputeModules step_modules, bool recompute_only) const {
    return recompute_only ? !all && (step_modules & modules) != 0 : includes(step_modules);
  }
};
// Every step: a pass run in full, or full recomputation.
inline constexpr RecomputedSteps kEveryStep{.any = true, .all = true};
RecomputedSteps recomputed_steps(const ParallelConfig& c);
// The share of a rank's layers whose backward reruns recomputed_steps(c), each of its vpp model chunks
// holding `stage_layers` / vpp: 1 unless full recomputation applies to some layers only.
double recomputed_layer_share(const ParallelConfig& c, double stage_layers);
// The description of recomputed layers for reports: "all", "first 2/chunk" (of each model chunk), "1 in 2",
// "all, 4 at a time".
std::string recomputed_layers_text(const RecomputedLayers& layers);
bool parse_recompute(std::string_view text, Recompute& out);  // "none", "selective", "full"

struct TransformerConfig;
// Checks that `config` can run `model` on `world` GPUs as Megatron-LM and DeepSpeed would accept it (sizes
// that divide, heads and KV heads divisible by TP, layers by PP x VPP, batches by micro-batch x DP, ...).
// Throws Error with one line naming the options and the constraint that failed, e.g.
// "--tp 3: 32 attention heads are not divisible by 3". The sequence-length checks apply only when
// config.seq_len is set (resolve the model's default first); whether the GPU supports FP8 is the caller's.
void validate(const ParallelConfig& config, const TransformerConfig& model, int world);

}  // namespace simtrain::workload
