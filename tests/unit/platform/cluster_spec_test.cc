// Cluster specs: the shipped ones parse to their datasheet figures, and each kind of bad input is reported
// with file, line and field.
#include "simulator/platform/cluster_spec.h"

#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.h"
#include "tests/support/spec_text.h"

using simtrain::Error;
using simtrain::NcclTunerPlugin;
using namespace simtrain::platform;
using simtrain::testing::check_error;
using simtrain::testing::replace;

namespace {

// A valid spec; the bad-input tests each change one line of it.
const std::string kValid = R"(name = "test"
nodes = 4
gpus_per_node = 8
gpu = "a100-sxm4-80gb"
[intra_node]
fabric = "nvswitch"
bandwidth_GBps = 300
latency_us = 0.7
[nics]
count = 8
bandwidth_Gbps = 200
latency_us = 1.0
[fabric]
topology = "fat-tree"
levels = 2
nodes_per_leaf = 2
leaf_oversubscription = 1.0
switch_latency_us = 0.3
)";

}  // namespace

TEST_CASE("every shipped spec parses") {
  const auto names = shipped_platform_names();
  for (const char* expected : {"dgx-1-v100", "dgx-a100", "dgx-b200", "dgx-h100", "dgx-h100-superpod",
                               "dragonfly-a100", "hgx-h200", "pcie-p100", "pcie-v100", "torus-h100"}) {
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  for (const auto& name : names) {
    INFO(name);
    const ClusterSpec spec = load_cluster_spec(name);
    CHECK(spec.name == name);
    // An HGX-style node has 8 GPUs; an NVL72 spec's node is its NVLink domain (OCI's 16 hosts of 4 GPUs).
    CHECK((spec.gpus_per_node == 8 ||
           ((name.find("nvl72") != std::string::npos || name.starts_with("dgx-gb")) &&
            spec.gpus_per_node == 64)));
    CHECK(!spec.description.empty());
    CHECK((spec.gpus_per_node % spec.nics.count == 0 || spec.nics.count % spec.gpus_per_node == 0));
  }
}

TEST_CASE("shipped specs carry the datasheet figures in bytes and seconds") {
  const ClusterSpec h100 = load_cluster_spec("dgx-h100");
  CHECK(h100.gpu == "h100-sxm5");
  CHECK(h100.intra_node.fabric == IntraNodeFabric::NVSwitch);
  CHECK(h100.intra_node.bandwidth_Bps == 450e9);
  CHECK(h100.nics.count == 8);
  CHECK(h100.nics.bandwidth_Bps == 50e9);  // 400 Gb/s
  CHECK(h100.fabric.topology == FabricTopology::FatTree);
  CHECK(h100.fabric.levels == 2);
  CHECK(h100.fabric.nodes_per_leaf == 16);

  const ClusterSpec dgx1 = load_cluster_spec("dgx-1-v100");
  CHECK(dgx1.intra_node.fabric == IntraNodeFabric::NVLinkMesh);
  CHECK(dgx1.intra_node.bandwidth_Bps == 150e9);
  CHECK(dgx1.nics.count == 4);
  CHECK(dgx1.nics.bandwidth_Bps == 12.5e9);  // EDR 100 Gb/s

  const ClusterSpec pcie = load_cluster_spec("pcie-v100");
  CHECK(pcie.intra_node.fabric == IntraNodeFabric::PCIe);
  CHECK(pcie.fabric.topology == FabricTopology::Star);
  CHECK(pcie.nics.count == 1);

  CHECK(load_cluster_spec("dgx-b200").intra_node.bandwidth_Bps == 900e9);
  CHECK(load_cluster_spec("dgx-a100").nics.bandwidth_Bps == 25e9);
}

TEST_CASE("a spec parses to SI units, and a three-level fat-tree reads its pod figures") {
  const ClusterSpec spec = parse_cluster_spec(kValid, "ok.toml");
  CHECK(spec.source_file == "ok.toml");
  CHECK(spec.gpu_count() == 32);
  CHECK(spec.intra_node.latency_s == simtrain::testing::Approx(0.7e-6).epsilon(1e-12));
  CHECK(spec.fabric.switch_latency_s == simtrain::testing::Approx(0.3e-6).epsilon(1e-12));

  const ClusterSpec three = parse_cluster_spec(
      replace(kValid, "levels = 2", "levels = 3\nleaves_per_pod = 4\nspine_oversubscription = 2"), "ok.toml");
  CHECK(three.fabric.levels == 3);
  CHECK(three.fabric.leaves_per_pod == 4);
  CHECK(three.fabric.spine_oversubscription == 2.0);
}

TEST_CASE("unknown keys and tables are errors naming the key") {
  check_error(replace(kValid, "nodes = 4", "nodes = 4\nnode = 4"), 3, "node", "unknown key");
  check_error(kValid + "[rails]\ncount = 8\n", 19, "rails", "unknown key");
  check_error(replace(kValid, "count = 8", "count = 8\nbandwith_Gbps = 200"), 11, "nics.bandwith_Gbps",
              "unknown key");
}

TEST_CASE("wrong types and missing keys are errors naming the field") {
  check_error(replace(kValid, "nodes = 4", "nodes = \"4\""), 2, "nodes", "expected an integer");
  check_error(replace(kValid, "nodes = 4", "nodes = 4.0"), 2, "nodes", "expected an integer");
  check_error(replace(kValid, "bandwidth_GBps = 300", "bandwidth_GBps = \"300\""), 7,
              "intra_node.bandwidth_GBps", "expected a number");
  check_error(replace(kValid, "gpu = \"a100-sxm4-80gb\"\n", ""), 1, "gpu", "missing");
  check_error(replace(kValid, "latency_us = 1.0\n", ""), 9, "nics.latency_us", "missing");
  const std::string nics_table = "[nics]\ncount = 8\nbandwidth_Gbps = 200\nlatency_us = 1.0\n";
  check_error(
      replace(replace(kValid, nics_table, ""), "gpu = \"a100-sxm4-80gb\"", "gpu = \"a100\"\nnics = 8"), 5,
      "nics", "expected a table");
}

TEST_CASE("impossible values are errors naming the field") {
  check_error(replace(kValid, "nodes = 4", "nodes = 0"), 2, "nodes", "positive");
  check_error(replace(kValid, "gpu = \"a100-sxm4-80gb\"", "gpu = \"a100-sxm4-80gb\"\ngpu_clock_mhz = -1"), 5,
              "gpu_clock_mhz", "positive");
  check_error(replace(kValid, "gpu = \"a100-sxm4-80gb\"", "gpu = \"a100-sxm4-80gb\"\ngpu_clock_mhz = 1e9"), 5,
              "gpu_clock_mhz", "at most 10000");
  const auto with_power = [](const char* line) {
    return replace(kValid, "gpu = \"a100-sxm4-80gb\"", std::string("gpu = \"a100-sxm4-80gb\"\n") + line);
  };
  check_error(with_power("gpu_power_limit_w = -5"), 5, "gpu_power_limit_w", "positive");
  check_error(with_power("gpu_power_limit_w = 1e6"), 5, "gpu_power_limit_w", "at most 10000");
  // 10^9 nodes x 8 GPUs overflowed gpu_count()'s int: more GPUs than simtrain simulates.
  check_error(replace(kValid, "nodes = 4", "nodes = 1000000000"), 3, "gpus_per_node",
              "1000000000 nodes of 8 GPUs exceed the limit of 1048576 GPUs");
  check_error(replace(kValid, "bandwidth_GBps = 300", "bandwidth_GBps = -300"), 7,
              "intra_node.bandwidth_GBps", "positive");
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = nan"), 8, "intra_node.latency_us", "finite");
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = inf"), 8, "intra_node.latency_us", "finite");
  check_error(replace(kValid, "\"nvswitch\"", "\"infiniband\""), 6, "intra_node.fabric", "nvswitch");
  check_error(replace(kValid, "\"fat-tree\"", "\"hypercube\""), 14, "fabric.topology", "unknown value");
  check_error(replace(kValid, "levels = 2", "levels = 4"), 15, "fabric.levels", "2 or 3");
  check_error(replace(kValid, "leaf_oversubscription = 1.0", "leaf_oversubscription = 0.5"), 17,
              "fabric.leaf_oversubscription", "at least 1");
  check_error(replace(kValid, "count = 8", "count = 3"), 10, "nics.count", "do not divide");
  check_error(replace(kValid, "levels = 2", "levels = 3"), 13, "fabric.leaves_per_pod", "missing");
  check_error(replace(kValid, "levels = 2", "levels = 2\nleaves_per_pod = 4"), 16, "fabric.leaves_per_pod",
              "levels = 3");
  check_error(replace(kValid, "topology = \"fat-tree\"", "topology = \"star\""), 15, "fabric.levels",
              "fat-tree");
  check_error(
      replace(kValid, "latency_us = 0.7", "latency_us = 0.7\nnvls_efficiency = 1.5\nnvls_latency_us = 20"), 9,
      "intra_node.nvls_efficiency", "(0, 1]");
  check_error(replace(replace(kValid, "\"nvswitch\"", "\"pcie\""), "latency_us = 0.7",
                      "latency_us = 0.7\nnvls_efficiency = 0.6\nnvls_latency_us = 20"),
              9, "intra_node.nvls_efficiency", "nvswitch");
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = 0.7\nnvls_efficiency = 0.6"), 5,
              "intra_node.nvls_latency_us", "missing");
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = 0.7\nnvls_step_latency_us = 3"), 9,
              "intra_node.nvls_step_latency_us", "needs nvls_efficiency");
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = 0.7\nmulti_node_nvlink = true"), 9,
              "intra_node.multi_node_nvlink", "needs nvls_efficiency");
  check_error(replace(kValid, "latency_us = 0.7",
                      "latency_us = 0.7\nnvls_efficiency = 0.6\nnvls_latency_us = 20\nnvls_tree_channels = 40"),
              11, "intra_node.nvls_tree_channels", "at most 32");
  check_error(replace(kValid, "latency_us = 0.7",
                      "latency_us = 0.7\nll_step_latency_us = 1\nll_bandwidth_fraction = 0.3"),
              9, "intra_node.ll_step_latency_us", "needs the LL128 and Simple figures");
  check_error(replace(kValid, "latency_us = 0.7",
                      "latency_us = 0.7\nll128_step_latency_us = 2\nll128_bandwidth_fraction = 1.5\n"
                      "simple_step_latency_us = 12"),
              10, "intra_node.ll128_bandwidth_fraction", "(0, 1]");
}

