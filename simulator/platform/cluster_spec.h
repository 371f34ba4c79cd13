// The cluster spec: a description of a GPU cluster (nodes, GPUs per node, intra-node fabric, NICs, network
// fabric) read from TOML. It says what the hardware is; simgrid_platform.h turns it into SimGrid zones.
#pragma once

#include <string>
#include <vector>

#include "common/nccl_tuner_plugin.h"

namespace simtrain::platform {

enum class IntraNodeFabric { NVSwitch, NVLinkMesh, PCIe };
enum class FabricTopology { Star, FatTree, Dragonfly, Torus };

// A PCIe node's tree: GPUs on PCIe switches (or directly on the CPU's ports), switches under the host bridge
// (root complex) of their socket, sockets joined by a socket link (QPI/UPI). Every flow between a PCIe port
// and the CPU crosses the socket's host bridge, so GPU-to-GPU traffic between switches and the NICs' traffic
// (the NICs sit on socket 0's bridge) share its bandwidth.
struct PcieTreeSpec {
  int gpus_per_switch = 0;       // 0: the GPUs sit directly on the host bridge's ports
  double switch_uplink_Bps = 0;  // a PCIe switch's link to the host bridge, per direction
  int sockets = 1;               // 1 or 2; GPUs (or switches) split evenly between them
  double host_bridge_Bps = 0;    // a socket's root complex, per direction (ports -> CPU, CPU -> ports)
  double socket_link_Bps = 0;    // between the two sockets, per direction
};

// How the GPUs of one node talk to each other.
struct IntraNodeSpec {
  IntraNodeFabric fabric = IntraNodeFabric::NVSwitch;
  double bandwidth_Bps = 0;  // per GPU, per direction (NVLink4 on H100: 450e9)
  double latency_s = 0;
  // NVLink SHARP (NVLS, third-generation NVSwitch): the switch reduces, so an all-reduce moves each GPU's
  // buffer once each way. What NCCL achieves of it: algorithm bandwidth = bandwidth x nvls_efficiency, plus
  // nvls_latency_s per all-reduce. 0 efficiency = no NVLS.
  double nvls_efficiency = 0;
  double nvls_latency_s = 0;
  // The fixed cost of each step of NCCL's NVLS pipeline (cost/nvls_pipeline.h); 0 = no pipeline, the
  // all-reduce takes nvls_latency_s + bytes / (bandwidth x nvls_efficiency).
  double nvls_step_latency_s = 0;
  // NCCL's NVLS channels (transport/nvls.cc, ncclNvlsInit): inside one NVLink domain, and when a communicator
  // spans several (16 and 16 on Hopper, 24 and 32 on Blackwell).
  int nvls_channels = 16;
  int nvls_tree_channels = 16;
  // The node is a multi-node NVLink domain (NCCL's MNNVL: hosts of an NVL72 rack joined by NVLink, one NVLS
  // group): NVLS-tree across such nodes runs as its pipeline (cost/nvls_tree_pipeline.h).
  bool multi_node_nvlink = false;
  // NCCL's protocols on this fabric, for ring collectives inside a node: LL128 starts fast (a short
  // per-step latency) but reaches only a fraction of the bandwidth; Simple reaches it all after a longer
  // per-step latency; NCCL runs whichever finishes first for the size. 0 = one protocol, the profile's
  // nccl_step_latency_s.
  double ll128_step_latency_s = 0;
  double ll128_bandwidth_fraction = 0;
  double simple_step_latency_s = 0;
  // LL (8-byte stores of 4 data bytes and a flag): the shortest step latency and the least bandwidth; taken
  // when it is fastest, or forced with --nccl-proto ll. Optional, on top of LL128 and Simple; 0 = no LL.
  double ll_step_latency_s = 0;
  double ll_bandwidth_fraction = 0;
  // What NCCL achieves of `bandwidth` on this fabric (bus bandwidth / bandwidth), where the fabric
  // generation has its own figure (PCIe with NCCL 2.0 reaches far less than NVLink); 0 = the profile's
  // nccl_intra_node. A measured profile's figure wins over it.
  double nccl_efficiency = 0;
  PcieTreeSpec pcie;  // fabric = PCIe only
};

// The node's network interfaces: one NIC serves gpus_per_node / count GPUs (rail-aligned), or each GPU has
// count / gpus_per_node NICs (AWS p5: 32 EFA NICs for 8 GPUs).
struct NicSpec {
  int count = 1;
  double bandwidth_Bps = 0;  // each NIC, per direction
  double latency_s = 0;
  // What NCCL achieves of the NICs' bandwidth; 0 = the profile's nccl_inter_node (which a measured
  // profile keeps).
  double nccl_efficiency = 0;
  // NCCL's network proxy costs (cost/network_protocol.h): a fixed cost per chunk a channel sends under
  // Simple, and per active channel per network step under LL. 0 = none (the wire's latency covers them).
  double nccl_chunk_latency_s = 0;
  double nccl_channel_latency_s = 0;
  // NCCL's network post overhead (tuning.cc getNetOverhead, NCCL_NET_OVERHEAD): what a ring step of an
  // inter-node ring costs at least, x3 under Simple; NCCL assumes 1 us on Intel hosts, 2 us on AMD ones.
  double nccl_net_overhead_s = 1e-6;
  // The most one NCCL channel moves across the network (cost/nccl_channels.h), so that a NIC reaches the
  // least of nccl_efficiency and its channels' rates together; 0 = not given (nccl_efficiency alone).
  double nccl_channel_bandwidth_Bps = 0;
  // What NCCL's point-to-point operations (all-to-all, sendrecv) reach of the NICs' line rate, where it
  // differs from a ring's: a point-to-point channel drives several peers' connections at once, so
  // nccl_channel_bandwidth_Bps does not cap it, and many-to-many traffic reaches less of the line than a
  // ring's one peer per channel. 0 = what the rings reach.
  double nccl_p2p_efficiency = 0;
  // The time NCCL's network proxy spends on each point-to-point chunk each way (cost/nccl_p2p_proxy.h),
  // which caps a GPU's all-to-all and sendrecv throughput across nodes below a fast NIC's line. 0 = the
  // default fitted on the H100 tables (kNcclP2pProxyChunkDefault_s).
  double nccl_p2p_chunk_s = 0;
  // The network's switches reduce in the network (InfiniBand SHARP), which NCCL reaches through its CollNet
  // plugin where the run enables it (NCCL_COLLNET_ENABLE=1, simtrain's --nccl-collnet-enable).
  bool sharp = false;
  // The NCCL tuner plugin the system loads, which overrides NCCL's choice of algorithm and protocol where
  // its regions hold a collective (cost/ofi_tuner_regions.h): aws-ofi-nccl's for AWS p5/p5e, or none.
  NcclTunerPlugin tuner_plugin = NcclTunerPlugin::None;

