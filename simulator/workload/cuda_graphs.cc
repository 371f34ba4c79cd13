#include "simulator/workload/cuda_graphs.h"

#include <array>
#include <utility>

namespace simtrain::workload {
namespace {

constexpr std::array<std::pair<std::string_view, CudaGraphModule>, 6> kNames = {{
    {"attn", kGraphAttention},
    {"mlp", kGraphMlp},
    {"moe", kGraphMoe},
    {"moe_router", kGraphMoeRouter},
    {"moe_preprocess", kGraphMoePreprocess},
    {"mamba", kGraphMamba},
}};
constexpr std::string_view kKnown = "attn, mlp, moe, moe_router, moe_preprocess, mamba";

std::nullopt_t fail(std::string* error, std::string why) {
  if (error) *error = std::move(why);
  return std::nullopt;
}

}  // namespace

std::optional<CudaGraphs> parse_cuda_graphs(std::string_view impl, std::string_view scope,
                                            std::string* error) {
  CudaGraphs graphs;
  if (impl == "none")
    graphs.impl = CudaGraphs::Impl::None;
  else if (impl == "local" || impl == "transformer_engine")
    graphs.impl = CudaGraphs::Impl::PerLayer;
  else if (impl == "full_iteration")
    graphs.impl = CudaGraphs::Impl::FullIteration;
  else
    return fail(error, "unknown implementation '" + std::string(impl.substr(0, 64)) +
                           "' (none, local, transformer_engine, full_iteration)");
  std::size_t start = 0;
  while (start <= scope.size()) {
    const std::size_t end = scope.find_first_of(", ", start);
    const std::string_view name = scope.substr(start, end == std::string_view::npos ? end : end - start);
    if (!name.empty()) {
      bool known = false;
      for (const auto& [megatron_name, module] : kNames) {
        if (name != megatron_name) continue;
        graphs.modules |= module;
        known = true;
      }
      if (!known)
        return fail(error,
                    "unknown module '" + std::string(name.substr(0, 64)) + "' (" + std::string(kKnown) + ")");
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (graphs.modules != 0 && graphs.impl != CudaGraphs::Impl::PerLayer)
    return fail(error, "a scope needs --cuda-graph-impl local or transformer_engine");
  if ((graphs.modules & kGraphMoePreprocess) && !(graphs.modules & kGraphMoeRouter))
    return fail(error, "moe_preprocess needs moe_router");
  return graphs;
}

std::string cuda_graph_modules_string(CudaGraphModules modules) {
  std::string text;
  for (const auto& [name, module] : kNames) {
    if ((modules & module) == 0) continue;
    if (!text.empty()) text += ',';
    text += name;
  }
  return text;
}

}  // namespace simtrain::workload
