// Specification of cuda_graphs.h: Megatron's CUDA graph implementations and capture scopes.
#include <doctest/doctest.h>

#include <string>

#include "simulator/workload/cuda_graphs.h"

using namespace simtrain::workload;

TEST_CASE("the implementations: per-layer graphs of a scope, the whole iteration, or none") {
  const auto te = parse_cuda_graphs("transformer_engine", "attn,moe_router moe_preprocess");
  REQUIRE(te);
  CHECK(te->impl == CudaGraphs::Impl::PerLayer);
  CHECK(te->modules == (kGraphAttention | kGraphMoeRouter | kGraphMoePreprocess));
  CHECK(cuda_graph_modules_string(te->modules) == "attn,moe_router,moe_preprocess");
  CHECK(parse_cuda_graphs("local", "")->impl == CudaGraphs::Impl::PerLayer);
  CHECK(parse_cuda_graphs("full_iteration", "")->impl == CudaGraphs::Impl::FullIteration);
  CHECK(parse_cuda_graphs("none", "")->impl == CudaGraphs::Impl::None);
}

TEST_CASE("what a run captures: its scope's regions, every layer region when the scope is empty") {
  const CudaGraphs scoped = *parse_cuda_graphs("transformer_engine", "attn");
  CHECK(scoped.captures(kGraphAttention));
  CHECK_FALSE(scoped.captures(kGraphMoe));
  CHECK(scoped.captures(kGraphMoe | kGraphAttention));
  const CudaGraphs whole = *parse_cuda_graphs("local", "");
  CHECK(whole.captures(kGraphMoe));
  CHECK(whole.captures(kGraphMamba));
  CHECK_FALSE(whole.captures(0));  // outside any layer: the embedding, the LM head, the optimizer
  CHECK(parse_cuda_graphs("full_iteration", "")->captures(0));
  CHECK_FALSE(parse_cuda_graphs("none", "")->captures(kGraphAttention));
}

TEST_CASE(
    "Megatron's own checks: known names, a scope only for per-layer graphs, moe_preprocess after "
    "moe_router") {
  std::string why;
  CHECK_FALSE(parse_cuda_graphs("te", "", &why));
  CHECK(why.find("unknown implementation 'te'") != std::string::npos);
  CHECK_FALSE(parse_cuda_graphs("local", "attn,router", &why));
  CHECK(why.find("unknown module 'router'") != std::string::npos);
  CHECK_FALSE(parse_cuda_graphs("full_iteration", "attn", &why));
  CHECK(why.find("needs --cuda-graph-impl local or transformer_engine") != std::string::npos);
  CHECK_FALSE(parse_cuda_graphs("none", "mlp", &why));
  CHECK_FALSE(parse_cuda_graphs("transformer_engine", "moe_preprocess", &why));
  CHECK(why == "moe_preprocess needs moe_router");
}