  // NCCL's channels across the network (nic_channels.cc): its ring search finds one ring per NIC, duplicates
  // them unless they are slow or (Hopper and later) more than four, and setup doubles them again; at most 32.
  // So an 8-NIC node of 400 Gb/s runs two channels per NIC, a node using four or fewer such NICs four.
  int nccl_channels() const;
  // One GPU's share of the node's NICs, per direction (the line its point-to-point traffic meets).
  double line_per_gpu_Bps(int gpus_per_node) const { return count * bandwidth_Bps / gpus_per_node; }
};

// SimGrid's dragonfly (Cray Cascade's naming): `groups` groups joined all-to-all by global links (blue),
// `chassis_per_group` chassis per group (black links between the same router of every chassis),
// `routers_per_chassis` routers per chassis joined all-to-all (green), `nodes_per_router` nodes on each
// router. The *_links figures are how many parallel links make up one connection (its bandwidth multiple).
struct DragonflySpec {
  int groups = 0, group_links = 0;
  int chassis_per_group = 0, chassis_links = 0;
  int routers_per_chassis = 0, router_links = 0;
  int nodes_per_router = 0;

  int capacity() const { return groups * chassis_per_group * routers_per_chassis * nodes_per_router; }
};

// The network between nodes. Star: one non-blocking switch. FatTree: nodes under leaf switches
// (nodes_per_leaf), leaves under spines; with three levels, leaves_per_pod leaves form a pod under the core.
// Each level's uplinks carry the sum of the bandwidth below divided by its oversubscription ratio. A
// rail-optimized fat-tree (2 levels) gives each group of nodes_per_leaf nodes one leaf per NIC index
// ("rail"): NIC i of every node of the group plugs into rail leaf i, and the leaves meet at the spines.
// Dragonfly and Torus are SimGrid's own cluster zones with a node (its GPUs and NIC uplink) at every leaf;
// nodes fill the leaves in order, and leaves beyond `nodes` are routers only.
struct FabricSpec {
  FabricTopology topology = FabricTopology::Star;
  int levels = 2;                     // fat-tree only: 2 or 3
  int nodes_per_leaf = 0;             // fat-tree only
  int leaves_per_pod = 0;             // fat-tree, 3 levels only
  double leaf_oversubscription = 1;   // >= 1: downlink bandwidth / uplink bandwidth at the leaf
  double spine_oversubscription = 1;  // >= 1: the same at the pod level (3 levels)
  bool rail_optimized = false;        // fat-tree, 2 levels only
  double switch_latency_s = 0;        // star and fat-tree: per switch hop
  DragonflySpec dragonfly;
  std::vector<int> torus_dimensions;  // e.g. {8, 8, 8}; the first dimension varies fastest
  double link_bandwidth_Bps = 0;      // dragonfly and torus: each link, per direction
  double link_latency_s = 0;          // dragonfly and torus: per link (a hop, its router included)
  int shape_line = 0;                 // where the dragonfly or torus shape was given, for errors

