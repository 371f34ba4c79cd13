// Specification of aws-ofi-nccl's regions as simtrain reads them: the plugin's (algorithm, protocol) by
// message size and scale over 8 GPUs per node (p5: all-reduces; p5en and p6-b200: all-reduces, all-gathers
// and reduce-scatters), NCCL's own choice everywhere else.
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
  return cost::tuner_plugin_choice(NcclTunerPlugin::AwsOfiNcclP5, kind, bytes, 8 * nodes, nodes, nvls);
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

TEST_CASE(
    "p5 all-reduces over 2 GPUs per node: tree/LL128 to 1 MiB, ring/LL128 to 40 MB, NVLS-tree to 263 MiB") {
  const auto p5_two = [](double mib, bool nvls = true) {
    return cost::tuner_plugin_choice(NcclTunerPlugin::AwsOfiNcclP5, CollectiveKind::AllReduce, mib * kMiB, 8,
                                     4, nvls);  // 4 nodes of 2
  };
  CHECK(is(p5_two(0.5), NcclAlgorithm::Tree, NcclProtocol::LL128));
  CHECK(is(p5_two(16), NcclAlgorithm::Ring, NcclProtocol::LL128));
  CHECK(is(p5_two(128), NcclAlgorithm::NVLSTree, NcclProtocol::Simple));
  CHECK(is(p5_two(1024), NcclAlgorithm::Ring, NcclProtocol::Simple));
  // Without NVLS no other region holds 128 MiB at 8 ranks: NCCL decides.
  CHECK(!p5_two(128, false));
}

TEST_CASE("NCCL's own tuner decides on 2 nodes or fewer, off the plugin's shapes and for other collectives") {
  CHECK(!p5(32 * kMiB, 2));
  CHECK(!p5(8192 * kMiB, 1));
  CHECK(!p5(128 * kMiB, 8, true, CollectiveKind::AllGather));
  CHECK(!p5(128 * kMiB, 8, true, CollectiveKind::AllToAll));
  CHECK(!cost::tuner_plugin_choice(NcclTunerPlugin::AwsOfiNcclP5, CollectiveKind::AllReduce, 128 * kMiB,
                                   4 * 8, 8, true));  // 4 GPUs per node: no regions here
  CHECK(!cost::tuner_plugin_choice(NcclTunerPlugin::AwsOfiNcclP5, CollectiveKind::AllReduce, 4 * kMiB, 8, 8,
                                   true));  // 1 GPU per node: left to NCCL (ofi_tuner_geometry.h)
  CHECK(
      !cost::tuner_plugin_choice(NcclTunerPlugin::None, CollectiveKind::AllReduce, 128 * kMiB, 64, 8, true));
  // Beyond the plugin's largest size (100 GiB) it leaves the choice to NCCL.
  CHECK(!p5(200.0 * 1024 * kMiB, 8));
}

// What a plugin's regions give a collective of `mib` MiB on `nodes` nodes of 8 GPUs.
struct ExpectedOf {
  NcclTunerPlugin plugin;
  CollectiveKind kind;
  double mib;
  int nodes;
  NcclAlgorithm algorithm;
  NcclProtocol protocol;
};

TEST_CASE("p5en and p6-b200: each size band of the regions at 4 and 16 nodes") {
  const auto all_reduce = CollectiveKind::AllReduce;
  const ExpectedOf expected[] = {
      // p5en all-reduce at 32 ranks: tree/LL to 192 KiB, tree/LL128 to ~27 MiB, ring/LL128 to 280 MiB,
      // NVLS-tree to 486 MiB, then ring/Simple.
      {NcclTunerPlugin::AwsOfiNcclP5en, all_reduce, 0.0625, 4, NcclAlgorithm::Tree, NcclProtocol::LL},
      {NcclTunerPlugin::AwsOfiNcclP5en, all_reduce, 16, 4, NcclAlgorithm::Tree, NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP5en, all_reduce, 64, 4, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP5en, all_reduce, 384, 4, NcclAlgorithm::NVLSTree, NcclProtocol::Simple},
      {NcclTunerPlugin::AwsOfiNcclP5en, all_reduce, 1024, 4, NcclAlgorithm::Ring, NcclProtocol::Simple},
      // p5en reduce-scatter at 128 ranks: LL to 4.5 MiB, LL128 to 2.25 GiB, then Simple.
      {NcclTunerPlugin::AwsOfiNcclP5en, CollectiveKind::ReduceScatter, 4, 16, NcclAlgorithm::Ring,
       NcclProtocol::LL},
      {NcclTunerPlugin::AwsOfiNcclP5en, CollectiveKind::ReduceScatter, 1024, 16, NcclAlgorithm::Ring,
       NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP5en, CollectiveKind::ReduceScatter, 4096, 16, NcclAlgorithm::Ring,
       NcclProtocol::Simple},
      // p6-b200 all-reduce at 32 ranks: tree/LL to 384 KiB, tree/LL128 to 17.5 MiB, ring/LL128 (a small
      // island) to 127.5 MiB, NVLS-tree to 415 MiB, then ring/Simple.
      {NcclTunerPlugin::AwsOfiNcclP6B200, all_reduce, 0.25, 4, NcclAlgorithm::Tree, NcclProtocol::LL},
      {NcclTunerPlugin::AwsOfiNcclP6B200, all_reduce, 8, 4, NcclAlgorithm::Tree, NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP6B200, all_reduce, 64, 4, NcclAlgorithm::Ring, NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP6B200, all_reduce, 256, 4, NcclAlgorithm::NVLSTree, NcclProtocol::Simple},
      {NcclTunerPlugin::AwsOfiNcclP6B200, all_reduce, 1024, 4, NcclAlgorithm::Ring, NcclProtocol::Simple},
      // p6-b200 all-gather at 32 ranks: LL to 1.5 MiB, LL128 to 435 MiB, then Simple.
      {NcclTunerPlugin::AwsOfiNcclP6B200, CollectiveKind::AllGather, 1, 4, NcclAlgorithm::Ring,
       NcclProtocol::LL},
      {NcclTunerPlugin::AwsOfiNcclP6B200, CollectiveKind::AllGather, 64, 4, NcclAlgorithm::Ring,
       NcclProtocol::LL128},
      {NcclTunerPlugin::AwsOfiNcclP6B200, CollectiveKind::AllGather, 1024, 4, NcclAlgorithm::Ring,
       NcclProtocol::Simple},
  };
  for (const ExpectedOf& e : expected) {
    CAPTURE(cost::to_string(e.algorithm));
    CAPTURE(e.mib);
    CAPTURE(e.nodes);
    CHECK(is(cost::tuner_plugin_choice(e.plugin, e.kind, e.mib * kMiB, 8 * e.nodes, e.nodes, true),
             e.algorithm, e.protocol));
  }
  // Their regions too leave 2 nodes, all-to-alls and other shapes to NCCL.
  for (const auto plugin : {NcclTunerPlugin::AwsOfiNcclP5en, NcclTunerPlugin::AwsOfiNcclP6B200}) {
    CHECK(!cost::tuner_plugin_choice(plugin, all_reduce, 64 * kMiB, 16, 2, true));
    CHECK(!cost::tuner_plugin_choice(plugin, CollectiveKind::AllToAll, 64 * kMiB, 32, 4, true));
    CHECK(!cost::tuner_plugin_choice(plugin, all_reduce, 64 * kMiB, 16, 4, true));
  }
}

}  // namespace simtrain
