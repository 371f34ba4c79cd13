// Specification of aws-ofi-nccl's p5 regions as simtrain reads them: the plugin's (algorithm, protocol) by
// message size and scale for all-reduces over 8 GPUs per node, NCCL's own choice everywhere else.
#include <doctest/doctest.h>

#include <optional>

#include "simulator/cost/ofi_tuner_regions.h"

namespace simtrain {
namespace {

using cost::NcclAlgorithm;
using cost::NcclProtocol;
using trace::CollectiveKind;

constexpr double kMiB = 1 << 20;

std::optional<cost::TunerPluginChoice> p5(double bytes, int nodes, bool nvls = true,
                                          CollectiveKind kind = CollectiveKind::AllReduce) {
  return cost::tuner_plugin_choice(cost::NcclTunerPlugin::AwsOfiNcclP5, kind, bytes, 8 * nodes, nodes, nvls);
}

bool is(const std::optional<cost::TunerPluginChoice>& choice, NcclAlgorithm algorithm,
        NcclProtocol protocol) {
  return choice && choice->algorithm == algorithm && choice->protocol == protocol;
}

}  // namespace

// What the p5 regions give an all-reduce of `mib` MiB on `nodes` nodes of 8 GPUs.
struct Expected {
  double mib;
  int nodes;
  NcclAlgorithm algorithm;
  NcclProtocol protocol;
};

TEST_CASE("p5 all-reduces: tree/LL128 while small, then ring/LL128, then ring/Simple or NVLS-tree") {
  const Expected expected[] = {
      // 4 nodes: the tree's edge at 36 MiB, the LL128 ring's near 1.5 GiB.
      {32, 4, NcclAlgorithm::Tree, NcclProtocol::LL128},
      {64, 4, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {1024, 4, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {2048, 4, NcclAlgorithm::Ring, NcclProtocol::Simple},
      // 8 nodes: the tree's edge at 112 MiB, the LL128 ring's at 2 GiB.
      {64, 8, NcclAlgorithm::Tree, NcclProtocol::LL128},
      {128, 8, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {2048, 8, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {4096, 8, NcclAlgorithm::Ring, NcclProtocol::Simple},
      // 16 and 32 nodes reach NVLS-tree's regions.
      {256, 16, NcclAlgorithm::Tree, NcclProtocol::LL128},
      {512, 16, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {4096, 16, NcclAlgorithm::NVLSTree, NcclProtocol::Simple},
      {8192, 16, NcclAlgorithm::Ring, NcclProtocol::Simple},
      {512, 32, NcclAlgorithm::NVLSTree, NcclProtocol::Simple},
      {2048, 32, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {8192, 32, NcclAlgorithm::NVLSTree, NcclProtocol::Simple},
  };
  for (const Expected& e : expected) {
    CAPTURE(e.mib);
    CAPTURE(e.nodes);
    CHECK(is(p5(e.mib * kMiB, e.nodes), e.algorithm, e.protocol));
  }
  // Without NVLS the point falls to the next region holding it, or to NCCL.
  const auto without = p5(4096 * kMiB, 16, false);
  CHECK(!(without && without->algorithm == NcclAlgorithm::NVLSTree));
}

TEST_CASE("NCCL's own tuner decides on 2 nodes or fewer, off the plugin's shapes and for other collectives") {
  CHECK(!p5(32 * kMiB, 2));
  CHECK(!p5(8192 * kMiB, 1));
  CHECK(!p5(128 * kMiB, 8, true, CollectiveKind::AllGather));
  CHECK(!p5(128 * kMiB, 8, true, CollectiveKind::AllToAll));
  CHECK(!cost::tuner_plugin_choice(cost::NcclTunerPlugin::AwsOfiNcclP5, CollectiveKind::AllReduce, 128 * kMiB,
                                   4 * 8, 8, true));  // 4 GPUs per node: no regions here
  CHECK(!cost::tuner_plugin_choice(cost::NcclTunerPlugin::None, CollectiveKind::AllReduce, 128 * kMiB, 64, 8,
                                   true));
  // Beyond the plugin's largest size (100 GiB) it leaves the choice to NCCL.
  CHECK(!p5(200.0 * 1024 * kMiB, 8));
}

}  // namespace simtrain