  // Nodes a dragonfly or torus can hold; 0 for trees, which grow with the node count.
  int capacity() const;
};

struct ClusterSpec {
  std::string name;  // e.g. "dgx-a100"
  std::string description;
  std::string source_file;  // where it was read from, for error messages
  int nodes = 1;
  int gpus_per_node = 1;
  std::string gpu;  // the GPU model; names a spec profile (e.g. "a100-sxm4-80gb")
  // The SM clock the GPUs hold under load when it is below their boost clock: locked clocks (nvidia-smi
  // -lgc) or the clock a power cap sustains, in MHz; 0 = the profile's boost clock. Tensor-core and
  // vector throughput scale with it; HBM runs on its own clock and keeps its bandwidth.
  double gpu_clock_mhz = 0;
  // The board power the GPUs are capped at (nvidia-smi -pl), in watts, when below their TDP; 0 = the
  // profile's own limit. On a power-limited generation it bounds the GEMM rate they sustain.
  double gpu_power_limit_w = 0;
  IntraNodeSpec intra_node;
  NicSpec nics;
  FabricSpec fabric;

  int gpu_count() const { return nodes * gpus_per_node; }
};

// Throws Error (the spec's file, the shape's line) when `spec.nodes` do not fit its dragonfly or torus; for
// a node count set after parsing (--nodes).
void check_nodes_fit(const ClusterSpec& spec);

// `spec` with only `gpus` of each node's GPUs in use, each keeping the NICs it has in the full node
// (nccl-tests run with fewer GPUs than a node holds: NCCL then sees nodes of that many GPUs and NICs). Throws
// Error (naming --gpus-per-node) unless 1 <= gpus <= spec.gpus_per_node, the fabric is NVSwitch (a PCIe
// tree's switches and sockets have no such subset) and the NICs scale to a whole number.
ClusterSpec using_gpus_per_node(ClusterSpec spec, int gpus);

// Parses a cluster spec; throws Error with file, line and field on malformed or impossible values.
ClusterSpec read_cluster_spec(const std::string& path);
ClusterSpec parse_cluster_spec(const std::string& toml_text, const std::string& origin);

// The directory holding the shipped specs (platforms/); SIMTRAIN_PLATFORM_DIR overrides it.
std::string platform_directory();
// Names of the shipped specs (file names without .toml), sorted.
std::vector<std::string> shipped_platform_names();
// The file a platform name stands for: a shipped spec's TOML first, then a file by path. Throws Error when
// neither exists.
std::string cluster_spec_path(const std::string& name_or_path);
// The spec in cluster_spec_path(name_or_path).
ClusterSpec load_cluster_spec(const std::string& name_or_path);

}  // namespace simtrain::platform
