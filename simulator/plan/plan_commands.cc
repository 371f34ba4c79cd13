// Implements plan_commands.h.
#include "simulator/plan/plan_commands.h"

#include <cctype>

#include <fmt/format.h>

namespace simtrain::plan {
namespace {

std::string precision_option(const workload::ParallelConfig& c) {
  return c.fp8 ? "fp8" : std::string(workload::to_string(c.precision));
}

// Single quotes around anything but plain option characters.
std::string shell_quote(const std::string& text) {
  for (char ch : text)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' || ch == '/' ||
          ch == '=' || ch == ','))
      return "'" + text + "'";  // option values come from the zoo and spec names: no single quotes
  return text;
}

// Megatron's --recompute-method of full recomputation: block for the first layers of each chunk, uniform for
// every layer (one at a time, or in groups). A plan never recomputes torchtitan's every n-th block.
const char* recompute_method(const workload::RecomputedLayers& layers) {
  return layers.rule == workload::RecomputedLayers::Rule::FirstOfChunk ? "block" : "uniform";
}

// Megatron's fused losses, which --cross-entropy-loss-fusion names; a plan runs no other loss but the
// unfused one.
bool fused_loss(const workload::ParallelConfig& c) {
  return c.cross_entropy_fusion == workload::CrossEntropyFusion::Native ||
         c.cross_entropy_fusion == workload::CrossEntropyFusion::TransformerEngine;
}

bool counts_recomputed_layers(const workload::RecomputedLayers& layers) {
  return layers.rule == workload::RecomputedLayers::Rule::FirstOfChunk ||
         layers.rule == workload::RecomputedLayers::Rule::UniformGroups;
}

}  // namespace

std::vector<study::Setting> run_settings(const workload::ParallelConfig& c, const std::string& platform) {
  std::vector<study::Setting> s = {{"model", c.model},
                                   {"platform", platform},
                                   {"gpus", std::to_string(c.gpus)},
                                   {"global-batch", std::to_string(c.global_batch)},
                                   {"seq-len", std::to_string(c.seq_len)},
                                   {"precision", precision_option(c)},
                                   {"tp", std::to_string(c.tp)}};
  if (c.sp) s.push_back({"sp", "true"});
  s.push_back({"pp", std::to_string(c.pp)});
  if (c.vpp > 1) s.push_back({"vpp", std::to_string(c.vpp)});
  if (c.cp > 1) s.push_back({"cp", std::to_string(c.cp)});
  if (c.ep > 1) s.push_back({"ep", std::to_string(c.ep)});
  s.push_back({"micro-batch", std::to_string(c.micro_batch)});
  if (c.recompute != workload::Recompute::None)
    s.push_back({"recompute", std::string(workload::to_string(c.recompute))});
  if (c.recompute == workload::Recompute::Selective &&
      c.recompute_modules != workload::kDefaultRecomputeModules)
    s.push_back({"recompute-modules", workload::recompute_modules_string(c.recompute_modules)});
  if (c.recompute == workload::Recompute::Full && counts_recomputed_layers(c.recompute_layers))
    s.insert(s.end(), {{"recompute-method", recompute_method(c.recompute_layers)},
                       {"recompute-num-layers", std::to_string(c.recompute_layers.n)}});
  if (c.distributed_optimizer) s.push_back({"distributed-optimizer", "true"});
  if (c.zero > 0) s.push_back({"zero", std::to_string(c.zero)});
  if (c.fsdp != workload::FsdpMode::None)
    s.push_back({"fsdp", c.fsdp == workload::FsdpMode::FullShard ? "full" : "hybrid"});
  if (c.cpu_offloading_layers > 0)
    s.push_back({"cpu-offloading-num-layers", std::to_string(c.cpu_offloading_layers)});
  if (fused_loss(c))
    s.insert(s.end(),
             {{"cross-entropy-loss-fusion", "true"},
              {"cross-entropy-fusion-impl", std::string(workload::to_string(c.cross_entropy_fusion))}});
  return s;
}

