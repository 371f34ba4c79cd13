// Builds a cluster spec's SimGrid zones (one host per GPU) through the s4u C++ API, or loads a SimGrid XML
// platform, and returns the GPU hosts in rank order.
#include "simulator/platform/simgrid_platform.h"

#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "common/error.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// Builds the zone tree in O(GPUs). SimGrid 3.32 makes two things cost O(size of the tree under the root):
// checking that a new host or link name is unique (a search of every zone), and sealing a zone (a scan of
// every host, to seal its own). Built in place, 2048 nodes x 8 GPUs took 23 s. So zones are created
// detached from the root (with the root's models, which creating a host or link needs) and attached
// bottom-up at the end, each sealed as soon as it is attached to a parent that is itself still detached;
// the root's few children come last. Both searches then see almost nothing. Names are unique by
// construction, so the weakened check costs nothing; hosts and links, which the detached zones' seals
// cannot find, are sealed where they are made. 2048 x 8 now builds in about 0.3 s.
class ZoneTree {
 public:
  explicit ZoneTree(sg4::NetZone* root) : root_(root) {}

  sg4::NetZone* root() const { return root_; }

  sg4::NetZone* create_zone(const std::string& name) {
    sg4::NetZone* zone = sg4::create_star_zone(name);
    auto* impl = zone->get_impl();
    const auto* models = root_->get_impl();
    impl->set_network_model(models->get_network_model());
    impl->set_cpu_pm_model(models->get_cpu_pm_model());
    impl->set_cpu_vm_model(models->get_cpu_vm_model());
    impl->set_disk_model(models->get_disk_model());
    impl->set_host_model(models->get_host_model());
    return zone;
  }

  // Connects `child` (reached through its router `gateway`) to the star zone `parent` by a split-duplex
  // uplink created now, so that both directions run at full rate at once; without a link when `uplink` is
  // null. The route is added in finish(), once `child` is attached.
  void connect(sg4::NetZone* parent, sg4::NetZone* child, NetPoint* gateway, const std::string& uplink_name,
               double bandwidth_Bps, double latency_s) {
    sg4::Link* uplink = nullptr;
    if (!uplink_name.empty()) {
      uplink = parent->create_split_duplex_link(uplink_name, bandwidth_Bps);
      uplink->set_latency(latency_s)->seal();
    }
    connections_.push_back({parent, child, gateway, uplink});
  }

  // A switch router as the gateway of `owner`, a zone holding sub-zones (a leaf, a pod). SimGrid 3.32's
  // route search cannot go from a host nested two zones down to a router placed directly in an ancestor
  // zone (find_common_ancestors stops one level short and looks the host up in the wrong zone), so the
  // router gets a zone of its own, connected to its owner with no link: every search is then between
  // sibling zones.
  NetPoint* create_switch(sg4::NetZone* owner, const std::string& name) {
    sg4::NetZone* zone = create_zone(name + "-zone");
    NetPoint* router = zone->create_router(name);
    connect(owner, zone, router, "", 0, 0);
    return router;
  }

  // Connections were made children first, so attaching in that order is bottom-up. The root's own
  // children come last: once one is attached, every later seal scans its hosts.
  void finish() {
    for (const bool to_root : {false, true}) {
      for (const Connection& c : connections_) {
        if ((c.parent == root_) != to_root) continue;
        c.child->set_parent(c.parent);
        std::vector<sg4::LinkInRoute> links;
        if (c.uplink) links.emplace_back(c.uplink, sg4::LinkInRoute::Direction::UP);
        c.parent->add_route(c.child->get_netpoint(), nullptr, c.gateway, nullptr, links, true);
        c.child->seal();
      }
    }
    root_->seal();
  }

 private:
  struct Connection {
    sg4::NetZone* parent;
    sg4::NetZone* child;
    NetPoint* gateway;
    sg4::Link* uplink;
  };
  sg4::NetZone* root_;
  std::vector<Connection> connections_;
};

// Latency conventions, so that every switch on a path is counted exactly once and every NIC once per end:
// a node's uplink carries one NIC traversal plus half of the first switch above it; a leaf's or pod's
// uplink carries half of the switch below and half of the switch above (one switch latency in total).
// Then two GPUs under the same leaf see 2 NIC + 1 switch, under different leaves 2 NIC + 3 switches, in
// different pods 2 NIC + 5 switches.
double node_uplink_latency_s(const ClusterSpec& spec) {
  return spec.nics.latency_s + spec.fabric.switch_latency_s / 2;
}

