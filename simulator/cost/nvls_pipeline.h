// NCCL's NVLS all-reduce inside one node (NVLink SHARP on third-generation NVSwitch), as the pipeline its
// kernel runs: three stages (scatter to the heads, multimem reduce and multicast through the switch, gather)
// hand chunks to each other, and every step of a stage waits on flags from all GPUs before it moves its
// data. NCCL keeps chunks small for mid-sized buffers (16 KiB up to 2 MiB per 16 channels x 8 heads, then
// 32, 64 and 128 KiB), so the fixed cost per step, not the switch bandwidth, sets the pace there: measured
// bus bandwidth climbs slowly from 1 MiB to 1 GiB (Azure ND H100 v5 and ND H200 v5, validation/reference/nccl/).
#pragma once

namespace simtrain::cost {

// A node's NVLS figures (cluster_spec.h): streaming algorithm bandwidth, the latency paid once, and the
// fixed cost per pipeline step; a zero step cost leaves latency + bytes / bandwidth.
struct NvlsFigures {
  double bandwidth_Bps = 0;
  double latency_s = 0;
  double step_latency_s = 0;
  int gpus = 8;  // GPUs in the NVLS group (the NVLink domain); NCCL takes min(gpus, 32) of them as heads
  // NCCL's NVLS channels: 16 on Hopper (NVLS_NCHANNELS_SM90), on Blackwell 24 inside one NVLink domain and 32
  // when the communicator spans several (NVLS_NCHANNELS_SM100_NVL / _SM100; transport/nvls.cc, ncclNvlsInit).
  int channels = 16;
};

// NCCL's NVLS heads for a group of `gpus` GPUs: one per GPU, at most NCCL_MAX_NVLS_ARITY = 32 (search.cc caps
// the NVLS graph's channels, which are its heads, there). An NVL72 domain of 64 GPUs has 32 heads.
int nvls_heads(int gpus);

// Seconds for an all-reduce of `bytes` per GPU. With steps S / (channels x heads x chunk) (at least 1) of
// t = step_latency + min(S, channels x heads x chunk) / bandwidth, it is latency + (steps + 2) t: the pipeline's
// three stages fill and drain around the steps. Chunk sizes follow NCCL 2.18-2.20's rule (enqueue.cc).
double nvls_all_reduce_s(double bytes, const NvlsFigures& nvls);

// NCCL's NVLS chunk for a buffer of `bytes` on `gpus` GPUs (`channels` channels): 128 KiB at most, cut to 64,
// 32 and 16 KiB below 64, 8 and 2 loops of channels x heads chunks (enqueue.cc, calcCollChunking).
double nvls_chunk_bytes(double bytes, int gpus, int channels = 16);

}  // namespace simtrain::cost
