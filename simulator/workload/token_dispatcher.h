// Megatron-Core's MoE token dispatchers, by the names --moe-token-dispatcher-type gives them.
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

}  // namespace simtrain::workload
