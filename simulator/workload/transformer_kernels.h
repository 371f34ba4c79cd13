// The kernels and model-parallel communication of one transformer layer on one GPU, as Megatron-LM runs it
// under tensor (column/row-parallel linears), sequence, context (ring attention) and expert parallelism,
// built from the TransformerConfig's dimensions rather than from the zoo's single-GPU layer list.
#pragma once

#include <string>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/cross_entropy_fusion.h"
#include "simulator/workload/cuda_graphs.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/precision.h"
#include "simulator/workload/recompute_modules.h"
#include "simulator/workload/token_dispatcher.h"

namespace simtrain::workload {

// How one GPU's share of a layer is cut, and the dtypes its kernels run in.
struct LayerSharding {
  int micro_batch = 1;
  int seq_len = 0;  // the whole sequence; each context-parallel rank holds seq_len / cp tokens
  int tp = 1;
  bool sp = false;  // sequence parallelism: norms and dropout on seq / (cp * tp) tokens
  int cp = 1;
  int ep = 1;
  // Ranks an expert's FFN is split over (ParallelConfig::expert_tp): 0 = tp; fewer under MoE parallel
  // folding.
  int etp = 0;
  int expert_tp() const { return etp > 0 ? etp : tp; }
  double capacity_factor = 1;
  DType gemm = DType::BF16;                  // FP8 (or FP4) under Transformer Engine's low-precision training
  QuantRecipe quant = QuantRecipe::Delayed;  // how FP8/FP4 GEMM operands are quantized (precision.h)
  DType activation = DType::BF16;            // attention, memory-bound kernels, communicated activations
  // One fused flash-attention kernel, or attention as Megatron-LM ran it before FlashAttention (2022):
  // batched GEMMs around a fused scale-mask-softmax and a dropout, with the seq x seq scores in memory.
  bool flash_attention = true;
  trace::AttentionKernel attention_kernel = trace::AttentionKernel::Fused;  // ParallelConfig's
  bool eager_pointwise = false;                                             // ParallelConfig::eager_pointwise
  // Selective recomputation includes torchtitan's op-level policy (kRecomputeTorchtitanOps): the layers add
  // the recompute-only matmuls it reruns.
  bool torchtitan_op_recompute = false;
  // Megatron-LM runs a column-parallel linear's input-gradient all-reduce asynchronously, under its
  // weight-gradient GEMM, since late 2021 (--no-async-tensor-model-parallel-allreduce turns it off); before
  // that, as in the SC21 paper's runs, the all-reduce blocked the backward pass.
  bool async_tp_all_reduce = true;
  // Weight-gradient GEMMs accumulate straight into the fp32 main_grad buffers (Megatron-LM's
  // --gradient-accumulation-fusion, 2022 onwards); without it the GEMM writes a 16-bit gradient that a
  // separate kernel adds into the main_grad buffer of `main_grad_bytes` per element.
  bool gradient_accumulation_fusion = true;
  double main_grad_bytes = 4;
  // Transformer Engine's userbuffers (ParallelConfig::tp_comm_overlap): the sequence-parallel collectives
  // next to a GEMM run chunked under it (LayerStep::chunked_with_gemm).
  bool tp_comm_overlap = false;
  // Megatron's --moe-pad-expert-input-to-capacity: every expert gets capacity_factor x its even share of
  // slots, so the dispatcher knows its shapes without reading the routing back to the host.
  bool moe_pad_to_capacity = false;
  TokenDispatcher moe_dispatcher = TokenDispatcher::AllToAll;      // ParallelConfig::moe_dispatcher
  FlexBackend moe_flex_backend = FlexBackend::DeepEP;              // ParallelConfig::moe_flex_backend
  bool te_op_fuser = false;                                        // ParallelConfig::te_op_fuser
  CrossEntropyFusion cross_entropy = CrossEntropyFusion::Unfused;  // ParallelConfig::cross_entropy_fusion
};

// The communicator a communication step uses.
enum class LayerGroup { TensorParallel, ContextParallel, ExpertParallel, ExpertTensorParallel };

// One step of a layer's forward or backward pass on one GPU.
struct LayerStep {
  enum class Type {
    Kernel,         // `kernel`
    Collective,     // `collective` of `bytes` over `group`
    RingAttention,  // cp rounds of `kernel` (one K/V chunk each), passing `bytes` of K/V to the next rank
  };
  Type type = Type::Kernel;
  std::string name;  // e.g. "qkv.fwd", "mlp.tp_all_reduce"
  trace::ComputeSpec kernel;
  trace::CollectiveKind collective = trace::CollectiveKind::AllReduce;
  LayerGroup group = LayerGroup::TensorParallel;
  double bytes = 0;
  trace::NodeDedupRouting node_dedup{};  // of a token all-to-all under the flex dispatcher
  // A collective the next kernel does not need (Megatron overlaps the input-gradient all-reduce of a
  // column-parallel linear with its weight-gradient GEMM): the kernel after next waits for it instead.
  bool overlaps_next_kernel = false;
  // A sequence-parallel collective that Transformer Engine's userbuffers cut into TP chunks pipelined with
  // the GEMM next to it: an all-gather with the next GEMM (which starts on the local chunk while the others
  // arrive; the kernel after that GEMM waits for the gather), a reduce-scatter with the previous GEMM (each
  // chunk's partial sums leave as soon as they are computed; the last chunk's follow the GEMM). The tail of
  // a communication-bound pipeline (the GEMM's last chunk after the last exchange) is not modelled.
  bool chunked_with_gemm = false;
  // The submodules this forward step belongs to (recompute_modules.h): selective recomputation of any of
  // them reruns it before the layer's backward pass.
  RecomputeModules recompute = 0;
  // Runs only in a selective recomputation of its modules, never in the forward pass: the part of a fused
  // GEMM a checkpointing policy reruns alone (torchtitan's op-level policy reruns k of the fused q/k/v
  // projection and up of the fused gate/up one).
  bool recompute_only = false;
  // The CUDA graph regions this step lies in (cuda_graphs.h), forward or backward: captured, the host does
  // not dispatch it.
  CudaGraphModules graph = 0;
  // The host's side (host_launch.h): operator dispatches the step costs, and whether the host then waits
  // for the step to end (a dropless MoE dispatcher reads the token counts per expert back before its
  // all-to-all). Beyond `launches`, a loop may issue work one item at a time: `looped_dispatches` each cost
  // one eager dispatch, which Megatron's host overhead (ParallelConfig::host_overhead, the Python a step
  // stands for beyond its counted dispatches) does not scale (Transformer Engine's GEMMs after the first
  // local expert's, each a cuBLASLt setup in its C++ loop; the operators of Megatron's eager per-expert
  // bias loop, counted one by one); `looped_kernels` each cost a bare launch call (the per-expert
  // quantizations of that C++ loop).
  double launches = 1;
  double looped_dispatches = 0;
  double looped_kernels = 0;
  bool host_waits = false;
  // The routed experts' first step of a MoE layer's forward pass: the layer's Python that launches nothing
  // (ParallelConfig::host_moe_layer_overhead) runs before its launch, after the dispatcher's sync point.
  bool moe_layer_python = false;
  // A latency-bound control message of the MoE token dispatcher (its token counts, the routing
  // probabilities) rather than the token exchange itself: it does not delimit the pieces of the combined
  // 1F1B schedule, which Megatron-Core cuts at the tokens' dispatch and combine.
  bool dispatcher_control = false;
  // An expert-parallel collective Megatron-Core issues on the compute stream, between the kernels around it
  // (the dispatcher's preprocess), rather than on the stream the token exchange runs on.
  bool on_compute_stream = false;