// One node under `parent`: a star zone whose centre is the NVSwitch (or the PCIe switch, or the NVLink
// mesh seen as one hop) and whose gateway is that switch. Each GPU reaches the centre through its own
// split-duplex link carrying half the GPU-to-GPU latency, so that a GPU-to-GPU route (two links) has the
// spec's latency. The node's NICs are one uplink of their summed bandwidth. Returns that bandwidth.
double build_node(const ClusterSpec& spec, int node, sg4::NetZone* parent, ZoneTree& tree,
                  std::vector<sg4::Host*>& hosts) {
  const std::string name = "node" + std::to_string(node);
  sg4::NetZone* zone = tree.create_zone(name);
  for (int gpu = 0; gpu < spec.gpus_per_node; ++gpu) {
    const std::string host_name = name + "-gpu" + std::to_string(gpu);
    sg4::Host* host = zone->create_host(host_name, kHostSpeedFlops)->seal();
    sg4::Link* link = zone->create_split_duplex_link(host_name + "-link", spec.intra_node.bandwidth_Bps);
    link->set_latency(spec.intra_node.latency_s / 2)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {{link, sg4::LinkInRoute::Direction::UP}}, true);
    hosts.push_back(host);
  }
  const double uplink_Bps = spec.nics.count * spec.nics.bandwidth_Bps;
  tree.connect(parent, zone, zone->create_router(name + "-switch"), name + "-uplink", uplink_Bps,
               node_uplink_latency_s(spec));
  return uplink_Bps;
}

// Leaves [first_leaf, last_leaf) of nodes_per_leaf nodes each under `parent`, each connected by one
// aggregated uplink whose bandwidth is the leaf's node bandwidth over the leaf oversubscription, and one
// switch latency. Returns the sum of those uplinks.
double build_leaves(const ClusterSpec& spec, int first_leaf, int last_leaf, sg4::NetZone* parent,
                    ZoneTree& tree, std::vector<sg4::Host*>& hosts) {
  const int per_leaf = spec.fabric.nodes_per_leaf;
  double total_Bps = 0;
  for (int leaf = first_leaf; leaf < last_leaf; ++leaf) {
    const std::string name = "leaf" + std::to_string(leaf);
    sg4::NetZone* zone = tree.create_zone(name);
    double below_Bps = 0;
    for (int node = leaf * per_leaf; node < std::min(spec.nodes, (leaf + 1) * per_leaf); ++node) {
      below_Bps += build_node(spec, node, zone, tree, hosts);
    }
    const double uplink_Bps = below_Bps / spec.fabric.leaf_oversubscription;
    tree.connect(parent, zone, tree.create_switch(zone, name + "-switch"), name + "-uplink", uplink_Bps,
                 spec.fabric.switch_latency_s);
    total_Bps += uplink_Bps;
  }
  return total_Bps;
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

constexpr int kStarGroupNodes = 64;

}  // namespace

void configure_exact_network(sg4::Engine& engine) {
  // LV08 (the default) multiplies latencies by 13.01 and bandwidths by 0.97, adds reverse-direction
  // acknowledgement traffic and caps each flow by a TCP window; CM02 without cross-traffic and with the
  // window cap off gives transfer time = route latency + size / bottleneck share, which calibrated NCCL
  // efficiencies can then be layered on explicitly. The factors are CM02's defaults but are pinned here so a
  // user's --cfg cannot leave LV08's values in place.
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  engine.set_config("network/TCP-gamma:0");
  engine.set_config("network/latency-factor:1");
  engine.set_config("network/bandwidth-factor:1");
  engine.set_config("network/weight-S:0");
}

// The fabric is a tree of aggregated links: a node's NICs are one uplink, a leaf's uplinks to the spines
// are one link, a pod's uplinks to the core are one link. This keeps a route O(depth) long and the platform
// O(GPUs) in size at 16k GPUs, while still capturing contention on a node's NICs and oversubscription at
// leaf and spine. Per-port ECMP (flows of one leaf hashed onto different spines) is left for later.
BuiltPlatform build_platform(const ClusterSpec& spec, sg4::Engine& engine) {
  // SimGrid 3.32 makes the first zone created the root; a second platform cannot join it.
  if (engine.get_host_count() != 0) throw Error("build_platform: this SimGrid engine already has a platform");
  BuiltPlatform built;
  built.nodes = spec.nodes;
  built.gpus_per_node = spec.gpus_per_node;
  built.intra_node_bandwidth_Bps = spec.intra_node.bandwidth_Bps;
  built.intra_node_latency_s = spec.intra_node.latency_s;
  built.nvls_bandwidth_Bps = spec.intra_node.bandwidth_Bps * spec.intra_node.nvls_efficiency;
  built.nvls_latency_s = spec.intra_node.nvls_latency_s;
  built.nvls_step_latency_s = spec.intra_node.nvls_step_latency_s;
  built.ll128_step_latency_s = spec.intra_node.ll128_step_latency_s;
  built.ll128_bandwidth_fraction = spec.intra_node.ll128_bandwidth_fraction;
  built.simple_step_latency_s = spec.intra_node.simple_step_latency_s;
  built.gpu = spec.gpu;
  built.gpu_hosts.reserve(static_cast<size_t>(spec.gpu_count()));

  const FabricSpec& fabric = spec.fabric;
  // The root is the top switch: the star's only switch, the spine of a 2-level tree, the core of a 3-level.
  const bool star = fabric.topology == FabricTopology::Star;
  ZoneTree tree(sg4::create_star_zone(star ? "switch" : fabric.levels == 2 ? "spine" : "core"));
  const int leaves = star ? 0 : ceil_div(spec.nodes, fabric.nodes_per_leaf);
  if (star) {
    // Nodes go into link-less groups under the switch, which add nothing to any route but keep the root's
    // children few (each one attached to the root costs a scan of every host; see ZoneTree).
    for (int group = 0; group < ceil_div(spec.nodes, kStarGroupNodes); ++group) {
      const std::string name = "group" + std::to_string(group);
      sg4::NetZone* zone = tree.create_zone(name);
      for (int node = group * kStarGroupNodes; node < std::min(spec.nodes, (group + 1) * kStarGroupNodes);
           ++node) {
        build_node(spec, node, zone, tree, built.gpu_hosts);
      }
      tree.connect(tree.root(), zone, tree.create_switch(zone, name + "-port"), "", 0, 0);
    }
  } else if (fabric.levels == 2) {
    build_leaves(spec, 0, leaves, tree.root(), tree, built.gpu_hosts);
  } else {
    for (int pod = 0; pod < ceil_div(leaves, fabric.leaves_per_pod); ++pod) {
      const std::string name = "pod" + std::to_string(pod);
      sg4::NetZone* zone = tree.create_zone(name);
      const int first = pod * fabric.leaves_per_pod;
      const double below_Bps = build_leaves(spec, first, std::min(leaves, first + fabric.leaves_per_pod),
                                            zone, tree, built.gpu_hosts);
      tree.connect(tree.root(), zone, tree.create_switch(zone, name + "-switch"), name + "-uplink",
                   below_Bps / fabric.spine_oversubscription, fabric.switch_latency_s);
    }
  }
  tree.finish();
  return built;
}

