// Megatron-Core's selective recomputation by submodule (--recompute-granularity selective
// --recompute-modules ...): which parts of a layer drop their activations after the forward pass and rerun
// their forward kernels in the backward pass. Megatron-Bridge's performance recipes pick them per model
// (GPT-OSS: layernorm and moe_act; DeepSeek-V3: mla_up_proj, sometimes mlp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simtrain::workload {

// One submodule as Megatron names it (TransformerConfig.recompute_modules); a bit of RecomputeModules.
enum RecomputeModule : std::uint8_t {
  kRecomputeCoreAttention = 1 << 0,    // core_attn: the attention kernel (its scores, when unfused)
  kRecomputeLayerNorm = 1 << 1,        // layernorm: the input and pre-MLP norms
  kRecomputeMoeActivation = 1 << 2,    // moe_act: the routed experts' activation function
  kRecomputeMlaUpProjection = 1 << 3,  // mla_up_proj: multi-latent attention's up-projections and RoPE
  kRecomputeMlp = 1 << 4,              // mlp: the dense MLP of a layer without experts
  kRecomputeMoe = 1 << 5,              // moe: the whole MoE layer, its all-to-alls included
  kRecomputeSharedExperts = 1 << 6,    // shared_experts: the MoE layer's shared experts
  // torchtitan_op: torchtitan's op-level selective checkpointing, which saves the attention's and every
  // other matmul's outputs: every pointwise op reruns, and of a dense layer's seven matmuls the second,
  // fourth and sixth (k, the output projection, up).
  kRecomputeTorchtitanOps = 1 << 7,
};
using RecomputeModules = std::uint8_t;

// Megatron's default when --recompute-modules is not given.
inline constexpr RecomputeModules kDefaultRecomputeModules = kRecomputeCoreAttention;

// Parses Megatron's names separated by commas or spaces ("core_attn,moe_act"); nullopt for an empty list or
// an unknown name, which `error` then names.
std::optional<RecomputeModules> parse_recompute_modules(std::string_view text, std::string* error = nullptr);
// The set in Megatron's names, in declaration order, joined by `separator` ("layernorm,moe_act": simtrain's
// --recompute-modules; a space: Megatron's).
std::string recompute_modules_string(RecomputeModules modules, char separator = ',');

}  // namespace simtrain::workload
