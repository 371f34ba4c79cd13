// The Megatron-LM trace generator: resolves the plan (sizes, dtypes, schedule, layer kernels), lays ranks
// out in Megatron's order, builds the communicator groups and one program per pipeline stage, and fills in
// the metadata (model FLOPs, peak memory).
#include "simulator/workload/megatron_trace.h"

#include <algorithm>
#include <numeric>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/workload/layer_activations.h"
#include "simulator/workload/megatron_stage.h"
#include "simulator/workload/memory_parts.h"
#include "simulator/workload/parallel_memory.h"

namespace simtrain::workload {
namespace {

using megatron::GroupIds;
using megatron::LayerKinds;
using megatron::StagePlan;

// Adds a group and returns its index.
int add_group(trace::Trace& trace, std::string name, std::vector<std::vector<int>> communicators) {
  trace.groups.push_back({std::move(name), std::move(communicators)});
  return static_cast<int>(trace.groups.size() - 1);
}

// Communicators over one coordinate of the layout, one per combination of the others.
template <typename Rank>
std::vector<std::vector<int>> communicators(int outer, int size, Rank rank) {
  std::vector<std::vector<int>> list(static_cast<std::size_t>(outer));
  for (int o = 0; o < outer; ++o)
    for (int i = 0; i < size; ++i) list[static_cast<std::size_t>(o)].push_back(rank(o, i));
  return list;
}

GroupIds build_groups(trace::Trace& trace, const MegatronLayout& l, const ParallelConfig& c, bool experts,
                      bool tied_across_stages, int shard_size) {
  GroupIds g;
  const int tp = l.tp, cp = l.cp, dp = l.dp, pp = l.pp, dcp = dp * cp;
  g.tp = add_group(trace, "tp", communicators(pp * dp * cp, tp, [&](int o, int i) { return o * tp + i; }));
  g.cp = add_group(trace, "cp", communicators(pp * dp * tp, cp, [&](int o, int i) {
                     return l.rank(o % tp, i, (o / tp) % dp, o / (tp * dp));
                   }));
  // The data-parallel ranks of a stage with equal tp rank, index j = dp_rank * cp + cp_rank.
  const auto dp_rank = [&](int o, int j) { return l.rank(o % tp, j % cp, j / cp, o / tp); };
  g.dp = add_group(trace, "dp", communicators(pp * tp, dcp, dp_rank));
  g.pp = add_group(trace, "pp",
                   communicators(dp * cp * tp, pp, [&](int o, int i) { return o + i * tp * cp * dp; }));
  g.etp = g.tp;
  if (experts && c.expert_tp() == tp) {
    const int ep = c.ep, edp = dcp / ep;
    g.ep = add_group(trace, "ep", communicators(pp * tp * edp, ep, [&](int o, int i) {
                       return dp_rank(o / edp, (o % edp) * ep + i);
                     }));
    g.edp = add_group(trace, "edp", communicators(pp * tp * ep, edp, [&](int o, int i) {
                        return dp_rank(o / ep, i * ep + o % ep);
                      }));
  } else if (experts) {
    // MoE parallel folding: a stage's tp x dp x cp ranks, tp fastest, regrouped as etp (fastest) x ep x
    // expert-data-parallel, as Megatron-Core's expert rank generator orders them.
    const int etp = c.expert_tp(), ep = c.ep, edp = tp * dcp / (etp * ep);
    const auto stage_rank = [&](int stage, int r) { return dp_rank(stage * tp + r % tp, r / tp); };
    g.ep = add_group(trace, "ep", communicators(pp * etp * edp, ep, [&](int o, int i) {
                       const int stage = o / (etp * edp), e = o % etp, d = (o / etp) % edp;
                       return stage_rank(stage, e + etp * (i + ep * d));
                     }));
    g.edp = add_group(trace, "edp", communicators(pp * etp * ep, edp, [&](int o, int i) {
                        const int stage = o / (etp * ep), e = o % etp, x = (o / etp) % ep;
                        return stage_rank(stage, e + etp * (x + ep * i));
                      }));
    if (etp > 1)
      g.etp = add_group(trace, "etp", communicators(pp * ep * edp, etp, [&](int o, int i) {
                          const int stage = o / (ep * edp), x = o % ep, d = (o / ep) % edp;
                          return stage_rank(stage, i + etp * (x + ep * d));
                        }));
  }
  if (tied_across_stages)
    g.embd = add_group(trace, "embd", communicators(dp * cp * tp, 2, [&](int o, int i) {
                         return o + i * (pp - 1) * tp * cp * dp;
                       }));
  g.shard = g.dp;
  if (c.fsdp == FsdpMode::HybridShard && shard_size < dcp) {
    const int replicas = dcp / shard_size;
    g.shard = add_group(trace, "fsdp_shard", communicators(pp * tp * replicas, shard_size, [&](int o, int i) {
                          return dp_rank(o / replicas, (o % replicas) * shard_size + i);
                        }));
    g.replicate =
        add_group(trace, "fsdp_replicate", communicators(pp * tp * shard_size, replicas, [&](int o, int i) {
                    return dp_rank(o / shard_size, i * shard_size + o % shard_size);
                  }));
  }
  return g;
}

// Every kind of layer `model` has, its steps sharded as `shard` says.
LayerKinds layer_kinds(const TransformerConfig& model, const LayerSharding& shard) {
  LayerKinds kinds;
  kinds.dense = transformer_layer_steps(model, shard, false);
  if (model.experts > 0) kinds.moe = transformer_layer_steps(model, shard, true);
  for (const char block : model.hybrid_pattern)
    if (!kinds.hybrid.count(block)) kinds.hybrid[block] = hybrid_layer_steps(model, shard, block);
  if (model.window_size > 0 || model.attention_chunk > 0) {
    kinds.local_dense = transformer_layer_steps(model, shard, false, true);
    if (model.experts > 0) kinds.local_moe = transformer_layer_steps(model, shard, true, true);
  }
  return kinds;
}

}  // namespace

double megatron_model_flops(const TransformerConfig& model, int seq_len, double global_batch) {
  return 3 * forward_flops_per_token(model, seq_len) * global_batch * seq_len;
}

std::string megatron_parallelism(const ParallelConfig& c, int dp) {
  std::string text = "tp" + std::to_string(c.tp) + (c.sp ? " sp" : "") + " pp" + std::to_string(c.pp) +
                     " vpp" + std::to_string(c.vpp);
  if (!c.pp_layers.empty()) {
    text += " layers";
    for (std::size_t s = 0; s < c.pp_layers.size(); ++s)
      text += (s ? "," : " ") + std::to_string(c.pp_layers[s]);
  }
  if (c.pp_first_layers >= 0) text += " first" + std::to_string(c.pp_first_layers);
  if (c.pp_last_layers >= 0) text += " last" + std::to_string(c.pp_last_layers);
  if (c.pp_embedding_in_split) text += " +embedding";
  if (c.pp_loss_in_split) text += " +loss";
  if (c.cp > 1) text += " cp" + std::to_string(c.cp);
  if (c.ep > 1) text += " ep" + std::to_string(c.ep);
  if (c.ep > 1 && c.moe_dispatcher != TokenDispatcher::AllToAll)
    text += "(" + std::string(to_string(c.moe_dispatcher)) + ")";
  if (c.etp > 0 && c.etp != c.tp) text += " etp" + std::to_string(c.etp);
  text += " dp" + std::to_string(dp);
  if (c.distributed_optimizer) text += " dist-opt";
  if (c.zero > 0) text += " zero" + std::to_string(c.zero);
  if (c.fsdp != FsdpMode::None) text += c.fsdp == FsdpMode::FullShard ? " fsdp" : " hsdp";
  if (c.schedule == PipelineSchedule::GPipe && c.pp > 1) text += " gpipe";
  if (c.recompute != Recompute::None) text += " recompute-" + std::string(to_string(c.recompute));
  if (c.recompute == Recompute::Full && c.recompute_layers.rule != RecomputedLayers::Rule::All)
    text += "(" + recomputed_layers_text(c.recompute_layers) + ")";
  if (c.recompute == Recompute::Selective && c.recompute_modules != kDefaultRecomputeModules)
    text += "(" + recompute_modules_string(c.recompute_modules) + ")";
  if (c.cpu_offloading_layers > 0) text += " offload" + std::to_string(c.cpu_offloading_layers);
  if (c.fp8 && c.quant_recipe == QuantRecipe::NVFP4)
    text += " nvfp4";
  else if (c.fp8)
    text += c.quant_recipe == QuantRecipe::Delayed ? std::string(" fp8")
                                                   : " fp8-" + std::string(to_string(c.quant_recipe));
  return text;
}

StagePlan megatron::make_stage_plan(const TransformerConfig& model, const ParallelConfig& config) {
  if (config.seq_len < 1) throw Error("--seq-len: the Megatron generator needs the sequence length resolved");
  validate(config, model, config.gpus);
  const int dp = config.data_parallel_size();
  const long long global_batch =
      config.global_batch > 0 ? config.global_batch : 1LL * config.micro_batch * dp;
  const bool sixteen_bit = config.precision == Precision::AMP_BF16 || config.precision == Precision::AMP_FP16;

  StagePlan plan;
  plan.model = &model;
  plan.config = &config;
  plan.pp = config.pp;
  plan.vpp = config.vpp;
  plan.micro_batches = static_cast<int>(global_batch / (1LL * config.micro_batch * dp));
  plan.split = pipeline_split(config, model.layers);
  plan.layers_per_chunk = std::max(1, plan.split.max_chunk_layers());
  LayerSharding& shard = plan.shard;
  shard.micro_batch = config.micro_batch;
  shard.seq_len = config.seq_len;
  shard.tp = config.tp;
  shard.sp = config.sp;
  shard.cp = config.cp;
  shard.ep = config.ep;
  shard.etp = config.expert_tp();
  shard.capacity_factor = config.capacity_factor;
  shard.activation = activation_dtype(config.precision);
  shard.gemm = !config.fp8                                 ? matmul_dtype(config.precision)
               : config.quant_recipe == QuantRecipe::NVFP4 ? DType::FP4
                                                           : DType::FP8;
  shard.quant = config.quant_recipe;
  shard.flash_attention = config.flash_attention;
  shard.attention_kernel = config.attention_kernel;
  shard.eager_pointwise = config.eager_pointwise;
  shard.torchtitan_op_recompute =
      config.recompute == Recompute::Selective && (config.recompute_modules & kRecomputeTorchtitanOps) != 0;
  shard.async_tp_all_reduce = config.async_tp_all_reduce;
  shard.gradient_accumulation_fusion = config.gradient_accumulation_fusion;
  shard.tp_comm_overlap = config.tp_comm_overlap;
  shard.moe_pad_to_capacity = config.moe_pad_to_capacity;
  shard.moe_dispatcher = config.moe_dispatcher;
  shard.moe_flex_backend = config.moe_flex_backend;
  shard.te_op_fuser = config.te_op_fuser;
  shard.cross_entropy = config.cross_entropy_fusion;
  const bool framework_sharding = config.zero > 0 || config.fsdp != FsdpMode::None;
  // Megatron reduces bf16 training's gradients in fp32 main_grad buffers unless --grad-reduce-in-bf16;
  // DeepSpeed and FSDP in 16 bits, unless FSDP2's reduce_dtype is fp32.
  const bool reduced_in_16_bits = (framework_sharding && !config.fsdp_reduce_in_fp32) ||
                                  config.precision == Precision::AMP_FP16 || config.grad_reduce_in_bf16;
  plan.grad_bytes = sixteen_bit && reduced_in_16_bits ? 2 : 4;
  plan.param_bytes = config.fp8 && config.fp8_param_gather ? 1 : sixteen_bit ? 2 : 4;
  shard.main_grad_bytes = plan.grad_bytes;
  plan.layers = layer_kinds(model, shard);
  LayerSharding sixteen_bit_shard = shard;
  sixteen_bit_shard.gemm = matmul_dtype(config.precision);
  if (config.bf16_layers_at_start > 0 || config.bf16_layers_at_end > 0)
    plan.bf16_layers = layer_kinds(model, sixteen_bit_shard);
  plan.dense_params = transformer_layer_parameters(model, shard, false);
  if (model.experts > 0) plan.moe_params = transformer_layer_parameters(model, shard, true);
  for (const char block : model.hybrid_pattern)
    if (!plan.hybrid_params.count(block))
      plan.hybrid_params[block] = hybrid_layer_parameters(model, shard, block);
  plan.embedding = embedding_steps(model, shard);
  plan.lm_head = lm_head_steps(model, shard);
  plan.embedding_params = embedding_parameters(model, shard);
  const bool tied_across_stages = model.tied_embeddings && config.pp > 1;
  plan.lm_head_params = lm_head_parameters(model, shard, tied_across_stages);
  if (model.mtp_layers > 0) {
    // The MTP modules run on the last stage after the main head (Megatron-Core's MultiTokenPredictionBlock);
    // they ride with the LM head's unit. They run under the global FP8 context but without FP4
    // (multi_token_prediction.py: "currently ignoring FP4 in MTP layers"): 16-bit GEMMs under NVFP4, and
    // under FP8 too where the model keeps them in bf16 (keep_mtp_spec_in_bf16).
    const bool sixteen_bit = shard.gemm == DType::FP4 || (model.mtp_bf16 && shard.gemm == DType::FP8);
    const LayerSteps mtp = mtp_steps(model, sixteen_bit ? sixteen_bit_shard : shard);
    plan.lm_head.forward.insert(plan.lm_head.forward.end(), mtp.forward.begin(), mtp.forward.end());
    plan.lm_head.backward.insert(plan.lm_head.backward.begin(), mtp.backward.begin(), mtp.backward.end());
    const PartParameters extra = mtp_parameters(model, shard);
    plan.lm_head_params.total += extra.total;
    plan.lm_head_params.per_gpu += extra.per_gpu;
    plan.lm_head_params.expert_per_gpu += extra.expert_per_gpu;
  }

  const int dcp = dp * config.cp;
  // FSDP hybrid shard shards within a node's worth (8 GPUs) of data-parallel ranks.
  const int shard_size =
      config.fsdp == FsdpMode::HybridShard ? std::gcd(dcp, std::max(1, 8 / (config.tp * config.cp))) : dcp;
  plan.data_shards = shard_size;
  plan.expert_shards = std::max(1, config.tp * dcp / (config.expert_tp() * config.ep));
  plan.p2p_bytes = static_cast<double>(config.micro_batch) * config.seq_len / config.cp * model.hidden *
                   bytes_per_element(shard.activation) / config.tp;
  for (int i = 0; i < config.cpu_offloading_layers; ++i)
    plan.offload_bytes.push_back(layer_activation_bytes(model, i, config, config.seq_len));
  plan.bucket_parameters = std::max(4e7, 1e6 * dcp);
  plan.shard_optimizer = config.distributed_optimizer || framework_sharding;
  plan.shard_gradients_each_micro_batch = config.zero == 2;
  plan.shard_parameters = config.zero == 3 || config.fsdp != FsdpMode::None;

  // Each micro-batch repeats a stage's layer steps (forward, backward, recomputation at most once more):
  // refuse a step that cannot be held before building it.
  const LayerSteps& widest =
      plan.layers.moe.forward.size() > plan.layers.dense.forward.size() ? plan.layers.moe : plan.layers.dense;
  int stage_layers = 0;
  for (int stage = 0; stage < plan.pp; ++stage)
    stage_layers = std::max(stage_layers, plan.split.stage_layers(stage));
  const double ops_per_stage = static_cast<double>(plan.micro_batches) * std::max(1, stage_layers) *
                               (2.0 * widest.forward.size() + widest.backward.size());
  if (ops_per_stage > static_cast<double>(kMaxOpsPerProgram))
    throw Error("--global-batch " + std::to_string(global_batch) + ": " + std::to_string(plan.micro_batches) +
                " micro-batches of " + std::to_string(stage_layers) +
                " layers per pipeline rank would take about " +
                std::to_string(static_cast<long long>(ops_per_stage)) +
                " kernels per GPU and step; at most " + std::to_string(kMaxOpsPerProgram) + " are simulated");

  return plan;
}

trace::TraceMetadata megatron_metadata(const TransformerConfig& model, const std::string& model_name,
                                       const ParallelConfig& config) {
  const int dp = config.data_parallel_size();
  const long long global_batch =
      config.global_batch > 0 ? config.global_batch : 1LL * config.micro_batch * dp;
  trace::TraceMetadata meta;
  meta.model = model_name;
  meta.generator = "simtrain workload megatron";
  meta.parallelism = megatron_parallelism(config, dp);
  meta.samples_per_iteration = global_batch;
  meta.tokens_per_iteration = static_cast<double>(global_batch) * config.seq_len;
  meta.model_flops_per_iteration = megatron_model_flops(model, config.seq_len, global_batch);
  const ParallelMemoryEstimate memory = estimate_parallel_memory(model, config, config.seq_len, dp);
  meta.peak_memory_bytes = memory.total_bytes();
  meta.memory_breakdown_bytes = memory_parts(memory);
  // MFU is quoted against the 16-bit peak even for FP8 training, as Megatron-LM and NVIDIA report it.
  meta.compute_dtype = matmul_dtype(config.precision);
  return meta;
}

trace::Trace generate_megatron_trace(const TransformerConfig& model, const std::string& model_name,
                                     const ParallelConfig& config) {
  StagePlan plan = megatron::make_stage_plan(model, config);
  MegatronLayout layout{config.tp, config.cp, 0, config.pp};
  layout.dp = config.data_parallel_size();
  const bool tied_across_stages = model.tied_embeddings && config.pp > 1;
  const int shard_size = plan.data_shards;
  plan.order = pipeline_order(config.schedule, config.pp, plan.micro_batches, config.vpp,
                              config.overlap_moe_expert_parallel_comm);

  trace::Trace trace;
  trace.world_size = layout.world();
  plan.groups = build_groups(trace, layout, config, model.experts > 0, tied_across_stages, shard_size);
  for (int stage = 0; stage < config.pp; ++stage)
    trace.programs.push_back(megatron::build_stage_program(plan, stage));
  trace.rank_program.resize(static_cast<std::size_t>(trace.world_size));
  for (int rank = 0; rank < trace.world_size; ++rank)
    trace.rank_program[static_cast<std::size_t>(rank)] = static_cast<std::uint32_t>(layout.stage_of(rank));

  trace.metadata = megatron_metadata(model, model_name, config);
  return trace;
}

}  // namespace simtrain::workload
