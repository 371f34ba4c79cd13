// What one simtrain process can simulate on a machine of a few tens of GiB. Inputs beyond these bounds are
// refused with one line naming the option or field before anything is allocated for them, so that a small
// input (a 1 KB trace claiming 2^24 ranks, --grad-accum 2147483647) cannot take the machine down.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simtrain::limits {

// Ranks of one simulated job. Measured: a DDP job costs about 7 KB per GPU (ResNet-50 on 262,144 GPUs of
// dgx-h100: 1.8 GB peak, 50 s), so 2^20 ranks stay under 8 GB.
inline constexpr int kMaxRanks = 1 << 20;

// GPUs in one node (an NVLink domain of GB200 NVL72 spans 72; nothing built has more than a few hundred).
inline constexpr int kMaxGpusPerNode = 1024;

// Micro-batches of one optimizer step (gradient accumulation, pipeline micro-batches): each is unrolled
// into the step's program.
inline constexpr int kMaxMicroBatches = 1 << 16;

// Operations of one program: about 200 bytes each, so 2^24 ops are ~3 GB.
inline constexpr std::size_t kMaxOpsPerProgram = std::size_t{1} << 24;

// The longest duration one operation may take (about 115 days). Anything longer comes from a broken
// profile or option and would overflow the simulated clock once summed.
inline constexpr double kMaxOpDuration_s = 1e7;

}  // namespace simtrain::limits
