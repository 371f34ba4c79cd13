// Implements nccl_tuner.h with the constants of NCCL's tuning.cc (baseLat / hwLat, later
// ncclTunerConstantsDefaults), per band of releases: microseconds, indexed [algorithm][protocol].
#include "simulator/cost/nccl_tuner.h"

#include <algorithm>
#include <cmath>

namespace simtrain::cost {
namespace {

constexpr double kMicrosecond = 1e-6;

// Protocol order LL, LL128, Simple, as NCCL's.
struct Row {
  double ll, ll128, simple;
  double of(NcclProtocol p) const {
    return p == NcclProtocol::LL ? ll : p == NcclProtocol::LL128 ? ll128 : simple;
  }
};

// One row per algorithm (Tree, Ring, NVLS, NVLSTree, PAT, CollNetDirect, CollNetChain): the base latencies,
// or the hwLatencies of one hop type. PAT's row stays zero before 2.23, which has no PAT.
struct HopRows {
  Row tree, ring, nvls, nvls_tree;
  Row pat{}, collnet_direct{}, collnet_chain{};
};

// The constants of one band of NCCL releases, as tuning.cc has them (read at the tags v2.18.5-1 to
// v2.29.2-1).
struct TunerConstants {
  HopRows base, nvlink, pcie, net;
  double ring_ll_share;           // of the Simple bandwidth, across nodes
  bool nvls_tree_linear = false;  // 2.18: NVLS-tree pays 2(M-1) network hops, not 2 log2 M
  double collnet_arity_us = 0.4;  // CollNet Direct's serialisation per GPU of the node (2.18: 0.5)
};

// CollNet's hops (Simple only): 2.18's, then 2.19's to 2.29's.
constexpr HopRows with_collnet(HopRows hop, double direct_us, double chain_us) {
  hop.collnet_direct.simple = direct_us;
  hop.collnet_chain.simple = chain_us;
  return hop;
}

constexpr HopRows kPcie{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}};  // 2.23's; PCIe nodes do not
                                                                                  // take these terms
// 2.18.
constexpr TunerConstants k218{
    {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 23}, {0, 0, 23}},
    with_collnet({{0.6, 1.25, 4}, {0.6, 1.9, 3.4}, {0, 0, 0}, {0, 0, 0}}, 8.0, 4.75),
    with_collnet(kPcie, 8.0, 8.0),
    with_collnet({{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 19}}, 10.7, 14),
    0.25,
    true,
    0.5};
// 2.19 and 2.20: the tree's Simple latency moves from the base into 28 us hops; NVLS's into NVLink hops.
constexpr TunerConstants k219{
    {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}},
    with_collnet({{0.6, 1.25, 28}, {0.6, 1.9, 3.4}, {0, 0, 23}, {0, 0, 23}}, 3.7, 2.8),
    with_collnet(kPcie, 3.7, 2.8),
    with_collnet({{5.0, 8.5, 28}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 14}}, 31, 30),
    0.25};
// 2.21 and 2.22: NVLS 25 us; a ring's LL reaches half the bandwidth instead of a quarter.
constexpr TunerConstants k221 = [] {
  TunerConstants c = k219;
  c.nvlink.nvls.simple = c.nvlink.nvls_tree.simple = 25;
  c.ring_ll_share = 0.5;
  return c;
}();
// 2.23 to 2.27: the tree's Simple latency back to an 8.4 us base and 4 / 14 us hops; PAT (Simple only) with
// an 8 us base (2.23 writes it into the formula, 2.24 on into the base table) and 4 / 14 us hops.
constexpr TunerConstants k223 = [] {
  TunerConstants c = k221;
  c.base.tree.simple = 8.4;
  c.nvlink.tree.simple = 4.0;
  c.net.tree.simple = 14;
  c.base.pat = {8.0, 8.0, 8.0};
  c.nvlink.pat.simple = 4.0;
  c.net.pat.simple = 14;
  return c;
}();
// 2.28 and 2.29: NVLS-tree's network hop 20.9 us.
constexpr TunerConstants k228 = [] {
  TunerConstants c = k223;
  c.net.nvls_tree.simple = 20.9;
  return c;
}();

