// The MoE token dispatchers by Megatron's names.
#include <doctest/doctest.h>

#include "simulator/workload/token_dispatcher.h"

using namespace simtrain::workload;

TEST_CASE("each dispatcher reads back from the name it is written as; other names are refused") {
  for (TokenDispatcher d : {TokenDispatcher::AllToAll, TokenDispatcher::AllGather, TokenDispatcher::Flex}) {
    TokenDispatcher read = d == TokenDispatcher::Flex ? TokenDispatcher::AllToAll : TokenDispatcher::Flex;
    CHECK(parse_token_dispatcher(to_string(d), read));
    CHECK(read == d);
  }
  TokenDispatcher unchanged = TokenDispatcher::AllGather;
  CHECK_FALSE(parse_token_dispatcher("deepep", unchanged));
  CHECK_FALSE(parse_token_dispatcher("AllToAll", unchanged));
  CHECK(unchanged == TokenDispatcher::AllGather);
  CHECK(to_string(TokenDispatcher::AllGather) == "allgather");
}
