// NCCL's own cost model (src/graph/tuning.cc, ncclTopoTuneModel), the part simtrain takes as it is: the
// latency NCCL's tuner charges an (algorithm, protocol) pair, built from a base latency per pair and
// hardware latencies per hop type (NVLink, PCIe, network), and the share of the bandwidth each protocol
// reaches. The bandwidths themselves come from the platform (simulated flows over its links); these terms
// say what NCCL's kernels add to them and what they reach of them. docs/collective_model.md lists the
// terms and where each comes from.
#pragma once

#include "simulator/cost/nccl_choice.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// The hop type NCCL prices a step by: NVLink or PCIe inside a node (by the intra-node graph's link type),
// the network across nodes.
enum class NcclHop { NVLink, PCIe, Network };

// What NCCL's tuner knows about a communicator that its latencies depend on.
struct NcclTunerShape {
  trace::CollectiveKind kind = trace::CollectiveKind::AllReduce;
  int ranks = 0;
  int nodes = 0;
  NcclHop intra_node_hop = NcclHop::NVLink;
  // The network plugin's latency (graph->latencyInter; NCCL's InfiniBand plugin reports 0), added to each
  // network hop, twice under Simple (its flush).
  double network_latency_s = 0;
  // getNetOverhead: the proxy's cost of posting a network send, 1 us on Intel CPUs, 2 us on AMD; a ring step
  // of an inter-node ring costs at least this (x3 under Simple) even between GPUs of one node.
  double network_overhead_s = 1e-6;
  int version_minor = kNcclNewestMinor;  // NCCL 2.<minor>: the constants changed between releases
};

// NCCL's latency for `algorithm` under `protocol`, with the constants of the release (2.18's NVLS-tree pays
// 2(M-1) network hops instead of 2 log2 M; 2.19 to 2.22 price a tree's Simple hops at 28 us):
// - Ring: base + (steps - inter-node steps) x max(intra hop latency, network overhead) + inter-node steps x
//   network hop latency, steps being 2(N-1) for all-reduce, N-1 for all-gather and reduce-scatter, and the
//   inter-node steps 2(M-1) or M-1;
// - Tree (all-reduce): base + 2 ((N/M - 1) x intra hop latency + log2(M) x network hop latency);
// - NVLSTree: NVLink NVLS latency + 2 log2(M) x network hop latency; NVLS: NVLink NVLS latency, plus one
//   network hop across nodes;
// - PAT (all-gather, reduce-scatter): base + log2(M) x network hop latency / 3.5 + 2.8 us per rank;
// - CollNetDirect: 2 (min(1, N/M - 1) x intra hop latency + (N/M - 1) x 0.4 us) + network hop latency
//   (0.5 us in 2.18); CollNetChain: 2 (N/M - 1) x intra hop latency + network hop latency.
// Broadcast and reduce rings pay one hop latency per step.
double nccl_tuner_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol, const NcclTunerShape& shape);

// The first release with PAT (2.23: "PAT algorithm for AllGather and ReduceScatter at scale").
inline constexpr int kNcclPatFirstMinor = 23;

// Whether NCCL weighs PAT for `kind` (ncclPatEnable and ncclTopoTuneModel): all-gather or reduce-scatter,
// one GPU per node on more than one node, NCCL 2.23 or later.
bool nccl_pat_runs(trace::CollectiveKind kind, int ranks, int nodes, int version_minor);

// The base of that latency: what NCCL charges a launch of `algorithm` under `protocol` before any hop.
double nccl_tuner_base_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol,
                                 int version_minor = kNcclNewestMinor);

// The network part of NCCL's NVLS-tree latency: its network hops up and down the tree across the nodes,
// 2 log2(M) (2.18: 2(M-1)) hops of the release's NVLS-tree network latency (20.9 us from 2.28), plus the
// plugin's latency as for every network hop. The NVLS-tree pipeline (nvls_tree_pipeline.h) pays it per step.
double nccl_nvls_tree_network_latency_s(const NcclTunerShape& shape);

// The share of the Simple bandwidth NCCL's tuner gives `protocol` under `algorithm`: LL 1/2 on a ring (1/4
// before 2.21) and 1/3.8 on a tree, LL128 0.92 on a ring and 120/128 on a tree across nodes (7/9 inside one),
// Simple 1; a tree's all-reduce 0.92 of that again. NVLS, NVLSTree and CollNet run Simple only (0 for the
// others); so does PAT, at 0.85 in 2.23 and 0.75 from 2.24 (0 before 2.23). (CollNet Direct's 0.85 on
// Hopper and later and its GPU / NIC ratio depend on the GPUs: collective_algorithm.cc applies them.)
double nccl_tuner_bandwidth_factor(NcclAlgorithm algorithm, NcclProtocol protocol, trace::CollectiveKind kind,
                                   int nodes, int version_minor = kNcclNewestMinor);

// NCCL's correction of a tree all-reduce's bandwidth at medium sizes (tuning.cc, treeCorrectionFactor: "Trees
// are not perfectly sticking to the model for medium sizes"; the same table in every release 2.18-2.29): a
// factor per protocol and power of two of the buffer from 64 B to 256 MiB (log2(bytes / 64) = 0..22), down to
// 0.4 (LL at 512 KiB-1 MiB) and 0.5 (Simple at 128 KiB-2 MiB); 1 outside that range.
double nccl_tree_correction_factor(NcclProtocol protocol, double bytes);

// NCCL's "plateau effect of ring": a Simple ring all-reduce across nodes pays 1.4x its tuner latency (1.9x on
// GPUs before Ampere) once each channel's share per rank, bytes / (channels x ranks), reaches 64 B; 1
// otherwise (tuning.cc, ncclTopoGetAlgoTime, every release 2.18-2.29).
double nccl_ring_plateau_factor(NcclProtocol protocol, trace::CollectiveKind kind, double bytes, int ranks,
                                int nodes, int channels, bool before_ampere = false);

// NCCL's cap on LL's bus bandwidth across nodes (llMaxBws, x86 Intel hosts): 39 GB/s on two nodes, 20.4 GB/s
// on more; 0 on one node (the GPU-type figures apply there and simtrain's intra-node LL figures cover it).
double nccl_ll_max_bus_bandwidth_Bps(int nodes);

}  // namespace simtrain::cost