TEST_CASE("NCCL's efficiencies and network costs are optional, and checked where given") {
  const ClusterSpec plain = parse_cluster_spec(kValid, "test.toml");
  CHECK(plain.intra_node.nccl_efficiency == 0);
  CHECK(plain.nics.nccl_efficiency == 0);
  CHECK(plain.nics.nccl_chunk_latency_s == 0);
  CHECK(plain.nics.nccl_channel_latency_s == 0);
  CHECK(plain.nics.nccl_channels() == 16);        // two per NIC of 8
  CHECK(plain.nics.nccl_net_overhead_s == 1e-6);  // NCCL's default on Intel hosts
  CHECK(parse_cluster_spec(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_net_overhead_us = 2"),
                           "amd.toml")
            .nics.nccl_net_overhead_s == simtrain::testing::Approx(2e-6));
  const ClusterSpec efa = parse_cluster_spec(
      replace(
          kValid, "latency_us = 1.0",
          "latency_us = 1.0\nnccl_efficiency = 0.5\nnccl_chunk_latency_us = 15\nnccl_channel_latency_us = 4"),
      "test.toml");
  CHECK(efa.nics.nccl_efficiency == 0.5);
  CHECK(efa.nics.nccl_chunk_latency_s == simtrain::testing::Approx(15e-6));
  CHECK(efa.nics.nccl_channel_latency_s == simtrain::testing::Approx(4e-6));
  check_error(replace(kValid, "latency_us = 0.7", "latency_us = 0.7\nnccl_efficiency = 1.2"), 9,
              "intra_node.nccl_efficiency", "(0, 1]");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_efficiency = 0"), 13,
              "nics.nccl_efficiency", "positive");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_chunk_latency_us = -15"), 13,
              "nics.nccl_chunk_latency_us", "positive");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_channel_latency_us = nan"), 13,
              "nics.nccl_channel_latency_us", "finite");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_net_overhead_us = -1"), 13,
              "nics.nccl_net_overhead_us", "positive");
  CHECK(plain.nics.tuner_plugin == NcclTunerPlugin::None);
  CHECK(parse_cluster_spec(
            replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_tuner_plugin = \"aws-ofi-nccl-p5\""),
            "p5.toml")
            .nics.tuner_plugin == NcclTunerPlugin::AwsOfiNcclP5);
  CHECK(parse_cluster_spec(replace(kValid, "latency_us = 1.0",
                                   "latency_us = 1.0\nnccl_tuner_plugin = \"aws-ofi-nccl-p6-b200\""),
                           "p6.toml")
            .nics.tuner_plugin == NcclTunerPlugin::AwsOfiNcclP6B200);
  check_error(
      replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_tuner_plugin = \"aws-ofi-nccl-p9\""), 13,
      "nics.nccl_tuner_plugin", "aws-ofi-nccl-p5");
  CHECK(plain.nics.nccl_channel_bandwidth_Bps == 0);
  CHECK(parse_cluster_spec(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_channel_GBps = 20.5"),
                           "cx7.toml")
            .nics.nccl_channel_bandwidth_Bps == simtrain::testing::Approx(20.5e9));
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_channel_GBps = 0"), 13,
              "nics.nccl_channel_GBps", "positive");
  CHECK(plain.nics.nccl_p2p_efficiency == 0);
  CHECK(parse_cluster_spec(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_efficiency = 0.9"),
                           "cx7.toml")
            .nics.nccl_p2p_efficiency == 0.9);
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_efficiency = 1.5"), 13,
              "nics.nccl_p2p_efficiency", "(0, 1]");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_efficiency = 0"), 13,
              "nics.nccl_p2p_efficiency", "positive");
  CHECK(plain.nics.nccl_p2p_chunk_s == 0);
  CHECK(parse_cluster_spec(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_chunk_us = 2.8"),
                           "cx7.toml")
            .nics.nccl_p2p_chunk_s == simtrain::testing::Approx(2.8e-6));
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_chunk_us = 0"), 13,
              "nics.nccl_p2p_chunk_us", "positive");
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = 1.0\nnccl_p2p_chunk_us = 5000"), 13,
              "nics.nccl_p2p_chunk_us", "(0, 1000]");
}

