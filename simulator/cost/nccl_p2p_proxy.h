// What NCCL's network proxy lets one GPU's point-to-point operations (all-to-all, sendrecv) move across
// nodes. NCCL sends point-to-point data over the network in chunks of p2pChunkSize (NCCL_P2P_NET_CHUNKSIZE,
// 128 KiB; init.cc, computeBuffSizes), four times smaller than a ring's Simple step, and the GPU's proxy
// thread posts, polls and completes every chunk, sends and receives alike, so its chunk rate caps the GPU's
// point-to-point throughput whatever the NIC's line rate. On 400 Gb/s ConnectX-7 under H100 the all-to-all
// tables reach 0.90-0.92 of the line, which a share of the line fits as well; a faster NIC tells them apart:
// Megatron-Bridge's GPT-OSS 120B at expert parallelism 64 across 8 nodes ran 1.04 times as fast on DGX B300
// (800 Gb/s ConnectX-8) as on DGX B200 (400 Gb/s) in release 26.02
// (validation/reference/training/nemo_megatron_bridge_pretrain_perf.csv), not the 1.55 times the line rate
// gave. NCCL itself doubles the chunk on Arm hosts of Blackwell GPUs (GB200, GB300, whose hosts hold four
// GPUs: by its own comment, fewer GPUs per host aggregate less), which halves the chunks per byte.
// docs/collective_model.md says how the chunk cost was fitted.
#pragma once

#include <string_view>

#include "simulator/cost/nccl_choice.h"

namespace simtrain::cost {

// NCCL_P2P_NET_CHUNKSIZE's default (init.cc).
inline constexpr double kNcclP2pNetChunkBytes = 128.0 * 1024;

// The proxy's time per point-to-point chunk each way, on x86 hosts of the H100 tables (tools/validate_nccl.py
// fits it leave-one-table-out on the all-to-all and sendrecv tables; platforms' nics.nccl_p2p_chunk_us
// overrides it).
inline constexpr double kNcclP2pProxyChunkDefault_s = 2.9e-6;

// Whether NCCL doubles the point-to-point chunk on a GPU of this spec profile (`gpu`: "gb200", "gb300"):
// the Grace-Blackwell superchips, Arm hosts of compute capability 10.
bool nccl_doubles_p2p_chunk(std::string_view gpu);

// The chunk NCCL sends point-to-point data in across nodes (init.cc, computeBuffSizes): `param_bytes`
// (NCCL_P2P_NET_CHUNKSIZE; 0 = its 128 KiB default), twice that where the host is Arm and the GPU Blackwell
// or later (`arm_blackwell_host`), and at most an eighth of `buffer_bytes` (NCCL_BUFFSIZE: one of
// NCCL_STEPS = 8 steps).
double nccl_p2p_net_chunk_bytes(bool arm_blackwell_host, double param_bytes = 0,
                                double buffer_bytes = kNcclDefaultBufferBytes);

// The proxy's time per point-to-point chunk: `chunk_s`, or kNcclP2pProxyChunkDefault_s where it is 0.
double nccl_p2p_proxy_chunk_s(double chunk_s);

// The share of one GPU's NIC line rate (`gpu_line_Bps`: its NICs' bandwidth per direction over the GPUs
// sharing them) that its proxy sustains each way at `chunk_s` per chunk (0: kNcclP2pProxyChunkDefault_s) of
// `chunk_bytes` (nccl_p2p_net_chunk_bytes). It may exceed 1, where the line is the cap. 0 when the GPU has no
// NIC share.
double nccl_p2p_proxy_line_share(double chunk_s, double chunk_bytes, double gpu_line_Bps);

}  // namespace simtrain::cost