  friend bool operator==(const LayerStep&, const LayerStep&) = default;
};

// The steps of one pass through a part of the model, forward and backward, for one micro-batch.
struct LayerSteps {
  std::vector<LayerStep> forward;
  std::vector<LayerStep> backward;  // in execution order
};

// Parameters of a part of the model: the whole model's count and what one GPU holds after tensor and
// expert parallelism (weights split over TP ranks; experts over EP x TP ranks; norms and routers replicated).
struct PartParameters {
  double total = 0;
  double per_gpu = 0;
  double expert_per_gpu = 0;  // the part of per_gpu that belongs to routed experts (reduced over dp / ep)
};

// One decoder/encoder layer (pre-norm, as GPT and Llama): norm, QKV, attention core, output projection,
// residual, norm, MLP (or router, expert dispatch, experts and combine when `moe`), residual. Every TP
// collective moves the micro-batch's activation (tokens x hidden in the activation dtype): an all-reduce
// after each row-parallel linear forward and after each column-parallel linear's data-gradient backward, or
// with sequence parallelism an all-gather before and a reduce-scatter after each linear pair (backward: the
// mirror, plus the all-gather of the saved sharded input that the weight gradient needs).
// `local_attention`: the layer attends through the model's sliding window or within its attention chunks
// (is_local_attention_layer, attention_shape.h). Multi-latent attention replaces the QKV GEMM by its down-
// and up-projections (transformer_kernels.cc).
LayerSteps transformer_layer_steps(const TransformerConfig& model, const LayerSharding& shard, bool moe,
                                   bool local_attention = false);
PartParameters transformer_layer_parameters(const TransformerConfig& model, const LayerSharding& shard,
                                            bool moe);

// One layer of a hybrid model (TransformerConfig::hybrid_pattern), a single block with its norm and
// residual: 'M' the Mamba-2 mixer (in_proj, conv1d, SSD scan, gated norm, out_proj: mamba_kernels.cc
// documents the scan's cost model), '*' attention, '-' the dense MLP, 'E' the MoE MLP.
LayerSteps hybrid_layer_steps(const TransformerConfig& model, const LayerSharding& shard, char block);
PartParameters hybrid_layer_parameters(const TransformerConfig& model, const LayerSharding& shard,
                                       char block);

// The block of layer `index` of a hybrid model, or 0 for a standard transformer layer.
char hybrid_block(const TransformerConfig& model, int index);

// Vocabulary-parallel word embedding (vocab / tp rows per GPU) with its TP all-reduce (reduce-scatter with
// sequence parallelism); on the first pipeline stage.
LayerSteps embedding_steps(const TransformerConfig& model, const LayerSharding& shard);
// Final norm, vocabulary-parallel LM head GEMM and cross-entropy (its three small TP all-reduces of the
// logits' max, sum of exponentials and target logit); on the last pipeline stage.
LayerSteps lm_head_steps(const TransformerConfig& model, const LayerSharding& shard);
// DeepSeek-V3's multi-token-prediction modules (TransformerConfig::mtp_layers), each: the norms of the
// hidden state and of the next token's embedding, their concatenation projected 2h -> h (with its TP
// all-reduce), a transformer layer (MoE when the model's last layer is), and its own final norm, LM head
// GEMM and cross-entropy. The next token's embedding lookup is left out (a gather, small beside the rest).
LayerSteps mtp_steps(const TransformerConfig& model, const LayerSharding& shard);
// Parameters of the embedding and of the LM head with the final norm (a tied head holds its own copy when
// it lives on another stage than the embedding; `separate_copy` says so).
PartParameters embedding_parameters(const TransformerConfig& model, const LayerSharding& shard);
PartParameters lm_head_parameters(const TransformerConfig& model, const LayerSharding& shard,
                                  bool separate_copy);

// The multi-token-prediction modules (TransformerConfig::mtp_layers) on the last stage: their layers,
// norms and projections; the embedding and LM head they share are counted with the model's.
PartParameters mtp_parameters(const TransformerConfig& model, const LayerSharding& shard);

// Whether layer `index` (0-based) is a mixture-of-experts layer.
bool is_moe_layer(const TransformerConfig& model, int index);
// The fraction of the model's layers that are mixture-of-experts layers.
double moe_layer_share(const TransformerConfig& model);

// Forward FLOPs per token of the whole model's GEMMs and attention at `seq_len` (multiply-add = 2; the
// attention square not halved under a causal mask; routed experts counted k times per token, capacity
// padding not counted). Three times this per token is Megatron-LM's model FLOPs without recomputation:
// for GPT, 72 B s l h^2 (1 + s / 6h + V / 12lh) per iteration.
// Multi-latent attention counts its down- and up-projections, sliding-window layers min(window, seq) keys
// per query, and each MTP module its projection, layer and LM head.
double forward_flops_per_token(const TransformerConfig& model, int seq_len);
// One layer's share of it (layer `index`, 0-based; the LM head not included).
double layer_forward_flops_per_token(const TransformerConfig& model, int index, int seq_len);

}  // namespace simtrain::workload