// XML platforms: the GPU hosts are found by name (see the header); everything else in the file (routers,
// CPU hosts, storage) is left alone. The intra-node figures are read off the route between the first two
// GPUs of node 0: bottleneck bandwidth and total latency, or 0 when a node has a single GPU.
BuiltPlatform load_simgrid_xml(const std::string& path, int gpus_per_node, sg4::Engine& engine) {
  if (gpus_per_node <= 0) throw Error(path, 0, "gpus_per_node", "must be positive");
  try {
    engine.load_platform(path);
  } catch (const std::exception& error) {
    throw Error(path, 0, "", std::string("cannot load the SimGrid platform: ") + error.what());
  }

  static const std::regex kGpuHostName(R"(node(0|[1-9][0-9]*)-gpu(0|[1-9][0-9]*))");
  std::map<long, sg4::Host*> by_rank;
  long max_node = -1;
  for (sg4::Host* host : engine.get_all_hosts()) {
    std::smatch match;
    const std::string& name = host->get_name();
    if (!std::regex_match(name, match, kGpuHostName)) continue;
    const long node = std::stol(match[1]);
    const long gpu = std::stol(match[2]);
    if (gpu >= gpus_per_node) {
      throw Error(
          path, 0, "",
          "host " + name + " has a GPU index beyond gpus_per_node = " + std::to_string(gpus_per_node));
    }
    if (node > std::numeric_limits<int>::max() / gpus_per_node)
      throw Error(path, 0, "", "host " + name + ": node index too large");
    by_rank[node * gpus_per_node + gpu] = host;
    max_node = std::max(max_node, node);
  }
  if (by_rank.empty()) {
    throw Error(path, 0, "", "no GPU hosts: GPU hosts must be named node<N>-gpu<G> (e.g. node0-gpu0)");
  }
  const long expected = (max_node + 1) * gpus_per_node;
  for (long rank = 0; rank < expected; ++rank) {
    if (by_rank.count(rank) == 0) {
      throw Error(path, 0, "",
                  "missing GPU host node" + std::to_string(rank / gpus_per_node) + "-gpu" +
                      std::to_string(rank % gpus_per_node) + " (nodes must be numbered from 0, each with " +
                      std::to_string(gpus_per_node) + " GPUs)");
    }
  }

  BuiltPlatform built;
  built.nodes = static_cast<int>(max_node + 1);
  built.gpus_per_node = gpus_per_node;
  for (const auto& [rank, host] : by_rank) built.gpu_hosts.push_back(host);
  if (gpus_per_node > 1) {
    std::vector<sg4::Link*> links;
    double latency_s = 0;
    built.gpu_hosts[0]->route_to(built.gpu_hosts[1], links, &latency_s);
    double bottleneck_Bps = 0;
    for (const sg4::Link* link : links) {
      const double bandwidth_Bps = link->get_bandwidth();
      if (bottleneck_Bps == 0 || bandwidth_Bps < bottleneck_Bps) bottleneck_Bps = bandwidth_Bps;
    }
    built.intra_node_bandwidth_Bps = bottleneck_Bps;
    built.intra_node_latency_s = latency_s;
  }
  return built;
}

}  // namespace simtrain::platform
