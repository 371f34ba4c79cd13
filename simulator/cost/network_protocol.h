// What NCCL's protocols cost where a collective crosses the network. NCCL moves a channel's data over a NIC
// in chunks through its network proxy, and on some transports every chunk pays a fixed cost (posting the
// send, polling its completion, flushing GPUDirect writes) that the wire's bandwidth does not show: on AWS
// EFA it keeps the bus bandwidth of a 2-node all-reduce below two thirds of its peak up to 64 MiB
// (validation/reference/nccl/aws_p4de_a100_2node16gpu_efa_allreduce.csv). Simple pays it per chunk, so the
// chunk sizes NCCL picks matter; LL's flags ride in the data and pay only the proxy's turn per channel, but
// move data at a fraction of the bandwidth. On fabrics whose spec gives no such costs, the network part is
// Simple at full bandwidth with no extra latency.
#pragma once

#include <optional>

#include "simulator/cost/nccl_choice.h"

namespace simtrain::cost {

// NCCL's network transport on a platform.
struct NetworkTransport {
  int channels = 0;                               // NCCL channels across the network
  double chunk_latency_s = 0;                     // Simple: fixed cost of every chunk a channel sends
  double channel_latency_s = 0;                   // LL: the proxy's turn, per active channel per network step
  double buffer_bytes = kNcclDefaultBufferBytes;  // NCCL_BUFFSIZE: a Simple step is 1/8 of it (NCCL_STEPS)

  bool has_costs() const { return chunk_latency_s > 0 || channel_latency_s > 0; }
};

// The network part of one collective: the protocol taken, its latency on top of the route latencies, and the
// fraction of the bandwidth it moves data at.
struct NetworkPhase {
  NcclProtocol protocol = NcclProtocol::Simple;
  double latency_s = 0;
  double bandwidth_fraction = 1;
};

// How the network part of a collective is organised, for the protocol's costs.
struct NetworkShape {
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;  // Ring or Tree across the nodes
  double bytes = 0;                               // the collective's buffer (what nccl-tests calls size)
  double node_volume = 0;                         // bytes a node sends over its NICs, all channels together
  double node_bandwidth_Bps = 0;                  // what the node's NICs achieve together
  int ranks = 0, nodes = 0;                       // the communicator's
  // Steps in which a channel's chunk crosses the network: those of a flat ring that leave a node (2(M-1) for
  // an all-reduce; its other steps are NVLink hops), a tree's 2 log2 M levels.
  int network_steps = 0;
  // A tree's depth for NCCL's chunk rule: the hops a chunk takes inside a node before the network (the chain
  // through its L GPUs, L-1; none under NVLS-tree, whose NVLS reduces the node in one step) and the tree's
  // floor(log2 M) levels across nodes.
  int tree_depth = 0;
};

// NCCL's tree chunk for Simple (enqueue.cc, tree up/down pattern): the step (buffer / 8) halved while a
// channel would get fewer than 8 x depth chunks (down to 128 KiB), 4 x depth (down to 64 KiB) or depth (down
// to 32 KiB), depth being the tree's: ranks per node - 1 + log2(nodes). That is the rule of NCCL 2.18 and
// 2.19, taken for every release and protocol: 2.20 on keep the whole Simple step and give LL128 trees a rule
// of their own, which the EFA and InfiniBand tables do not bear out as priced (README, "NCCL's tree chunk by
// release").
double nccl_tree_chunk_bytes(double bytes, int channels, int depth, double buffer_bytes);

// NCCL's channels for LL at `bytes` (enqueue.cc getAlgoInfo): one fewer while bytes < channels x 512
// threads x threshold, the threshold being 8 bytes per thread for the tree and 8 x ranks for the ring.
int nccl_ll_channels(double bytes, int channels, NcclAlgorithm algorithm, int ranks);

// The protocol NCCL would take (or the forced one, where it is LL or Simple) and what it costs: Simple,
// (chunks per channel + 1) x chunk_latency, chunks being the tree's (above) or full Simple steps on a ring
// (at least one per network step); LL, network_steps x LL channels x channel_latency, at 1/3.8 (tree) or 1/4
// (ring) of the bandwidth, NCCL's own tuner's ratios (tuning.cc). LL128 does not cross NCCL's networks.
NetworkPhase network_phase(const NetworkShape& shape, const NetworkTransport& transport,
                           std::optional<NcclProtocol> forced);

}  // namespace simtrain::cost
