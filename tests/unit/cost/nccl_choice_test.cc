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
  CHECK_THROWS_WITH_AS(
      cost::parse_nccl_algorithm("collnet", "--nccl-algo"),
      "--nccl-algo: unknown value 'collnet' (ring, tree, nvls, nvlstree, pat, collnetdirect, collnetchain)",
      Error);
  CHECK_THROWS_WITH_AS(cost::parse_nccl_protocol("", "--nccl-proto"),
                       "--nccl-proto: unknown value '' (ll, ll128, simple)", Error);
}

TEST_CASE("an NCCL version is 2.MINOR or 2.MINOR.PATCH of a release simtrain knows, 2.18 to 2.29") {
  CHECK(cost::parse_nccl_version("2.26", "v") == 26);
  CHECK(cost::parse_nccl_version("2.26.2", "v") == 26);
  CHECK(cost::parse_nccl_version("2.18.5", "v") == 18);
  CHECK(cost::parse_nccl_version("2.29", "v") == 29);
  for (const char* bad : {"2.17", "2.30", "3.0", "2", "2.", "2.26.", "2.26.2.1", "2.26x", "latest", ""}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(
        cost::parse_nccl_version(bad, "--nccl-version"),
        ("--nccl-version: unknown NCCL version '" + std::string(bad) + "' (simtrain knows 2.18 to 2.29)")
            .c_str(),
        Error);
  }
}

}  // namespace simtrain
