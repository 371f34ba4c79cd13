// Reads cluster specs (TOML) strictly: every mistake in a spec becomes an Error naming the file, line and
// "section.key", because a silently ignored typo would change the simulated machine. [fabric] is read by
// fabric_spec.cc.
#include "simulator/platform/cluster_spec.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/input_limits.h"
#include "common/suggest.h"
#include "common/toml_parse.h"
#include "simulator/platform/fabric_spec.h"
#include "simulator/platform/spec_section.h"

namespace simtrain::platform {
namespace {

namespace fs = std::filesystem;

constexpr double kGB = 1e9;             // bytes
constexpr double kGbToBytes = 1e9 / 8;  // 1 Gb/s = 1e9 bits/s
constexpr double kMicrosecond = 1e-6;

const std::vector<std::string_view> kPcieKeys = {"gpus_per_switch", "switch_uplink_GBps", "sockets",
                                                 "host_bridge_GBps", "socket_link_GBps"};

PcieTreeSpec read_pcie_tree(const Section& section, int gpus_per_node) {
  PcieTreeSpec tree;
  tree.host_bridge_Bps = section.number("host_bridge_GBps") * kGB;
  tree.sockets = section.positive_int_or("sockets", 1);
  if (tree.sockets > 2) section.fail("sockets", "1 or 2 sockets are modelled");
  if (section.has("gpus_per_switch")) {
    tree.gpus_per_switch = section.positive_int("gpus_per_switch");
    if (gpus_per_node % tree.gpus_per_switch != 0)
      section.fail("gpus_per_switch",
                   std::to_string(tree.gpus_per_switch) +
                       " does not divide gpus_per_node = " + std::to_string(gpus_per_node));
    tree.switch_uplink_Bps = section.number("switch_uplink_GBps") * kGB;
  } else {
    section.forbid({"switch_uplink_GBps"}, "nodes with PCIe switches (gpus_per_switch)");
  }
  // Each socket gets the same share of switches (or of GPUs when there are none).
  const int units = tree.gpus_per_switch ? gpus_per_node / tree.gpus_per_switch : gpus_per_node;
  if (units % tree.sockets != 0)
    section.fail("sockets", std::to_string(units) + (tree.gpus_per_switch ? " PCIe switches" : " GPUs") +
                                " do not split evenly between " + std::to_string(tree.sockets) + " sockets");
  if (tree.sockets == 2)
    tree.socket_link_Bps = section.number("socket_link_GBps") * kGB;
  else
    section.forbid({"socket_link_GBps"}, "sockets = 2");
  return tree;
}

// An optional efficiency in (0, 1]; 0 when absent.
double read_nccl_efficiency(const Section& section, const std::string& key = "nccl_efficiency") {
  const double efficiency = section.number_or(key, 0);
  if (efficiency > 1) section.fail(key, "must be in (0, 1]");
  return efficiency;
}

IntraNodeSpec read_intra_node(const Section& section, int gpus_per_node) {
  section.only_keys({"fabric", "bandwidth_GBps", "latency_us", "nvls_efficiency", "nvls_latency_us",
                     "nvls_step_latency_us", "nvls_channels", "nvls_tree_channels", "multi_node_nvlink",
                     "ll_step_latency_us", "ll_bandwidth_fraction",
                     "ll128_step_latency_us", "ll128_bandwidth_fraction", "simple_step_latency_us",
                     "gpus_per_switch", "switch_uplink_GBps", "sockets", "host_bridge_GBps",
                     "socket_link_GBps", "nccl_efficiency"});
  IntraNodeSpec spec;
  spec.fabric = section.choice<IntraNodeFabric>("fabric", {{"nvswitch", IntraNodeFabric::NVSwitch},
                                                           {"nvlink-mesh", IntraNodeFabric::NVLinkMesh},
                                                           {"pcie", IntraNodeFabric::PCIe}});
  spec.bandwidth_Bps = section.number("bandwidth_GBps") * kGB;
  spec.latency_s = section.number("latency_us") * kMicrosecond;
  if (section.has("nvls_efficiency") || section.has("nvls_latency_us")) {
    if (spec.fabric != IntraNodeFabric::NVSwitch)
      section.fail("nvls_efficiency", "NVLS needs fabric = \"nvswitch\"");
    spec.nvls_efficiency = section.number("nvls_efficiency");
    if (!(spec.nvls_efficiency > 0 && spec.nvls_efficiency <= 1))
      section.fail("nvls_efficiency", "must be in (0, 1]");
    spec.nvls_latency_s = section.number("nvls_latency_us") * kMicrosecond;
    if (section.has("nvls_step_latency_us"))
      spec.nvls_step_latency_s = section.number("nvls_step_latency_us") * kMicrosecond;
    for (const auto& [key, channels] : {std::pair{"nvls_channels", &spec.nvls_channels},
                                        std::pair{"nvls_tree_channels", &spec.nvls_tree_channels}}) {
      *channels = section.positive_int_or(key, *channels);
      // NCCL runs at most MAXCHANNELS = 32 channels, NVLS's among them.
      if (*channels > 32) section.fail(key, "must be at most 32 (NCCL's MAXCHANNELS)");
    }
    spec.multi_node_nvlink = section.boolean_or("multi_node_nvlink", false);
  } else {
    for (const char* key : {"nvls_step_latency_us", "nvls_channels", "nvls_tree_channels", "multi_node_nvlink"})
      if (section.has(key)) section.fail(key, "needs nvls_efficiency and nvls_latency_us");
  }
  if (section.has("ll128_step_latency_us") || section.has("ll128_bandwidth_fraction") ||
      section.has("simple_step_latency_us")) {
    spec.ll128_step_latency_s = section.number("ll128_step_latency_us") * kMicrosecond;
    spec.ll128_bandwidth_fraction = section.number("ll128_bandwidth_fraction");
    if (!(spec.ll128_bandwidth_fraction > 0 && spec.ll128_bandwidth_fraction <= 1))
      section.fail("ll128_bandwidth_fraction", "must be in (0, 1]");
    spec.simple_step_latency_s = section.number("simple_step_latency_us") * kMicrosecond;
  }
  if (section.has("ll_step_latency_us") || section.has("ll_bandwidth_fraction")) {
    if (spec.ll128_bandwidth_fraction <= 0)
      section.fail("ll_step_latency_us", "needs the LL128 and Simple figures too");
    spec.ll_step_latency_s = section.number("ll_step_latency_us") * kMicrosecond;
    spec.ll_bandwidth_fraction = section.number("ll_bandwidth_fraction");
    if (!(spec.ll_bandwidth_fraction > 0 && spec.ll_bandwidth_fraction <= 1))
      section.fail("ll_bandwidth_fraction", "must be in (0, 1]");
  }
  spec.nccl_efficiency = read_nccl_efficiency(section);
  if (spec.fabric == IntraNodeFabric::PCIe)
    spec.pcie = read_pcie_tree(section, gpus_per_node);
  else
    section.forbid(kPcieKeys, "fabric = \"pcie\"");
  return spec;
}

NicSpec read_nics(const Section& section, int gpus_per_node) {
  section.only_keys({"count", "bandwidth_Gbps", "latency_us", "nccl_efficiency", "nccl_chunk_latency_us",
                     "nccl_channel_latency_us", "nccl_net_overhead_us", "nccl_channel_GBps",
                     "nccl_p2p_efficiency", "nccl_p2p_chunk_us", "sharp", "nccl_tuner_plugin"});
  NicSpec spec;
  spec.count = section.positive_int("count");
  // Either each NIC serves the same number of GPUs (DGX: one per GPU; p4de: one per two), or each GPU has
  // the same number of NICs (AWS p5: 32 EFA NICs for 8 GPUs); anything else leaves GPUs unevenly served.
  if (gpus_per_node % spec.count != 0 && spec.count % gpus_per_node != 0) {
    section.fail("count", std::to_string(spec.count) + " NICs do not divide gpus_per_node = " +
                              std::to_string(gpus_per_node) + " and are not a multiple of it");
  }
  spec.bandwidth_Bps = section.number("bandwidth_Gbps") * kGbToBytes;
  spec.latency_s = section.number("latency_us") * kMicrosecond;
  spec.nccl_efficiency = read_nccl_efficiency(section);
  spec.nccl_chunk_latency_s = section.number_or("nccl_chunk_latency_us", 0) * kMicrosecond;
  spec.nccl_channel_latency_s = section.number_or("nccl_channel_latency_us", 0) * kMicrosecond;
  spec.nccl_net_overhead_s = section.number_or("nccl_net_overhead_us", 1.0) * kMicrosecond;
  spec.nccl_channel_bandwidth_Bps = section.number_or("nccl_channel_GBps", 0) * 1e9;
  spec.nccl_p2p_efficiency = read_nccl_efficiency(section, "nccl_p2p_efficiency");
  if (section.has("nccl_p2p_chunk_us")) {
    // A chunk's proxy work is a few microseconds; beyond a millisecond it is a typo, not a host.
    spec.nccl_p2p_chunk_s = section.number("nccl_p2p_chunk_us") * kMicrosecond;
    if (spec.nccl_p2p_chunk_s > 1e-3) section.fail("nccl_p2p_chunk_us", "must be in (0, 1000]");
  }
  spec.sharp = section.boolean_or("sharp", false);
  if (section.has("nccl_tuner_plugin")) {
    static const std::map<std::string, NcclTunerPlugin, std::less<>> kPlugins(
        std::begin(kNcclTunerPluginNames), std::end(kNcclTunerPluginNames));
    spec.tuner_plugin = section.choice("nccl_tuner_plugin", kPlugins);
  }
  return spec;
}

}  // namespace

ClusterSpec parse_cluster_spec(const std::string& toml_text, const std::string& origin) {
  const toml::table document = parse_toml(toml_text, origin);
  const Section root(document, origin, "");
  root.only_keys({"name", "description", "nodes", "gpus_per_node", "gpu", "gpu_clock_mhz",
                  "gpu_power_limit_w", "intra_node", "nics", "fabric"});

  ClusterSpec spec;
  spec.source_file = origin;
  spec.name = root.string("name");
  spec.description = root.string_or("description", "");
  spec.nodes = root.positive_int("nodes");
  spec.gpus_per_node = root.positive_int("gpus_per_node");
  // gpu_count() multiplies the two as ints, and every GPU becomes a SimGrid host.
  if (std::int64_t{spec.nodes} * spec.gpus_per_node > kMaxRanks)
    root.fail("gpus_per_node", std::to_string(spec.nodes) + " nodes of " +
                                   std::to_string(spec.gpus_per_node) + " GPUs exceed the limit of " +
                                   std::to_string(kMaxRanks) + " GPUs");
  spec.gpu = root.string("gpu");
  if (spec.gpu.empty()) root.fail("gpu", "must name a GPU profile");
  spec.gpu_clock_mhz = root.number_or("gpu_clock_mhz", 0);
  if (spec.gpu_clock_mhz > 10000) root.fail("gpu_clock_mhz", "must be at most 10000 MHz");
  spec.gpu_power_limit_w = root.number_or("gpu_power_limit_w", 0);
  if (spec.gpu_power_limit_w > 10000) root.fail("gpu_power_limit_w", "must be at most 10000 W");
  spec.intra_node = read_intra_node(root.table("intra_node"), spec.gpus_per_node);
  spec.nics = read_nics(root.table("nics"), spec.gpus_per_node);
  spec.fabric = read_fabric(root.table("fabric"), spec);
  check_nodes_fit(spec);
  return spec;
}

int FabricSpec::capacity() const {
  if (topology == FabricTopology::Dragonfly) return dragonfly.capacity();
  if (topology != FabricTopology::Torus) return 0;
  int product = 1;
  for (const int size : torus_dimensions) product *= size;
  return product;
}

void check_nodes_fit(const ClusterSpec& spec) {
  const int capacity = spec.fabric.capacity();
  if (capacity == 0 || spec.nodes <= capacity) return;
  const bool torus = spec.fabric.topology == FabricTopology::Torus;
  std::string shape;
  if (torus) {
    for (const int size : spec.fabric.torus_dimensions)
      shape += (shape.empty() ? "" : "x") + std::to_string(size);
  }
  throw Error(spec.source_file, spec.fabric.shape_line, torus ? "fabric.dimensions" : "fabric.groups",
              std::to_string(spec.nodes) + " nodes do not fit: the " +
                  (torus ? shape + " torus" : std::string("dragonfly")) + " holds " +
                  std::to_string(capacity));
}

ClusterSpec using_gpus_per_node(ClusterSpec spec, int gpus) {
  if (gpus < 1 || gpus > spec.gpus_per_node)
    throw Error("--gpus-per-node " + std::to_string(gpus) + ": platform '" + spec.name + "' has " +
                std::to_string(spec.gpus_per_node) + " GPUs per node");
  if (gpus == spec.gpus_per_node) return spec;
  if (spec.intra_node.fabric != IntraNodeFabric::NVSwitch)
    throw Error("--gpus-per-node " + std::to_string(gpus) + ": platform '" + spec.name +
                "' is not an NVSwitch node, whose GPUs could be used in part");
  if (spec.nics.count * gpus % spec.gpus_per_node != 0)
    throw Error("--gpus-per-node " + std::to_string(gpus) + ": platform '" + spec.name + "' shares " +
                std::to_string(spec.nics.count) + " NICs among " + std::to_string(spec.gpus_per_node) +
                " GPUs, which does not split over " + std::to_string(gpus));
  spec.nics.count = spec.nics.count * gpus / spec.gpus_per_node;
  spec.gpus_per_node = gpus;
  return spec;
}

ClusterSpec read_cluster_spec(const std::string& path) { return parse_cluster_spec(read_file(path), path); }

std::string platform_directory() {
  if (const char* dir = std::getenv("SIMTRAIN_PLATFORM_DIR"); dir && *dir) return dir;
  return SIMTRAIN_SOURCE_DIR "/platforms";
}

std::vector<std::string> shipped_platform_names() {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(platform_directory(), ignored)) {
    if (entry.is_regular_file(ignored) && entry.path().extension() == ".toml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string cluster_spec_path(const std::string& name_or_path) {
  const std::vector<std::string> shipped = shipped_platform_names();
  if (std::find(shipped.begin(), shipped.end(), name_or_path) != shipped.end())
    return (fs::path(platform_directory()) / (name_or_path + ".toml")).string();
  std::error_code ignored;
  if (fs::is_regular_file(name_or_path, ignored)) return name_or_path;
  std::string list;
  for (const auto& name : shipped) list += (list.empty() ? "" : ", ") + name;
  throw Error("unknown platform \"" + name_or_path + "\"" + did_you_mean(name_or_path, shipped) +
              ": neither a shipped spec (" + (list.empty() ? "none found in " + platform_directory() : list) +
              ") nor a file");
}

ClusterSpec load_cluster_spec(const std::string& name_or_path) {
  return read_cluster_spec(cluster_spec_path(name_or_path));
}

}  // namespace simtrain::platform
