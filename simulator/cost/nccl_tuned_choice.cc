// Implements nccl_tuned_choice.h: NCCL's options for a collective across NVLink nodes and its choice.
#include "simulator/cost/nccl_tuned_choice.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "simulator/cost/double_binary_tree.h"
#include "simulator/cost/nccl_tuner.h"
#include "simulator/cost/network_protocol.h"
#include "simulator/cost/nvls_tree_pipeline.h"

namespace simtrain::cost {

NvlsFigures nvls_figures(const CollectiveLayout& layout) {
  return {layout.nvls_bandwidth_Bps, layout.nvls_latency_s, layout.nvls_step_latency_s,
          layout.placement->per_node, layout.nvls_channels};
}

TunedOption price_tuned(NcclAlgorithm algorithm, NcclProtocol protocol, trace::CollectiveKind kind,
                        double bytes, const CollectiveLayout& layout,
                        const calibration::Efficiencies& efficiencies) {
  const CommunicatorPlacement& placement = *layout.placement;
  const int m = placement.nodes, l = placement.per_node, n = m * l;
  const bool all_reduce = kind == trace::CollectiveKind::AllReduce;
  TunedOption option{algorithm, protocol};
  double factor = nccl_tuner_bandwidth_factor(algorithm, protocol, kind, m, layout.forced.version_minor);
  if (factor <= 0) return {algorithm, protocol, std::numeric_limits<double>::infinity()};
  // CollNet Direct on Hopper and later, the GPUs with NVLS (tuning.cc: "if (minCompCap >= 90) busBw *= .85").
  if (algorithm == NcclAlgorithm::CollNetDirect && layout.nvls_bandwidth_Bps > 0) factor *= 0.85;
  // A tree all-reduce reaches less than its model at medium sizes, by NCCL's own correction table; NCCL
  // 2.29 corrects NVLS-tree's too on Blackwell x86 hosts, simtrain on every x86 host (the H100 tables of 4
  // and 8 nodes fall as far short; docs/collective_model.md).
  const bool corrected =
      algorithm == NcclAlgorithm::Tree || (algorithm == NcclAlgorithm::NVLSTree && !layout.arm_host);
  if (corrected && all_reduce) factor *= nccl_tree_correction_factor(protocol, bytes);
  NcclTunerShape shape;
  shape.kind = kind;
  shape.ranks = n;
  shape.nodes = m;
  shape.network_overhead_s = layout.nccl_net_overhead_s;
  shape.version_minor = layout.forced.version_minor;
  option.latency_s = nccl_tuner_latency_s(algorithm, protocol, shape);
  if (algorithm == NcclAlgorithm::Ring)
    option.latency_s *= nccl_ring_plateau_factor(protocol, kind, bytes, n, m, layout.network.channels);
  const double node_Bps = layout.inter_node_bandwidth_Bps * efficiencies.nccl_inter_node * l;
  // PAT moves what a ring moves: (N-1)/N of the buffer into and out of every rank; a reduction in the
  // switches the node's whole buffer up, and the result down.
  const bool ring_volume = algorithm == NcclAlgorithm::Ring || algorithm == NcclAlgorithm::PAT;
  const double volume = reduces_in_network(algorithm) ? bytes
                        : ring_volume                 ? (all_reduce ? 2.0 : 1.0) * (n - 1.0) / n * bytes
                                                      : placement.tree_peak_volume * bytes;
  const double full_network_s = volume / node_Bps;
  option.network_s = full_network_s / factor;
  if (protocol == NcclProtocol::LL) {
    const double capped_s = bytes * bus_bandwidth_factor(kind, n) / nccl_ll_max_bus_bandwidth_Bps(m);
    option.network_s = std::max(option.network_s, capped_s);
  }
  option.flow_factor = full_network_s / option.network_s;
  // A tree is a pipeline of chunks through every GPU of a node's chain (L-1 NVLink hops) and up the tree
  // (ceil(log2 M) network hops), then down again: the first chunk crosses all of them before the last one
  // starts, at a channel's share of the node's bandwidth. NCCL's chunk rule (network_protocol.h) sets it.
  if (algorithm == NcclAlgorithm::Tree && layout.network.channels > 0) {
    const int depth = l - 1 + binary_tree_depth(m);
    const double chunk =
        nccl_tree_chunk_bytes(bytes, layout.network.channels, depth, layout.network.buffer_bytes);
    const double channel_Bps = node_Bps * factor / layout.network.channels;
    option.latency_s += 2 * depth * std::min(chunk, bytes / layout.network.channels) / channel_Bps;
  }
  if (algorithm == NcclAlgorithm::NVLSTree || algorithm == NcclAlgorithm::NVLS) {
    // NCCL's tuner gives NVLS-tree the NVLS bus bandwidth of one node (tuning.cc: the same intraBw, in bus
    // bandwidth, for NVLS and NVLS-tree), so its NVLS part moves the buffer that much slower than one node's
    // NVLS all-reduce as the communicator's bus factor exceeds the node's: on 2 H100 nodes 480 GB/s of bus
    // bandwidth where one node's algorithm bandwidth would give 514; the two 2-node tables measure 467.
    const double nvls_s = nvls_all_reduce_s(bytes, nvls_figures(layout));
    const double bus_ratio = bus_bandwidth_factor(kind, n) / bus_bandwidth_factor(kind, l);
    option.intra_node_s = (nvls_s - std::min(nvls_s, layout.nvls_latency_s)) * bus_ratio;
    if (layout.multi_node_nvlink && algorithm == NcclAlgorithm::NVLSTree) {
      // NCCL ranks NVLS-tree by the estimate above; its kernel runs the pipeline, the network leg of every
      // step after the NVLS one, through the heads' NICs, each paying the tuner's NVLS-tree network hops.
      option.estimate_s = option.total_s();
      NvlsTreeFigures tree;
      tree.nvls = nvls_figures(layout);
      tree.nvls.channels = layout.nvls_tree_channels;
      tree.nodes = m;
      tree.head_network_Bps = layout.inter_node_bandwidth_Bps * efficiencies.nccl_inter_node;
      tree.network_step_latency_s = nccl_nvls_tree_network_latency_s(shape);
      tree.node_volume = placement.tree_peak_volume;
      option.intra_node_s = nvls_tree_all_reduce_s(bytes, tree);
    }
  } else {
    const double intra_Bps = layout.intra_node_bandwidth_Bps * efficiencies.nccl_intra_node;
    // A chain's middle GPUs pass the whole buffer up and the result down; the others' phases move (L-1)/L.
    const double intra_volume =
        algorithm == NcclAlgorithm::CollNetChain ? 2 * bytes : (all_reduce ? 2 : 1) * (l - 1.0) / l * bytes;
    option.intra_node_s = intra_volume / (intra_Bps * factor);
  }
  const double channels_Bps = layout.channels_Bps * l;  // the node's channels together
  if (algorithm == NcclAlgorithm::Ring && channels_Bps > node_Bps) {
    // Each channel runs the ring's steps in turn, a step costing its latency and then its transfer at the
    // channel's rate; with more channels than the NICs' line share needs, while some channels wait out a
    // step's latency the others keep the NIC busy. The ring takes the longer of the NICs' transfer and one
    // channel's steps: max(T, L + T_channels), so the latency beyond T - T_channels is what shows.
    option.estimate_s = option.total_s();  // NCCL's tuner ranks by its own sum
    const double channels_s = full_network_s * node_Bps / channels_Bps / factor;
    const double transfer_s = std::max(option.intra_node_s, option.network_s);
    const double base_s = nccl_tuner_base_latency_s(algorithm, protocol, layout.forced.version_minor);
    option.latency_s = std::max(std::min(base_s, option.latency_s),
                                option.latency_s - std::max(0.0, transfer_s - channels_s));
  }
  return option;
}

TunedOption choose_tuned(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                         const calibration::Efficiencies& efficiencies) {
  const bool all_reduce = kind == trace::CollectiveKind::AllReduce;
  const bool nvls = all_reduce && layout.nvls_bandwidth_Bps > 0;
  const bool collnet = all_reduce && layout.network_reduces && layout.forced.collnet;
  std::vector<NcclAlgorithm> algorithms = {NcclAlgorithm::Ring};
  if (all_reduce) algorithms.push_back(NcclAlgorithm::Tree);
  if (nvls) algorithms.push_back(NcclAlgorithm::NVLSTree);
  if (collnet) {
    algorithms.push_back(NcclAlgorithm::CollNetDirect);
    algorithms.push_back(NcclAlgorithm::CollNetChain);
    if (nvls) algorithms.push_back(NcclAlgorithm::NVLS);
  }
  if (layout.forced.algorithm && all_reduce) {
    NcclAlgorithm forced = *layout.forced.algorithm;
    // Without CollNet (SHARP), NCCL runs NVLS across nodes as NVLS-tree only.
    if (forced == NcclAlgorithm::NVLS && !collnet) forced = NcclAlgorithm::NVLSTree;
    if (forced == NcclAlgorithm::NVLSTree && !nvls) forced = NcclAlgorithm::Tree;
    // PAT, and CollNet without it (which replay.cc refuses), leave the choice to the tuner.
    if (std::find(algorithms.begin(), algorithms.end(), forced) != algorithms.end()) algorithms = {forced};
  }
  std::vector<NcclProtocol> protocols = {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::Simple};
  if (layout.forced.protocol) protocols = {*layout.forced.protocol};
  TunedOption best;
  double best_s = std::numeric_limits<double>::infinity();
  for (NcclAlgorithm algorithm : algorithms) {
    for (NcclProtocol protocol : protocols) {
      // A protocol the algorithm does not run (NVLS-tree's LL, LL128) falls back to Simple when forced.
      NcclProtocol runs = protocol;
      if (nccl_tuner_bandwidth_factor(algorithm, runs, kind, layout.placement->nodes,
                                      layout.forced.version_minor) <= 0)
        runs = NcclProtocol::Simple;
      const TunedOption option = price_tuned(algorithm, runs, kind, bytes, layout, efficiencies);
      if (option.ranked_s() < best_s) best = option, best_s = option.ranked_s();
    }
  }
  return best;
}

std::optional<TunedOption> pat_over_ring(trace::CollectiveKind kind, double bytes,
                                         const CollectiveLayout& layout,
                                         const calibration::Efficiencies& efficiencies) {
  const NcclOverride& forced = layout.forced;
  if (forced.algorithm && *forced.algorithm != NcclAlgorithm::PAT) return std::nullopt;
  if (forced.protocol && *forced.protocol != NcclProtocol::Simple) return std::nullopt;
  const TunedOption pat =
      price_tuned(NcclAlgorithm::PAT, NcclProtocol::Simple, kind, bytes, layout, efficiencies);
  if (forced.algorithm) return pat;
  for (NcclProtocol protocol : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::Simple})
    if (price_tuned(NcclAlgorithm::Ring, protocol, kind, bytes, layout, efficiencies).ranked_s() <=
        pat.ranked_s())
      return std::nullopt;
  return pat;
}

}  // namespace simtrain::cost
