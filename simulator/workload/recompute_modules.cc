#include "simulator/workload/recompute_modules.h"

#include <array>

#include "simulator/workload/module_names.h"

namespace simtrain::workload {
namespace {

constexpr std::array<ModuleName, 8> kNames = {{
    {"core_attn", kRecomputeCoreAttention},
    {"layernorm", kRecomputeLayerNorm},
    {"moe_act", kRecomputeMoeActivation},
    {"mla_up_proj", kRecomputeMlaUpProjection},
    {"mlp", kRecomputeMlp},
    {"moe", kRecomputeMoe},
    {"shared_experts", kRecomputeSharedExperts},
    {"torchtitan_op", kRecomputeTorchtitanOps},
}};

}  // namespace

std::optional<RecomputeModules> parse_recompute_modules(std::string_view text, std::string* error) {
  const std::optional<RecomputeModules> modules = parse_module_names(text, kNames, error);
  if (modules && *modules == 0) {
    if (error) *error = "no module given (" + known_module_names(kNames) + ")";
    return std::nullopt;
  }
  return modules;
}

std::string recompute_modules_string(RecomputeModules modules, char separator) {
  return module_names_string(modules, kNames, separator);
}

}  // namespace simtrain::workload
