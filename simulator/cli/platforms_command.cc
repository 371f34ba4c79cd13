// simtrain platforms: the shipped cluster specs (list, show NAME|FILE).
#include <iostream>

#include <fmt/format.h>

#include "common/error.h"
#include "simulator/cli/commands.h"
#include "simulator/platform/cluster_spec.h"

namespace simtrain::cli {

int platforms_command(const Arguments& args) {
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "usage: simtrain platforms [list] | simtrain platforms show NAME|FILE\n";
    return 0;
  }
  if (args.empty() || args[0] == "list") {
    for (const std::string& name : platform::shipped_platform_names()) {
      platform::ClusterSpec spec = platform::load_cluster_spec(name);
      std::cout << fmt::format("{:<14} {}\n", name, spec.description);
    }
    return 0;
  }
  if (args[0] != "show" || args.size() < 2) throw Error("platforms: expected 'list' or 'show NAME|FILE'");
  platform::ClusterSpec s = platform::load_cluster_spec(args[1]);
  std::cout << fmt::format("{}: {}\n", s.name, s.description);
  std::cout << fmt::format("  {} node(s) x {} GPUs ({}), intra-node {:.0f} GB/s per GPU per direction\n",
                           s.nodes, s.gpus_per_node, s.gpu, s.intra_node.bandwidth_Bps / 1e9);
  std::cout << fmt::format("  {} NIC(s) x {:.0f} Gb/s per node\n", s.nics.count,
                           s.nics.bandwidth_Bps * 8 / 1e9);
  if (s.fabric.topology == platform::FabricTopology::FatTree)
    std::cout << fmt::format(
        "  {}-level fat-tree, {} nodes per leaf, oversubscription {} (leaf) {} (spine)\n", s.fabric.levels,
        s.fabric.nodes_per_leaf, s.fabric.leaf_oversubscription, s.fabric.spine_oversubscription);
  else
    std::cout << "  single non-blocking switch\n";
  return 0;
}

}  // namespace simtrain::cli
