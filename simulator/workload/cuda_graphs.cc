#include "simulator/workload/cuda_graphs.h"

#include <array>
#include <utility>

#include "simulator/workload/module_names.h"

namespace simtrain::workload {
namespace {

constexpr std::array<ModuleName, 6> kNames = {{
    {"attn", kGraphAttention},
    {"mlp", kGraphMlp},
    {"moe", kGraphMoe},
    {"moe_router", kGraphMoeRouter},
    {"moe_preprocess", kGraphMoePreprocess},
    {"mamba", kGraphMamba},
}};

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
  const std::optional<CudaGraphModules> modules = parse_module_names(scope, kNames, error);
  if (!modules) return std::nullopt;
  graphs.modules = *modules;
  if (graphs.modules != 0 && graphs.impl != CudaGraphs::Impl::PerLayer)
    return fail(error, "a scope needs --cuda-graph-impl local or transformer_engine");
  if ((graphs.modules & kGraphMoePreprocess) && !(graphs.modules & kGraphMoeRouter))
    return fail(error, "moe_preprocess needs moe_router");
  return graphs;
}

std::string cuda_graph_modules_string(CudaGraphModules modules) {
  return module_names_string(modules, kNames, ',');
}

}  // namespace simtrain::workload
