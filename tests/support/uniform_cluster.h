// The engine tests' network: nodes of one GPU each whose own link is 10x its NIC and has no latency, on
// switches that add none, so that every GPU-to-GPU route has latency kUniformRouteLatency and bottleneck
// kUniformNicBandwidth and closed forms can be written against the two.
#pragma once

#include <string>

#include "simulator/platform/cluster_spec.h"

namespace simtrain::testing {

inline constexpr double kUniformNicBandwidth = 25e9;  // bytes/s
inline constexpr double kUniformRouteLatency = 4e-6;  // seconds: the NIC's latency counted once up, once down

inline platform::ClusterSpec uniform_cluster(int nodes, const std::string& name = "uniform-star") {
  platform::ClusterSpec spec;
  spec.name = name;
  spec.nodes = nodes;
  spec.gpus_per_node = 1;
  spec.gpu = "a100-sxm4-80gb";
  spec.intra_node = {platform::IntraNodeFabric::NVSwitch, 10 * kUniformNicBandwidth, 0.0};
  spec.nics = {1, kUniformNicBandwidth, kUniformRouteLatency / 2};
  return spec;
}

}  // namespace simtrain::testing
