// NCCL's NVLS-tree all-reduce across NVLink domains as the pipeline its kernel runs (device/all_reduce.h,
// RunWorkColl<..., NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>): per channel, each chunk is scattered to its head,
// reduced through the switch by the head's reduce warps, which send it up the tree across the network; the
// head's broadcast warps receive the result from the network, multicast it, and every GPU gathers it. The
// network leg is the same chunk's, between the reduce and the broadcast, so a step costs the NVLS transfer
// and the network transfer one after the other, and only the heads' NICs carry it: NCCL's NVLS graph has
// one head per NIC-local GPU, at most NCCL_MAX_NVLS_ARITY = 32 (search.cc), each sending through its NIC.
// On a 64-GPU NVL72 domain that is 32 of the 64 NICs.
#pragma once

#include "simulator/cost/nvls_pipeline.h"

namespace simtrain::cost {

struct NvlsTreeFigures {
  NvlsFigures nvls;  // the domain's NVLS figures; channels: NCCL's NVLS channels across domains
  int nodes = 2;     // NVLink domains the communicator spans
  double head_network_Bps = 0;        // what one head's NIC carries per direction, as NCCL reaches it
  double network_step_latency_s = 0;  // the fixed cost of one step's network leg (proxy, RDMA, flags)
  double node_volume = 1;             // the busiest node's network volume per buffer byte (the tree's)
};

// NCCL's NVLS-tree chunk (enqueue.cc, calcCollChunking): NCCL_NVLS_CHUNKSIZE (128 KiB), at most 64 KiB from 4
// domains on, cut to 64 KiB below 4 loops and to 32 KiB below one loop of channels x heads chunks.
double nvls_tree_chunk_bytes(double bytes, int channels, int heads, int nodes);

// Seconds of the pipeline for an all-reduce of `bytes` per GPU, without the latency paid once (NCCL's tuner
// latency for NVLS-tree prices that): (steps + 2) steps of three stages, steps = bytes / loop (at least 1),
// loop = channels x heads x chunk, each step of t = NVLS step latency + network step latency
// + m / NVLS bandwidth + node_volume x m / (heads x head_network_Bps), m = min(bytes, loop).
double nvls_tree_all_reduce_s(double bytes, const NvlsTreeFigures& tree);

}  // namespace simtrain::cost
