// Builds a cluster spec's SimGrid zones (one host per GPU) through the s4u C++ API, or loads a SimGrid XML
// platform, and returns the GPU hosts in rank order.
#include "simulator/platform/simgrid_platform.h"

#include <algorithm>
#include <limits>
#include <map>
#include <regex>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/platform/fabric_builders.h"
#include "simulator/platform/simgrid_xml_check.h"
#include "simulator/platform/zone_tree.h"

namespace simtrain::platform {
namespace {

namespace sg4 = simgrid::s4u;

// The per-GPU bandwidth of a ring through the GPUs of node 0 in local order, every hop sending at once: each
// link's capacity shared by the hops crossing it, the smallest share. On an NVSwitch it is a GPU's own link;
// on a PCIe tree the host bridges and the socket link may be shared. Fat-pipe links are never shared.
double node_ring_bandwidth_Bps(const std::vector<sg4::Host*>& node_gpus) {
  std::map<const sg4::Link*, int> crossings;
  for (size_t i = 0; i < node_gpus.size(); ++i) {
    std::vector<sg4::Link*> links;
    double latency_s = 0;
    node_gpus[i]->route_to(node_gpus[(i + 1) % node_gpus.size()], links, &latency_s);
    for (const sg4::Link* link : links) ++crossings[link];
  }
  double share_Bps = std::numeric_limits<double>::infinity();
  for (const auto& [link, count] : crossings) {
    const bool shared = link->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE;
    share_Bps = std::min(share_Bps, link->get_bandwidth() / (shared ? count : 1));
  }
  return share_Bps;
}

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

std::string root_zone_name(const FabricSpec& fabric) {
  switch (fabric.topology) {
    case FabricTopology::Star:
      return "switch";
    case FabricTopology::FatTree:
      return fabric.rail_optimized || fabric.levels == 2 ? "spine" : "core";
    case FabricTopology::Dragonfly:
    case FabricTopology::Torus:
      break;
  }
  return "fabric";
}

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
  built.nvls_channels = spec.intra_node.nvls_channels;
  built.nvls_tree_channels = spec.intra_node.nvls_tree_channels;
  built.multi_node_nvlink = spec.intra_node.multi_node_nvlink;
  built.ll_step_latency_s = spec.intra_node.ll_step_latency_s;
  built.ll_bandwidth_fraction = spec.intra_node.ll_bandwidth_fraction;
  built.ll128_step_latency_s = spec.intra_node.ll128_step_latency_s;
  built.ll128_bandwidth_fraction = spec.intra_node.ll128_bandwidth_fraction;
  built.simple_step_latency_s = spec.intra_node.simple_step_latency_s;
  built.nccl_network_channels = spec.nics.nccl_channels();
  built.nccl_chunk_latency_s = spec.nics.nccl_chunk_latency_s;
  built.nccl_channel_latency_s = spec.nics.nccl_channel_latency_s;
  built.nccl_net_overhead_s = spec.nics.nccl_net_overhead_s;
  built.nccl_channel_bandwidth_Bps = spec.nics.nccl_channel_bandwidth_Bps;
  built.nccl_p2p_efficiency = spec.nics.nccl_p2p_efficiency;
  built.nccl_p2p_chunk_s = spec.nics.nccl_p2p_chunk_s;
  built.gpu_nic_line_Bps = spec.nics.line_per_gpu_Bps(spec.gpus_per_node);
  built.sharp = spec.nics.sharp;
  built.tuner_plugin = spec.nics.tuner_plugin;
  built.gpu = spec.gpu;
  built.gpu_hosts.reserve(static_cast<size_t>(spec.gpu_count()));

  check_nodes_fit(spec);
  ZoneTree tree(sg4::create_star_zone(root_zone_name(spec.fabric)));
  if (spec.fabric.topology == FabricTopology::Dragonfly || spec.fabric.topology == FabricTopology::Torus)
    build_cluster_fabric(spec, tree, built.gpu_hosts);
  else if (spec.fabric.rail_optimized)
    build_rail_fabric(spec, tree, built.gpu_hosts);
  else
    build_tree_fabric(spec, tree, built.gpu_hosts);
  tree.finish();
  // What analytic intra-node collectives may use: the spec's figure, or less where the node's GPUs share a
  // link (a PCIe host bridge).
  if (spec.gpus_per_node > 1) {
    const std::vector<sg4::Host*> node0(built.gpu_hosts.begin(),
                                        built.gpu_hosts.begin() + spec.gpus_per_node);
    built.intra_node_bandwidth_Bps = std::min(built.intra_node_bandwidth_Bps, node_ring_bandwidth_Bps(node0));
  }
  return built;
}

// XML platforms: the GPU hosts are found by name (see the header); everything else in the file (routers,
// CPU hosts, storage) is left alone. The intra-node figures are read off the route between the first two
// GPUs of node 0: bottleneck bandwidth and total latency, or 0 when a node has a single GPU.
BuiltPlatform load_simgrid_xml(const std::string& path, int gpus_per_node, sg4::Engine& engine) {
  if (gpus_per_node <= 0) throw Error(path, 0, "gpus_per_node", "must be positive");
  probe_load_in_child(engine, path);
  try {
    engine.load_platform(path);
  } catch (const std::exception& error) {
    throw Error(path, 0, "", std::string("cannot load the SimGrid platform: ") + error.what());
  }
  // SimGrid accepts missing routes and impossible figures, then crashes on the first route (SIGSEGV) or
  // produces infinite times; both are checked here, before anything asks SimGrid for a route.
  const std::string xml_text = read_file(path);
  check_full_zone_routes(xml_text, path);
  check_platform_values(engine, xml_text, path);

  // At most 9 digits each: std::stol below cannot overflow, and larger indices fail the checks that follow.
  static const std::regex kGpuHostName(R"(node(0|[1-9][0-9]{0,8})-gpu(0|[1-9][0-9]{0,8}))");
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