TEST_CASE("a NIC count divides the GPUs or is a multiple of them (AWS p5: 32 NICs for 8 GPUs)") {
  CHECK(parse_cluster_spec(replace(kValid, "count = 8", "count = 32"), "p5.toml").nics.count == 32);
  CHECK(parse_cluster_spec(replace(kValid, "count = 8", "count = 4"), "p4.toml").nics.count == 4);
  check_error(replace(kValid, "count = 8", "count = 12"), 10, "nics.count",
              "12 NICs do not divide gpus_per_node = 8 and are not a multiple of it");
}

TEST_CASE("a run on part of every node keeps each GPU's NICs") {
  const ClusterSpec dgx = parse_cluster_spec(kValid, "dgx.toml");  // 8 GPUs, 8 NICs of 200 Gb/s
  const ClusterSpec one = using_gpus_per_node(dgx, 1);
  CHECK(one.gpus_per_node == 1);
  CHECK(one.nics.count == 1);
  CHECK(one.nics.bandwidth_Bps == dgx.nics.bandwidth_Bps);
  CHECK(using_gpus_per_node(dgx, 4).nics.count == 4);
  CHECK(using_gpus_per_node(dgx, 8).nics.count == 8);
  // Two GPUs per NIC (AWS p4de): two GPUs keep one NIC; three do not split.
  const ClusterSpec shared = parse_cluster_spec(replace(kValid, "count = 8", "count = 4"), "p4.toml");
  CHECK(using_gpus_per_node(shared, 2).nics.count == 1);
  CHECK_THROWS_WITH(
      using_gpus_per_node(shared, 3),
      "--gpus-per-node 3: platform 'test' shares 4 NICs among 8 GPUs, which does not split over 3");
  CHECK_THROWS_WITH(using_gpus_per_node(dgx, 9), "--gpus-per-node 9: platform 'test' has 8 GPUs per node");
  CHECK_THROWS_WITH(using_gpus_per_node(dgx, 0), "--gpus-per-node 0: platform 'test' has 8 GPUs per node");
}