const TunerConstants& constants(int minor) {
  if (minor <= 18) return k218;
  if (minor <= 20) return k219;
  if (minor <= 22) return k221;
  if (minor <= 27) return k223;
  return k228;
}

const Row& row(const HopRows& hop, NcclAlgorithm algorithm) {
  switch (algorithm) {
    case NcclAlgorithm::Tree:
      return hop.tree;
    case NcclAlgorithm::NVLS:
      return hop.nvls;
    case NcclAlgorithm::NVLSTree:
      return hop.nvls_tree;
    case NcclAlgorithm::PAT:
      return hop.pat;
    case NcclAlgorithm::CollNetDirect:
      return hop.collnet_direct;
    case NcclAlgorithm::CollNetChain:
      return hop.collnet_chain;
    case NcclAlgorithm::Ring:
      break;
  }
  return hop.ring;
}

// NCCL's log2i: floor(log2(n)).
int log2_floor(int n) {
  int levels = 0;
  while ((2 << levels) <= n) ++levels;
  return levels;
}

}  // namespace

double nccl_tuner_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol, const NcclTunerShape& shape) {
  const int n = shape.ranks, m = std::max(1, shape.nodes);
  const TunerConstants& c = constants(shape.version_minor);
  const HopRows& intra_hop = shape.intra_node_hop == NcclHop::PCIe ? c.pcie : c.nvlink;
  const double intra_us = row(intra_hop, algorithm).of(protocol);
  const double network_latency_us = shape.network_latency_s / kMicrosecond;
  // With one GPU per node every hop is a network hop, priced as the tree's (tuning.cc: "latencies are fully
  // exposed").
  const double ppn = static_cast<double>(n) / m;
  double inter_us = (ppn == 1 ? c.net.tree : row(c.net, algorithm)).of(protocol) + network_latency_us;
  if (protocol == NcclProtocol::Simple) inter_us += network_latency_us;
  const bool all_reduce = shape.kind == trace::CollectiveKind::AllReduce;
  double us = row(c.base, algorithm).of(protocol);
  switch (algorithm) {
    case NcclAlgorithm::Ring: {
      const int steps = all_reduce ? 2 * (n - 1) : n - 1;
      if (shape.kind == trace::CollectiveKind::Broadcast || shape.kind == trace::CollectiveKind::Reduce) {
        us += n * (m == 1 ? intra_us : inter_us);
        break;
      }
      double step_us = intra_us;
      if (m > 1) {
        const double overhead_us =
            shape.network_overhead_s / kMicrosecond * (protocol == NcclProtocol::Simple ? 3 : 1);
        step_us = std::max(step_us, overhead_us);
      }
      const int inter_steps = m == 1 ? 0 : all_reduce ? 2 * (m - 1) : m - 1;
      us += (steps - inter_steps) * step_us + inter_steps * inter_us;
      break;
    }
    case NcclAlgorithm::Tree:
      us += 2 * ((ppn - 1) * intra_us + log2_floor(m) * inter_us);
      break;
    case NcclAlgorithm::NVLS:
      us += intra_us + (m > 1 ? inter_us : 0);
      break;
    case NcclAlgorithm::NVLSTree:
      us += c.nvls_tree_linear ? 2 * (m - 1) * inter_us : intra_us + 2 * log2_floor(m) * inter_us;
      break;
    case NcclAlgorithm::PAT:
      // log2(M) tree levels at a 3.5th of a network hop each, and a part linear in the ranks (tuning.cc:
      // "Still a linear part; hopefully we'll manage to remove it at some point").
      us += log2_floor(m) * (inter_us / 3.5) + n * 2.8;
      break;
    case NcclAlgorithm::CollNetDirect:
      // One NVLink hop to the node's heads and back (none for a lone GPU), a serialisation per GPU of the
      // node, and the switch's reduction across the network.
      us += 2 * (std::min(1.0, ppn - 1) * intra_us + (ppn - 1) * c.collnet_arity_us) + inter_us;
      break;
    case NcclAlgorithm::CollNetChain:
      us += 2 * (ppn - 1) * intra_us + inter_us;
      break;
  }
  return us * kMicrosecond;
}

