#include "simulator/workload/recompute_modules.h"

#include <array>
#include <utility>

namespace simtrain::workload {
namespace {

constexpr std::array<std::pair<std::string_view, RecomputeModule>, 7> kNames = {{
    {"core_attn", kRecomputeCoreAttention},
    {"layernorm", kRecomputeLayerNorm},
    {"moe_act", kRecomputeMoeActivation},
    {"mla_up_proj", kRecomputeMlaUpProjection},
    {"mlp", kRecomputeMlp},
    {"moe", kRecomputeMoe},
    {"shared_experts", kRecomputeSharedExperts},
}};

}  // namespace

std::optional<RecomputeModules> parse_recompute_modules(std::string_view text, std::string* error) {
  RecomputeModules modules = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find_first_of(", ", start);
    const std::string_view name = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (!name.empty()) {
      bool known = false;
      for (const auto& [megatron_name, module] : kNames) {
        if (name != megatron_name) continue;
        modules |= module;
        known = true;
      }
      if (!known) {
        if (error)
          *error = "unknown module '" + std::string(name.substr(0, 64)) +
                   "' (core_attn, layernorm, moe_act, mla_up_proj, mlp, moe, shared_experts)";
        return std::nullopt;
      }
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (modules == 0) {
    if (error)
      *error = "no module given (core_attn, layernorm, moe_act, mla_up_proj, mlp, moe, shared_experts)";
    return std::nullopt;
  }
  return modules;
}

std::string recompute_modules_string(RecomputeModules modules, char separator) {
  std::string text;
  for (const auto& [name, module] : kNames) {
    if ((modules & module) == 0) continue;
    if (!text.empty()) text += separator;
    text += name;
  }
  return text;
}

}  // namespace simtrain::workload