TEST_CASE("NCCL's channels across the network: its rings per NIC, duplicated as its topology search does") {
  const auto channels = [](int count, double gbit_per_s) {
    NicSpec nics;
    nics.count = count;
    nics.bandwidth_Bps = gbit_per_s * 1e9 / 8;
    return nics.nccl_channels();
  };
  // More than four rings of 48 GB/s are not duplicated on Hopper and later; setup doubles them: 2 per NIC.
  CHECK(channels(8, 400) == 16);
  // Four or fewer are (ncclTopoDupChannels), then doubled again: 4 per NIC, as a node using 1, 2 or 4 of
  // its GPUs gets.
  CHECK(channels(4, 400) == 16);
  CHECK(channels(2, 400) == 8);
  CHECK(channels(1, 400) == 4);
  // Rings under 25 GB/s (200 Gb/s and slower NICs) are never duplicated.
  CHECK(channels(8, 200) == 16);
  CHECK(channels(2, 100) == 4);
  // 800 Gb/s NICs reach NCCL's 96 GB/s ring speed, which is duplicated however many rings there are.
  CHECK(channels(8, 800) == 32);
  // At most 32.
  CHECK(channels(32, 100) == 32);
  CHECK(channels(0, 400) == 0);
}

TEST_CASE("NVSwitch-3 and later specs carry NVLS; the H100 and H200 fits are the same generation's") {
  const IntraNodeSpec h100 = load_cluster_spec("dgx-h100").intra_node,
                      h200 = load_cluster_spec("hgx-h200").intra_node;
  CHECK(h100.nvls_efficiency > 0);
  CHECK(h100.nvls_step_latency_s > 0);  // NCCL's NVLS pipeline, not a plain latency-bandwidth line
  CHECK(h200.nvls_efficiency == h100.nvls_efficiency);
  CHECK(h200.nvls_latency_s == h100.nvls_latency_s);
  CHECK(h200.nvls_step_latency_s == h100.nvls_step_latency_s);
  CHECK(load_cluster_spec("dgx-a100").intra_node.nvls_efficiency == 0);  // NVSwitch-2: no NVLS
}

