// Megatron-Core's CUDA graphs in training (--cuda-graph-impl, --cuda-graph-modules; Megatron-Bridge's
// cuda_graph_impl and cuda_graph_scope): the kernels of a captured region are replayed by one graph launch,
// so the host no longer dispatches them one by one. Per-layer graphs (the "local" and "transformer_engine"
// implementations) capture named parts of each layer, forward and backward; "full_iteration" captures the
// whole forward-backward pass. Megatron-Bridge's recipes choose them per model, system and release.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace simtrain::workload {

// One capture region as Megatron names it (CudaGraphModule, megatron/core/transformer/enums.py); a bit of
// CudaGraphModules. A layer step carries the regions it lies in.
enum CudaGraphModule : std::uint8_t {
  kGraphAttention = 1 << 0,      // attn: TransformerLayer._forward_attention, norm to residual
  kGraphMlp = 1 << 1,            // mlp: a dense layer's MLP block
  kGraphMoe = 1 << 2,            // moe: a MoE layer's MLP block (drop-and-pad MoE only)
  kGraphMoeRouter = 1 << 3,      // moe_router: the MoE block up to the router's top-k
  kGraphMoePreprocess = 1 << 4,  // moe_preprocess: MoELayer.preprocess, the dispatcher's permutation
  kGraphMamba = 1 << 5,          // mamba: a Mamba-2 mixer block
};
using CudaGraphModules = std::uint8_t;

// What a run captures. `modules` == 0 under per-layer graphs is Megatron's empty scope: whole layers.
struct CudaGraphs {
  enum class Impl { None, PerLayer, FullIteration };
  Impl impl = Impl::None;
  CudaGraphModules modules = 0;

  // Whether a step in `regions` runs inside a captured graph.
  bool captures(CudaGraphModules regions) const {
    if (impl == Impl::FullIteration) return true;
    if (impl == Impl::None || regions == 0) return false;
    return modules == 0 || (regions & modules) != 0;
  }
};

// Parses --cuda-graph-impl (none | local | transformer_engine | full_iteration) and --cuda-graph-scope
// (Megatron's names separated by commas or spaces; empty = whole layers); nullopt with `error` set on an
// unknown name, a scope under full_iteration or none, or moe_preprocess without moe_router (Megatron's own
// checks).
std::optional<CudaGraphs> parse_cuda_graphs(std::string_view impl, std::string_view scope,
                                            std::string* error = nullptr);
// The scope in Megatron's names joined by commas ("" for whole layers).
std::string cuda_graph_modules_string(CudaGraphModules modules);

}  // namespace simtrain::workload
