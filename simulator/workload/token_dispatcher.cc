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

bool parse_token_dispatcher(std::string_view text, TokenDispatcher& out) {
  for (TokenDispatcher d : {TokenDispatcher::AllToAll, TokenDispatcher::AllGather, TokenDispatcher::Flex})
    if (text == to_string(d)) {
      out = d;
      return true;
    }
  return false;
}

}  // namespace simtrain::workload