std::string run_command_line(const workload::ParallelConfig& config, const std::string& platform) {
  std::string line = "simtrain run";
  for (const study::Setting& setting : run_settings(config, platform)) {
    line += " --" + setting.option;
    if (setting.value != "true") line += " " + shell_quote(setting.value);
  }
  return line;
}

std::string megatron_arguments(const workload::ParallelConfig& c, const workload::TransformerConfig& m) {
  std::string a =
      fmt::format("--tensor-model-parallel-size {} --pipeline-model-parallel-size {}", c.tp, c.pp);
  if (c.sp) a += " --sequence-parallel";
  if (c.vpp > 1) a += fmt::format(" --num-layers-per-virtual-pipeline-stage {}", m.layers / (c.pp * c.vpp));
  if (c.cp > 1) a += fmt::format(" --context-parallel-size {}", c.cp);
  if (c.ep > 1) a += fmt::format(" --expert-model-parallel-size {}", c.ep);
  a += fmt::format(" --micro-batch-size {} --global-batch-size {} --seq-length {}", c.micro_batch,
                   c.global_batch, c.seq_len);
  a += fmt::format(" --num-layers {} --hidden-size {} --num-attention-heads {} --ffn-hidden-size {}",
                   m.layers, m.hidden, m.heads, m.ffn_hidden);
  if (m.kv_heads > 0 && m.kv_heads != m.heads)
    a += fmt::format(" --group-query-attention --num-query-groups {}", m.kv_heads);
  if (m.experts > 0)
    a += fmt::format(" --num-experts {} --moe-router-topk {}", m.experts, m.experts_per_token);
  a += c.precision == workload::Precision::AMP_FP16   ? " --fp16"
       : c.precision == workload::Precision::AMP_BF16 ? " --bf16"
                                                      : "";
  if (c.fp8) a += " --fp8-format hybrid";
  if (c.flash_attention) a += " --use-flash-attn";
  if (c.recompute == workload::Recompute::Selective) {
    a += " --recompute-granularity selective";
    if (c.recompute_modules != workload::kDefaultRecomputeModules)
      a += " --recompute-modules " + workload::recompute_modules_string(c.recompute_modules, ' ');
  }
  if (c.recompute == workload::Recompute::Full)
    a += fmt::format(" --recompute-granularity full --recompute-method {} --recompute-num-layers {}",
                     recompute_method(c.recompute_layers),
                     counts_recomputed_layers(c.recompute_layers) ? c.recompute_layers.n : 1);
  if (c.cpu_offloading_layers > 0)
    a += fmt::format(" --cpu-offloading-num-layers {}", c.cpu_offloading_layers);
  if (fused_loss(c))
    a += " --cross-entropy-loss-fusion --cross-entropy-fusion-impl " +
         std::string(workload::to_string(c.cross_entropy_fusion));
  if (c.distributed_optimizer) a += " --use-distributed-optimizer";
  if (c.overlap_grad_reduce) a += " --overlap-grad-reduce";
  if (c.distributed_optimizer && c.overlap_grad_reduce && c.overlap_param_gather)
    a += " --overlap-param-gather";
  if (c.vpp > 1 && !c.overlap_p2p_communication) a += " --no-overlap-p2p-communication";
  if (c.tp_comm_overlap) a += " --tp-comm-overlap";
  if (c.zero > 0) a += fmt::format(" --deepspeed --zero-stage {}  # Megatron-DeepSpeed", c.zero);
  if (c.fsdp == workload::FsdpMode::FullShard) a += " --use-torch-fsdp2";
  if (c.fsdp == workload::FsdpMode::HybridShard)
    a += "  # hybrid-shard FSDP: PyTorch FSDP's HYBRID_SHARD, no Megatron-LM flag";
  return a;
}

}  // namespace simtrain::plan