bool nccl_pat_runs(trace::CollectiveKind kind, int ranks, int nodes, int version_minor) {
  const bool gathers =
      kind == trace::CollectiveKind::AllGather || kind == trace::CollectiveKind::ReduceScatter;
  return gathers && nodes > 1 && ranks == nodes && version_minor >= kNcclPatFirstMinor;
}

double nccl_tuner_base_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol, int version_minor) {
  return row(constants(version_minor).base, algorithm).of(protocol) * kMicrosecond;
}

double nccl_nvls_tree_network_latency_s(const NcclTunerShape& shape) {
  const int m = std::max(1, shape.nodes);
  const TunerConstants& c = constants(shape.version_minor);
  const double hop_us = c.net.nvls_tree.simple + 2 * shape.network_latency_s / kMicrosecond;  // + the flush
  return (c.nvls_tree_linear ? 2 * (m - 1) : 2 * log2_floor(m)) * hop_us * kMicrosecond;
}

double nccl_tuner_bandwidth_factor(NcclAlgorithm algorithm, NcclProtocol protocol, trace::CollectiveKind kind,
                                   int nodes, int version_minor) {
  if (algorithm == NcclAlgorithm::NVLS || algorithm == NcclAlgorithm::NVLSTree ||
      algorithm == NcclAlgorithm::CollNetDirect || algorithm == NcclAlgorithm::CollNetChain)
    return protocol == NcclProtocol::Simple ? 1.0 : 0.0;
  if (algorithm == NcclAlgorithm::PAT) {
    if (protocol != NcclProtocol::Simple || version_minor < kNcclPatFirstMinor) return 0.0;
    return version_minor == kNcclPatFirstMinor ? 0.85 : 0.75;
  }
  double factor = 1.0;
  if (algorithm == NcclAlgorithm::Ring) {
    if (protocol == NcclProtocol::LL) factor = constants(version_minor).ring_ll_share;
    if (protocol == NcclProtocol::LL128) factor = 0.92;
  } else {
    if (kind == trace::CollectiveKind::AllReduce) factor = 0.92;
    if (protocol == NcclProtocol::LL) factor *= 1.0 / 3.8;
    if (protocol == NcclProtocol::LL128) factor *= nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
  }
  return factor;
}

double nccl_tree_correction_factor(NcclProtocol protocol, double bytes) {
  // [protocol LL, LL128, Simple][log2(bytes / 64)], as tuning.cc has it.
  static constexpr double kFactors[3][23] = {
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  if (!(bytes >= 64)) return 1.0;
  const double groups = std::floor(bytes / 64);
  const int log_size = groups >= 1u << 30 ? 30 : log2_floor(static_cast<int>(groups));
  if (log_size >= 23) return 1.0;
  const int p = protocol == NcclProtocol::LL ? 0 : protocol == NcclProtocol::LL128 ? 1 : 2;
  return kFactors[p][log_size];
}

double nccl_ring_plateau_factor(NcclProtocol protocol, trace::CollectiveKind kind, double bytes, int ranks,
                                int nodes, int channels, bool before_ampere) {
  if (protocol != NcclProtocol::Simple || kind != trace::CollectiveKind::AllReduce || nodes <= 1 ||
      channels <= 0 || ranks <= 0)
    return 1.0;
  return bytes / (static_cast<double>(channels) * ranks) >= 64 ? (before_ampere ? 1.9 : 1.4) : 1.0;
}

double nccl_ll_max_bus_bandwidth_Bps(int nodes) {
  if (nodes <= 1) return 0;
  return (nodes == 2 ? 39.0 : 20.4) * 1e9;
}

}  // namespace simtrain::cost