TEST_CASE("NVL72 specs carry NCCL's Blackwell NVLS channels and are multi-node NVLink domains; HGX keeps 16") {
  for (const char* name : {"oci-gb200-nvl72", "oci-gb300-nvl72", "dgx-gb200", "dgx-gb300"}) {
    INFO(name);
    const IntraNodeSpec nvl72 = load_cluster_spec(name).intra_node;
    CHECK(nvl72.nvls_channels == 24);       // NVLS_NCHANNELS_SM100_NVL
    CHECK(nvl72.nvls_tree_channels == 32);  // NVLS_NCHANNELS_SM100
    CHECK(nvl72.multi_node_nvlink);
    // One NVLS efficiency for the NVL72 generation (fitted on the OCI tables, tools/validate_nccl.py).
    CHECK(nvl72.nvls_efficiency == load_cluster_spec("oci-gb200-nvl72").intra_node.nvls_efficiency);
  }
  const IntraNodeSpec h100 = load_cluster_spec("dgx-h100").intra_node;
  CHECK(h100.nvls_channels == 16);  // NVLS_NCHANNELS_SM90
  CHECK(h100.nvls_tree_channels == 16);
  CHECK_FALSE(h100.multi_node_nvlink);
}

TEST_CASE("a TOML syntax error reports the line toml++ found it on") {
  check_error(replace(kValid, "latency_us = 1.0", "latency_us = = 1.0"), 12, "", "TOML syntax");
}

TEST_CASE("load_cluster_spec takes a shipped name or a path, and lists the shipped names otherwise") {
  const std::string path = std::string(SIMTRAIN_SOURCE_DIR) + "/platforms/dgx-a100.toml";
  CHECK(load_cluster_spec(path).name == "dgx-a100");
  CHECK(read_cluster_spec(path).source_file == path);
  try {
    load_cluster_spec("dgx-z900");
    FAIL("expected an Error");
  } catch (const Error& error) {
    const std::string what = error.what();
    CHECK(what.find("dgx-z900") != std::string::npos);
    CHECK(what.find("dgx-a100, dgx-b200") != std::string::npos);
  }
  CHECK_THROWS_AS(read_cluster_spec("/nonexistent/spec.toml"), Error);
}

TEST_CASE("SIMTRAIN_PLATFORM_DIR replaces the shipped directory") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("simtrain-platforms-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "mine.toml") << replace(kValid, "name = \"test\"", "name = \"mine\"");
  setenv("SIMTRAIN_PLATFORM_DIR", dir.c_str(), 1);
  CHECK(platform_directory() == dir.string());
  CHECK(shipped_platform_names() == std::vector<std::string>{"mine"});
  CHECK(load_cluster_spec("mine").gpu_count() == 32);
  unsetenv("SIMTRAIN_PLATFORM_DIR");
  std::filesystem::remove_all(dir);
  CHECK(platform_directory() == std::string(SIMTRAIN_SOURCE_DIR) + "/platforms");
}
