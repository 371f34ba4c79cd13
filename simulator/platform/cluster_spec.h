// The cluster spec: a description of a GPU cluster (nodes, GPUs per node, intra-node fabric, NICs, network
// fabric) read from TOML. It says what the hardware is; simgrid_platform.h turns it into SimGrid zones.
#pragma once

#include <string>
#include <vector>

namespace simtrain::platform {

enum class IntraNodeFabric { NVSwitch, NVLinkMesh, PCIe };
enum class FabricTopology { Star, FatTree };

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
  // NCCL's protocols on this fabric, for ring collectives inside a node: LL128 starts fast (a short
  // per-step latency) but reaches only a fraction of the bandwidth; Simple reaches it all after a longer
  // per-step latency; NCCL runs whichever finishes first for the size. 0 = one protocol, the profile's
  // nccl_step_latency_s.
  double ll128_step_latency_s = 0;
  double ll128_bandwidth_fraction = 0;
  double simple_step_latency_s = 0;
};

// The node's network interfaces; one NIC serves gpus_per_node / count GPUs (rail-aligned).
struct NicSpec {
  int count = 1;
  double bandwidth_Bps = 0;  // each NIC, per direction
  double latency_s = 0;
};

// The network between nodes. Star: one non-blocking switch. FatTree: nodes under leaf switches
// (nodes_per_leaf), leaves under spines; with three levels, leaves_per_pod leaves form a pod under the core.
// Each level's uplinks carry the sum of the bandwidth below divided by its oversubscription ratio.
struct FabricSpec {
  FabricTopology topology = FabricTopology::Star;
  int levels = 2;                     // fat-tree only: 2 or 3
  int nodes_per_leaf = 0;             // fat-tree only
  int leaves_per_pod = 0;             // fat-tree, 3 levels only
  double leaf_oversubscription = 1;   // >= 1: downlink bandwidth / uplink bandwidth at the leaf
  double spine_oversubscription = 1;  // >= 1: the same at the pod level (3 levels)
  double switch_latency_s = 0;        // per switch hop
};

struct ClusterSpec {
  std::string name;  // e.g. "dgx-a100"
  std::string description;
  std::string source_file;  // where it was read from, for error messages
  int nodes = 1;
  int gpus_per_node = 1;
  std::string gpu;  // the GPU model; names a spec profile (e.g. "a100-sxm4-80gb")
  IntraNodeSpec intra_node;
  NicSpec nics;
  FabricSpec fabric;

  int gpu_count() const { return nodes * gpus_per_node; }
};

// Parses a cluster spec; throws Error with file, line and field on malformed or impossible values.
ClusterSpec read_cluster_spec(const std::string& path);
ClusterSpec parse_cluster_spec(const std::string& toml_text, const std::string& origin);

// The directory holding the shipped specs (platforms/); SIMTRAIN_PLATFORM_DIR overrides it.
std::string platform_directory();
// Names of the shipped specs (file names without .toml), sorted.
std::vector<std::string> shipped_platform_names();
// A shipped spec by name, or a TOML file by path. Throws Error when neither exists.
ClusterSpec load_cluster_spec(const std::string& name_or_path);

}  // namespace simtrain::platform
