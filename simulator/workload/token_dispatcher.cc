// Names of the MoE token dispatchers (token_dispatcher.h).
#include "simulator/workload/token_dispatcher.h"

namespace simtrain::workload {

std::string_view to_string(TokenDispatcher dispatcher) {
  switch (dispatcher) {
    case TokenDispatcher::AllToAll:
      return "alltoall";
    case TokenDispatcher::AllGather:
      return "allgather";
    case TokenDispatcher::Flex:
      return "flex";
  }
  return "alltoall";
}

std::string_view to_string(FlexBackend backend) {
  return backend == FlexBackend::HybridEP ? "hybridep" : "deepep";
}

bool parse_flex_backend(std::string_view text, FlexBackend& out) {
  for (FlexBackend b : {FlexBackend::DeepEP, FlexBackend::HybridEP})
    if (text == to_string(b)) {
      out = b;
      return true;
    }
  return false;
}

bool parse_token_dispatcher(std::string_view text, TokenDispatcher& out) {
  for (TokenDispatcher d : {TokenDispatcher::AllToAll, TokenDispatcher::AllGather, TokenDispatcher::Flex})
    if (text == to_string(d)) {
      out = d;
      return true;
    }
  return false;
}

}  // namespace simtrain::workload
