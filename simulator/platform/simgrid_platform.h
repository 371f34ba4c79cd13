// Turns a cluster into SimGrid zones through the C++ API (or loads a SimGrid XML platform), and maps ranks
// to GPU hosts. Everything the engine needs to know about the machine it runs on.
#pragma once

#include <string>
#include <vector>

#include "simulator/platform/cluster_spec.h"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace simtrain::platform {

// The SimGrid side of a cluster: one host per GPU, in rank order (rank r = node r / G, local GPU r % G),
// plus the figures analytic intra-node costs need.
struct BuiltPlatform {
  std::vector<simgrid::s4u::Host*> gpu_hosts;
  int nodes = 0;
  int gpus_per_node = 0;
  double intra_node_bandwidth_Bps = 0;  // per GPU, per direction
  double intra_node_latency_s = 0;
  double nvls_bandwidth_Bps = 0;  // NVLS all-reduce algorithm bandwidth; 0 = no NVLS
  double nvls_latency_s = 0;
  double nvls_step_latency_s = 0;  // per step of NCCL's NVLS pipeline (cost/nvls_pipeline.h)
  int nvls_channels = 16, nvls_tree_channels = 16;  // IntraNodeSpec's
  bool multi_node_nvlink = false;                   // IntraNodeSpec's (cost/nvls_tree_pipeline.h)
  // NCCL's protocols inside a node (cluster_spec.h); 0 fraction = one protocol.
  double ll_step_latency_s = 0, ll_bandwidth_fraction = 0;
  double ll128_step_latency_s = 0, ll128_bandwidth_fraction = 0, simple_step_latency_s = 0;
  // NCCL's channels across the network and its network proxy's costs (cost/network_protocol.h).
  int nccl_network_channels = 0;
  double nccl_chunk_latency_s = 0, nccl_channel_latency_s = 0;
  double nccl_net_overhead_s = 1e-6;  // NicSpec::nccl_net_overhead_s
  double nccl_channel_bandwidth_Bps = 0;  // NicSpec::nccl_channel_bandwidth_Bps
  double nccl_p2p_efficiency = 0;         // NicSpec::nccl_p2p_efficiency
  double nccl_p2p_chunk_s = 0;            // NicSpec::nccl_p2p_chunk_s
  double gpu_nic_line_Bps = 0;            // a GPU's share of its node's NICs, per direction
  bool sharp = false;                     // NicSpec::sharp
  NcclTunerPlugin tuner_plugin = NcclTunerPlugin::None;  // NicSpec::tuner_plugin
  std::string gpu;                    // profile name from the spec, empty for XML platforms

  int node_of(int rank) const { return rank / gpus_per_node; }
};

// Host speed of every GPU host: compute durations are replayed as work of duration_s * kHostSpeed flops.
inline constexpr double kHostSpeedFlops = 1e9;

// Applies the network settings under which SimGrid flows are exact (CM02, no cross-traffic, no TCP window);
// must be called before the platform is created.
void configure_exact_network(simgrid::s4u::Engine& engine);

// Builds the spec's zones in `engine` (platforms/README.md, "What SimGrid sees"): per node, a star of
// NVLink links or a PCIe tree, and the node's NICs aggregated into one uplink; above the nodes a star or a
// fat-tree of aggregated switch links, a rail-optimized fat-tree (one NIC per rail), or SimGrid's dragonfly
// or torus zone. Route latencies: two GPUs of one node see intra_node.latency; two nodes on a tree see 2 NIC
// latencies plus one switch latency per switch crossed (1 under one leaf or a star, 3 across leaves, 5
// across pods), on a dragonfly or torus 2 NIC latencies plus one link latency per link. The intra-node
// bandwidth reported is the spec's, or the share a ring over a node's GPUs gets where its hops meet on a
// link (a PCIe host bridge). Throws Error if `engine` already holds a platform, or when the nodes do not
// fit a dragonfly or torus.
BuiltPlatform build_platform(const ClusterSpec& spec, simgrid::s4u::Engine& engine);

// Loads a SimGrid XML platform. Host naming rule: the GPU hosts are those whose name matches
// "node<N>-gpu<G>" (both decimal); rank = N * gpus_per_node + G. Throws Error when hosts are missing.
// (Decimal without leading zeros, at most 9 digits; other hosts are ignored. Nodes 0..max must each have G =
// 0..gpus_per_node-1.) The intra-node figures come from the route node0-gpu0 -> node0-gpu1: its bottleneck
// bandwidth and total latency; both are 0 when gpus_per_node is 1. Call configure_exact_network() first.
BuiltPlatform load_simgrid_xml(const std::string& path, int gpus_per_node, simgrid::s4u::Engine& engine);

}  // namespace simtrain::platform
