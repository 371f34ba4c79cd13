// simtrain platforms: the shipped cluster specs (list, show NAME|FILE).
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/nccl_tuner_plugin.h"
#include "simulator/cli/commands.h"
#include "simulator/platform/cluster_spec.h"

namespace simtrain::cli {
namespace {

std::string describe_pcie(const platform::PcieTreeSpec& p) {
  std::string text = fmt::format("  PCIe tree: {} socket(s), host bridge {:.0f} GB/s per direction",
                                 p.sockets, p.host_bridge_Bps / 1e9);
  if (p.gpus_per_switch)
    text += fmt::format(", {} GPUs per PCIe switch (uplink {:.0f} GB/s)", p.gpus_per_switch,
                        p.switch_uplink_Bps / 1e9);
  if (p.sockets == 2) text += fmt::format(", socket link {:.1f} GB/s", p.socket_link_Bps / 1e9);
  return text + "\n";
}

std::string describe_fabric(const platform::FabricSpec& f) {
  switch (f.topology) {
    case platform::FabricTopology::Star:
      return "  single non-blocking switch\n";
    case platform::FabricTopology::FatTree:
      return fmt::format("  {}-level {}fat-tree, {} nodes per leaf, oversubscription {} (leaf) {} (spine)\n",
                         f.levels, f.rail_optimized ? "rail-optimized " : "", f.nodes_per_leaf,
                         f.leaf_oversubscription, f.spine_oversubscription);
    case platform::FabricTopology::Dragonfly: {
      const platform::DragonflySpec& d = f.dragonfly;
      return fmt::format(
          "  dragonfly: {} groups ({} links between two), {} chassis per group ({}), {} routers per chassis "
          "({}), "
          "{} nodes per router; links {:.0f} Gb/s, {:.2f} us\n",
          d.groups, d.group_links, d.chassis_per_group, d.chassis_links, d.routers_per_chassis,
          d.router_links, d.nodes_per_router, f.link_bandwidth_Bps * 8 / 1e9, f.link_latency_s * 1e6);
    }
    case platform::FabricTopology::Torus:
      return fmt::format("  torus {}; links {:.0f} Gb/s, {:.2f} us per hop\n",
                         fmt::join(f.torus_dimensions, "x"), f.link_bandwidth_Bps * 8 / 1e9,
                         f.link_latency_s * 1e6);
  }
  return "";
}

}  // namespace

int platforms_command(const Arguments& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: simtrain platforms [list] [--json] | simtrain platforms show NAME|FILE\n";
    return 0;
  }
  const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (json && !(args.size() == 1 || (args.size() == 2 && args[0] == "list")))
    throw Error("platforms: --json goes with 'list' (simtrain platforms list --json)");
  if (json) {
    nlohmann::ordered_json platforms = nlohmann::ordered_json::array();
    for (const std::string& name : platform::shipped_platform_names()) {
      const platform::ClusterSpec spec = platform::load_cluster_spec(name);
      platforms.push_back({{"name", name},
                           {"description", spec.description},
                           {"gpu", spec.gpu},
                           {"nodes", spec.nodes},
                           {"gpus_per_node", spec.gpus_per_node},
                           {"intra_node_Bps", spec.intra_node.bandwidth_Bps},
                           {"nics_per_node", spec.nics.count},
                           {"nic_Bps", spec.nics.bandwidth_Bps}});
    }
    std::cout << platforms.dump(1) << "\n";
    return 0;
  }
  if (args.empty() || args[0] == "list") {
    for (const std::string& name : platform::shipped_platform_names()) {
      platform::ClusterSpec spec = platform::load_cluster_spec(name);
      std::cout << fmt::format("{:<18} {}\n", name, spec.description);
    }
    return 0;
  }
  if (args[0] != "show" || args.size() < 2) throw Error("platforms: expected 'list' or 'show NAME|FILE'");
  platform::ClusterSpec s = platform::load_cluster_spec(args[1]);
  std::cout << fmt::format("{}: {}\n", s.name, s.description);
  std::cout << fmt::format("  {} node(s) x {} GPUs ({}), intra-node {:.0f} GB/s per GPU per direction\n",
                           s.nodes, s.gpus_per_node, s.gpu, s.intra_node.bandwidth_Bps / 1e9);
  std::cout << fmt::format(
      "  {} NIC(s) x {:.0f} Gb/s per node{}\n", s.nics.count, s.nics.bandwidth_Bps * 8 / 1e9,
      s.nics.sharp ? ", switches reducing in the network (SHARP: --nccl-collnet-enable)" : "");
  if (s.nics.tuner_plugin != NcclTunerPlugin::None)
    std::cout << fmt::format("  NCCL tuner plugin {}: its regions choose algorithm and protocol\n",
                             to_string(s.nics.tuner_plugin));
  if (s.intra_node.fabric == platform::IntraNodeFabric::PCIe) std::cout << describe_pcie(s.intra_node.pcie);
  std::cout << describe_fabric(s.fabric);
  return 0;
}

}  // namespace simtrain::cli
