// Specification of NCCL's algorithm and protocol names: NCCL_ALGO / NCCL_PROTO spellings in any case, and
// errors that list what is accepted.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/cost/nccl_choice.h"

namespace simtrain {

TEST_CASE("algorithm and protocol names parse in any case and print back lower-case") {
  CHECK(cost::parse_nccl_algorithm("Ring", "--nccl-algo") == cost::NcclAlgorithm::Ring);
  CHECK(cost::parse_nccl_algorithm("TREE", "--nccl-algo") == cost::NcclAlgorithm::Tree);
  CHECK(cost::parse_nccl_algorithm("NVLSTree", "--nccl-algo") == cost::NcclAlgorithm::NVLSTree);
  CHECK(cost::parse_nccl_protocol("LL128", "--nccl-proto") == cost::NcclProtocol::LL128);
  CHECK(cost::parse_nccl_protocol("simple", "--nccl-proto") == cost::NcclProtocol::Simple);
  for (auto a : {cost::NcclAlgorithm::Ring, cost::NcclAlgorithm::Tree, cost::NcclAlgorithm::NVLS,
                 cost::NcclAlgorithm::NVLSTree})
    CHECK(cost::parse_nccl_algorithm(cost::to_string(a), "x") == a);
  for (auto p : {cost::NcclProtocol::LL, cost::NcclProtocol::LL128, cost::NcclProtocol::Simple})
    CHECK(cost::parse_nccl_protocol(cost::to_string(p), "x") == p);
}

TEST_CASE("an unknown name is an error naming the option and the accepted values") {
  CHECK_THROWS_WITH_AS(cost::parse_nccl_algorithm("collnet", "--nccl-algo"),
                       "--nccl-algo: unknown value 'collnet' (ring, tree, nvls, nvlstree)", Error);
  CHECK_THROWS_WITH_AS(cost::parse_nccl_protocol("", "--nccl-proto"),
                       "--nccl-proto: unknown value '' (ll, ll128, simple)", Error);
}

}  // namespace simtrain
