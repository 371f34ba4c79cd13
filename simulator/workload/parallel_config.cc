// Names of the recomputation policies and the checks that turn an impossible parallel plan into one line
// saying which option broke which constraint, before any trace is generated from it.
#include "simulator/workload/parallel_config.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/pipeline_split.h"

namespace simtrain::workload {
namespace {

std::string str(long long value) { return std::to_string(value); }

void require(bool ok, const std::string& message) {
  if (!ok) throw Error(message);
}

// A well-formed plan that cannot run: a split that does not divide, or a feature the plan's shape rules out.
// A sweep over plans records these as skipped, where a typo is a failure (ErrorKind).
void require_feasible(bool ok, const std::string& message) {
  if (!ok) throw Error(message, ErrorKind::Infeasible);
}

void require_positive(int value, const std::string& option) {
  require(value >= 1, option + ": must be at least 1, got " + str(value));
}

}  // namespace

std::string_view to_string(Recompute recompute) {
  switch (recompute) {
    case Recompute::None:
      return "none";
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
  }
  return "unknown";
}

RecomputedSteps recomputed_steps(const ParallelConfig& c) {
  switch (c.recompute) {
    case Recompute::None:
      return {};
    case Recompute::Selective:
      return {.any = true, .all = false, .modules = c.recompute_modules};
    case Recompute::Full:
      return kEveryStep;
  }
  return {};
}

bool RecomputedLayers::includes(int in_chunk, int in_stage) const {
  switch (rule) {
    case Rule::All:
    case Rule::UniformGroups:
      return true;
    case Rule::FirstOfChunk:
      return in_chunk < n;
    case Rule::EveryNth:
      return n <= 1 || (in_stage + 1) % n == 0;
  }
  return true;
}

double recomputed_layer_share(const ParallelConfig& c, double stage_layers) {
  const RecomputedLayers& layers = c.recompute_layers;
  if (c.recompute != Recompute::Full || layers.rule == RecomputedLayers::Rule::All ||
      layers.rule == RecomputedLayers::Rule::UniformGroups || stage_layers <= 0)
    return 1;
  if (layers.rule == RecomputedLayers::Rule::FirstOfChunk) {
    const double chunk_layers = stage_layers / std::max(1, c.vpp);
    return std::min<double>(layers.n, chunk_layers) / chunk_layers;
  }
  return layers.n <= 1 ? 1 : std::floor(stage_layers / layers.n) / stage_layers;
}

std::string recomputed_layers_text(const RecomputedLayers& layers) {
  switch (layers.rule) {
    case RecomputedLayers::Rule::All:
      return "all";
    case RecomputedLayers::Rule::FirstOfChunk:
      return "first " + std::to_string(layers.n) + "/chunk";
    case RecomputedLayers::Rule::EveryNth:
      return "1 in " + std::to_string(layers.n);
    case RecomputedLayers::Rule::UniformGroups:
      return "all, " + std::to_string(layers.n) + " at a time";
  }
  return "";
}

bool parse_recompute(std::string_view text, Recompute& out) {
  if (text == "none") {
    out = Recompute::None;
  } else if (text == "selective") {
    out = Recompute::Selective;
  } else if (text == "full") {
    out = Recompute::Full;
  } else {
    return false;
  }
  return true;
}

void validate(const ParallelConfig& c, const TransformerConfig& model, int world) {
  require_positive(world, "--gpus");
  require_positive(c.tp, "--tp");
  require_positive(c.pp, "--pp");
  require_positive(c.vpp, "--vpp");
  require_positive(c.cp, "--cp");
  require_positive(c.ep, "--ep");
  require_positive(c.micro_batch, "--micro-batch");
  require(c.dp >= 0, "--dp: must be at least 1 (or 0 to derive it from --gpus), got " + str(c.dp));
  require(c.global_batch >= 0, "--global-batch: must not be negative, got " + str(c.global_batch));
  require(c.seq_len >= 0, "--seq-len: must not be negative, got " + str(c.seq_len));

  // The model-parallel group (TP x PP x CP) tiles the GPUs; data parallelism is what is left over.
  const long long model_parallel = 1LL * c.tp * c.pp * c.cp;
  const std::string mp_product = "--tp " + str(c.tp) + " x --pp " + str(c.pp) + " x --cp " + str(c.cp);
  require_feasible(world % model_parallel == 0, "--gpus " + str(world) + ": not divisible by " + mp_product +
                                                    " = " + str(model_parallel) +
                                                    " (data parallelism must be whole)");
  if (c.dp > 0) {
    require_feasible(c.dp * model_parallel == world, "--dp " + str(c.dp) + ": --dp x " + mp_product + " = " +
                                                         str(c.dp * model_parallel) +
                                                         " GPUs, but --gpus is " + str(world));
  }
  const long long dp = c.dp > 0 ? c.dp : world / model_parallel;

  // Megatron splits attention heads and KV heads (query groups) evenly over TP ranks, and the MLP columns.
  const int kv_heads = model.kv_heads > 0 ? model.kv_heads : model.heads;
  require_feasible(model.heads % c.tp == 0, "--tp " + str(c.tp) + ": " + str(model.heads) +
                                                " attention heads are not divisible by " + str(c.tp));
  require_feasible(kv_heads % c.tp == 0, "--tp " + str(c.tp) + ": " + str(kv_heads) +
                                             " KV heads (query groups) are not divisible by " + str(c.tp));
  require_feasible(model.ffn_hidden % c.tp == 0, "--tp " + str(c.tp) + ": FFN size " + str(model.ffn_hidden) +
                                                     " is not divisible by " + str(c.tp));
  require_feasible(!c.sp || c.tp > 1, "--sp: sequence parallelism needs --tp > 1");
  require_feasible(!c.tp_comm_overlap || (c.tp > 1 && c.sp),
                   "--tp-comm-overlap: overlapping TP communication with GEMMs needs --tp > 1 and --sp");
  // Megatron-Core's MambaMixer splits the Mamba heads and the B/C groups over TP ranks.
  if (model.hybrid_pattern.find('M') != std::string::npos)
    require_feasible(model.mamba_heads % c.tp == 0 && model.mamba_groups % c.tp == 0,
                     "--tp " + str(c.tp) + ": " + str(model.mamba_heads) + " Mamba heads and " +
                         str(model.mamba_groups) + " groups are not divisible by " + str(c.tp));

  // Every pipeline rank holds vpp chunks of the same number of layers (pipeline_split.h for uneven splits).
  require_feasible(c.vpp == 1 || c.pp > 1,
                   "--vpp " + str(c.vpp) + ": interleaved virtual stages need --pp > 1");
  // Megatron's batched exchanges would pair two sends and receives between the same two ranks
  // (megatron/training/arguments.py refuses it).
  require_feasible(c.vpp == 1 || c.overlap_p2p_communication || c.pp > 2,
                   "--no-overlap-p2p-communication: interleaved virtual stages without overlapped exchanges "
                   "need --pp > 2, got --pp " +
                       str(c.pp));
  pipeline_split(c, model.layers);

  if (c.global_batch > 0) {
    require_feasible(c.global_batch % (c.micro_batch * dp) == 0,
                     "--global-batch " + str(c.global_batch) + ": not divisible by --micro-batch " +
                         str(c.micro_batch) + " x data-parallel size " + str(dp) + " = " +
                         str(c.micro_batch * dp));
    // Every micro-batch is unrolled into each pipeline rank's program.
    const long long micro_batches = c.global_batch / (c.micro_batch * dp);
    require(micro_batches <= kMaxMicroBatches, "--global-batch " + str(c.global_batch) + ": " +
                                                   str(micro_batches) + " micro-batches per step; at most " +
                                                   str(kMaxMicroBatches) + " are simulated");
  }
  // Megatron-Bridge's Llama 4 splits the sequence over CP ranks in whole attention chunks (llama4_utils.py);
  // simtrain runs a chunked layer's attention on one rank's tokens only.
  require_feasible(c.cp == 1 || model.attention_chunk <= 0 || c.seq_len <= model.attention_chunk,
                   "--cp " + str(c.cp) + ": chunked attention (" + str(model.attention_chunk) +
                       "-token chunks) under context parallelism is not modelled");
  // Load-balanced causal context parallelism cuts the sequence into 2 x cp chunks.
  if (c.cp > 1 && c.seq_len > 0) {
    require_feasible(c.seq_len % (2 * c.cp) == 0, "--cp " + str(c.cp) + ": --seq-len " + str(c.seq_len) +
                                                      " is not divisible by 2 x cp = " + str(2 * c.cp));
  }

  if (c.ep > 1) {
    require_feasible(model.experts > 0, "--ep " + str(c.ep) + ": the model has no experts to distribute");
    require_feasible(model.experts % c.ep == 0, "--ep " + str(c.ep) + ": " + str(model.experts) +
                                                    " experts are not divisible by " + str(c.ep));
    // Expert-parallel groups are carved out of a pipeline stage's ranks, etp x ep of them at a time: out of
    // the data-parallel (x context-parallel) ranks when etp = tp, out of the tensor-parallel ones too when
    // the layout is folded (etp < tp).
    const int stage_ranks = c.tp * dp * c.cp, etp = c.expert_tp();
    if (etp == c.tp)
      require_feasible((dp * c.cp) % c.ep == 0,
                       "--ep " + str(c.ep) + ": does not divide data-parallel x --cp = " + str(dp) + " x " +
                           str(c.cp) + " = " + str(dp * c.cp) +
                           " (with --etp below --tp it may span tensor-parallel ranks)");
    else
      require_feasible(stage_ranks % (etp * c.ep) == 0, "--ep " + str(c.ep) + " --etp " + str(etp) +
                                                            ": ep x etp does not divide --tp x --cp x "
                                                            "data-parallel = " +
                                                            str(stage_ranks));
  }
  if (c.etp != 0) {
    require_positive(c.etp, "--etp");
    require_feasible(c.tp % c.etp == 0,
                     "--etp " + str(c.etp) + ": expert tensor parallelism must divide --tp " + str(c.tp));
    require_feasible(model.experts > 0 || c.etp == c.tp,
                     "--etp " + str(c.etp) + ": the model has no experts to split");
  }
  if (model.experts > 0) {
    require(c.capacity_factor > 0, "capacity factor must be positive");
    const int moe_ffn = model.moe_ffn_hidden > 0 ? model.moe_ffn_hidden : model.ffn_hidden;
    require_feasible(moe_ffn % c.expert_tp() == 0,
                     std::string(c.etp > 0 ? "--etp " : "--tp ") + str(c.expert_tp()) + ": expert FFN size " +
                         str(moe_ffn) + " is not divisible by " + str(c.expert_tp()));
  }

  // Megatron refuses mla_up_proj without multi-latent attention; the expert modules name nothing to rerun
  // in a model without experts.
  if (c.recompute == Recompute::Selective) {
    const std::string modules = "--recompute-modules " + recompute_modules_string(c.recompute_modules);
    require_feasible(!(c.recompute_modules & kRecomputeMlaUpProjection) || is_mla(model),
                     modules + ": mla_up_proj needs a model with multi-latent attention");
    require_feasible(!(c.recompute_modules & (kRecomputeMoe | kRecomputeMoeActivation)) || model.experts > 0,
                     modules + ": moe and moe_act need a model with experts");
    require_feasible(!(c.recompute_modules & kRecomputeSharedExperts) || model.shared_experts > 0,
                     modules + ": shared_experts needs a model with shared experts");
  }

  if (c.fp8_param_gather) {
    require_feasible(c.fp8, "--fp8-param-gather: needs FP8 training (--fp8-format)");
    require_feasible(
        c.distributed_optimizer || c.fsdp != FsdpMode::None,
        "--fp8-param-gather: only with the distributed optimizer or FSDP, as Megatron-LM allows it");
  }

  if (c.recompute_layers.rule != RecomputedLayers::Rule::All) {
    require(c.recompute == Recompute::Full, "recomputing some layers only applies to full recomputation");
    require(c.recompute_layers.n >= 1, "the layers recomputed in full must be counted at least 1");
  }

  // Megatron-Core's checks on activation offloading (transformer_config.py).
  if (c.cpu_offloading_layers != 0) {
    const std::string flag = "--cpu-offloading-num-layers " + str(c.cpu_offloading_layers) + ": ";
    require_feasible(c.cpu_offloading_layers > 0 && c.cpu_offloading_layers < model.layers,
                     flag + "offloads fewer layers than the model's " + str(model.layers) + ", at least one");
    require_feasible(c.pp == 1, flag + "Megatron offloads activations without pipeline parallelism only");
    require_feasible(c.recompute == Recompute::None, flag + "Megatron does not offload under recomputation");
    require_feasible(c.cuda_graphs.impl != CudaGraphs::Impl::PerLayer,
                     flag + "Megatron does not offload with per-layer CUDA graphs");
  }

  // Megatron-Core's own checks on the combined 1F1B (transformer_config.py), and simtrain's: sharded
  // parameters' gathers are not interleaved between the two passes.
  if (c.overlap_moe_expert_parallel_comm) {
    const std::string flag = "--overlap-moe-expert-parallel-comm: ";
    require_feasible(c.ep > 1, flag + "needs expert parallelism (--ep > 1)");
    require_feasible(c.moe_dispatcher != TokenDispatcher::AllGather,
                     flag + "needs the alltoall or flex token dispatcher, not allgather");
    require_feasible(c.pp == 1 || c.vpp > 1, flag + "with --pp > 1 needs virtual stages (--vpp > 1)");
    require_feasible(c.schedule != PipelineSchedule::GPipe, flag + "runs on the 1F1B schedules, not GPipe");
    require_feasible(c.recompute != Recompute::Full, flag + "does not run with full recomputation");
    require_feasible(c.recompute != Recompute::Selective || !(c.recompute_modules & kRecomputeMoe),
                     flag + "does not run with moe in --recompute-modules");
    require_feasible(c.mtp_layers.value_or(model.mtp_layers) <= 1,
                     flag + "runs at most one multi-token-prediction layer");
    require_feasible(c.zero < 3 && c.fsdp == FsdpMode::None,
                     flag + "with sharded parameters (--zero 3, --fsdp) is not modelled");
  }

  // Megatron captures a MoE layer's whole MLP block (the moe scope, or whole layers) only with static
  // shapes: drop-and-pad (CudaGraphModule.moe, transformer_config.py).
  if (c.cuda_graphs.impl == CudaGraphs::Impl::PerLayer && model.experts > 0 && !c.moe_pad_to_capacity)
    require_feasible(c.cuda_graphs.modules != 0 && !(c.cuda_graphs.modules & kGraphMoe),
                     "--cuda-graph-scope " +
                         (c.cuda_graphs.modules == 0 ? std::string("(whole layers)")
                                                     : cuda_graph_modules_string(c.cuda_graphs.modules)) +
                         ": Megatron captures a MoE layer's MLP block only for drop-and-pad MoE "
                         "(--moe-pad-expert-input-to-capacity); dropless layers take moe_router and "
                         "moe_preprocess");

  require(c.zero >= 0 && c.zero <= 3, "--zero " + str(c.zero) + ": ZeRO stage must be 0, 1, 2 or 3");
  require(c.zero == 0 || c.fsdp == FsdpMode::None,
          "--zero " + str(c.zero) + " --fsdp: ZeRO and FSDP both shard training state; choose one");
  require(
      !c.distributed_optimizer || (c.zero == 0 && c.fsdp == FsdpMode::None),
      "--distributed-optimizer: already shards optimizer states; do not combine it with --zero or --fsdp");

  // Transformer Engine runs FP8 GEMMs with 16-bit master copies around them, and cuBLASLt's FP8 kernels need
  // matrix dimensions that are multiples of 16.
  if (c.fp8) {
    require(c.precision == Precision::AMP_BF16 || c.precision == Precision::AMP_FP16,
            "--precision fp8: needs a 16-bit mixed precision (amp-bf16 or amp-fp16) around the FP8 GEMMs");
    require_feasible(model.hidden % 16 == 0 && (model.ffn_hidden / c.tp) % 16 == 0,
                     "--precision fp8: hidden size " + str(model.hidden) + " and FFN size per TP rank " +
                         str(model.ffn_hidden / c.tp) + " must be multiples of 16");
  }
  // Megatron's own checks (transformer_config.py): the layers kept in 16 bits are of a low-precision run,
  // not under delayed scaling, and at most one pipeline rank's share at either end.
  if (c.bf16_layers_at_start > 0 || c.bf16_layers_at_end > 0) {
    require(c.fp8, "--first-last-layers-bf16: applies to FP8 or NVFP4 training");
    require_feasible(
        c.quant_recipe != QuantRecipe::Delayed,
        "--first-last-layers-bf16: delayed scaling does not support 16-bit first and last layers "
        "(Megatron refuses it; give --fp8-recipe tensorwise, blockwise or mxfp8)");
  }
  const int per_rank = model.layers / c.pp;
  for (const auto& [name, count] : {std::pair{"--num-layers-at-start-in-bf16", c.bf16_layers_at_start},
                                    std::pair{"--num-layers-at-end-in-bf16", c.bf16_layers_at_end}})
    require_feasible(count >= 0 && count <= per_rank, std::string(name) + " " + str(count) +
                                                          ": must be between 0 and the layers per pipeline "
                                                          "rank (" +
                                                          str(per_rank) + ")");
}

}  // namespace simtrain::workload
