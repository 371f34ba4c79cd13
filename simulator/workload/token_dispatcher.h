// Megatron-Core's MoE token dispatchers and the flex dispatcher's backends, by the names Megatron gives them.
#pragma once

#include <string_view>

namespace simtrain::workload {

// Megatron-Core's MoE token dispatcher (--moe-token-dispatcher-type; Megatron-LM's default is allgather):
// - AllToAll (MoEAlltoAllTokenDispatcher): each token goes to the ranks of its chosen experts through NCCL's
//   all-to-all, one copy per chosen expert;
// - AllGather (MoEAllGatherTokenDispatcher): every rank all-gathers the tokens of its expert-tensor x
//   expert-parallel group and keeps those routed to its own experts; the experts' outputs go back by a
//   reduce-scatter over the same ranks;
// - Flex (DeepEP's or HybridEP's kernels): each token once to every node holding one of its experts, fanned
//   out over NVLink there (trace::NodeDedupRouting).
enum class TokenDispatcher { AllToAll, AllGather, Flex };
std::string_view to_string(TokenDispatcher dispatcher);  // "alltoall", "allgather", "flex"
// Sets `out` from one of those names; false for any other text.
bool parse_token_dispatcher(std::string_view text, TokenDispatcher& out);

// The flex dispatcher's kernels (--moe-flex-dispatcher-backend; Megatron-LM's default is deepep). Across
// nodes DeepEP's normal kernels forward over NVLink what arrives over the network as it arrives, so the two
// phases overlap (its README's H800 runs take about the longer); HybridEP's take about their sum (its
// README's H100 runs over 2-8 nodes: validation/reference/kernels/moe_flex_dispatch_rdma.csv).
enum class FlexBackend { DeepEP, HybridEP };
std::string_view to_string(FlexBackend backend);  // "deepep", "hybridep"
bool parse_flex_backend(std::string_view text, FlexBackend& out);

}  // namespace simtrain::workload
