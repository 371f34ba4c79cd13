// The largest sizes simtrain accepts from an input file or an option, in one place: each bounds an allocation
// or a computation that a few bytes of a corrupt or hostile file (a 1 KB trace claiming 2^24 ranks) or one
// option (--grad-accum 2147483647) could otherwise make unbounded; inputs beyond them are refused with one
// line before anything is allocated for them. README.md ("Limits on input files") lists them for users.
#pragma once

#include <cstddef>
#include <cstdint>

namespace simtrain {

// Ranks (simulated GPUs) of one job: a trace's world_size, an nccl-tests log's ranks. 2^20 is four times the
// largest cluster the README times (262,144 GPUs) while keeping per-rank tables of a trace below 100 MB.
inline constexpr std::int64_t kMaxRanks = std::int64_t{1} << 20;

// GPUs in one node (an NVLink domain of GB200 NVL72 spans 72; nothing built has more than a few hundred).
inline constexpr int kMaxGpusPerNode = 1024;

// Micro-batches of one optimizer step (gradient accumulation, pipeline micro-batches): each is unrolled
// into the step's program.
inline constexpr int kMaxMicroBatches = 1 << 16;

// Operations of one program: about 200 bytes each, so 2^24 ops are ~3 GB.
inline constexpr std::size_t kMaxOpsPerProgram = std::size_t{1} << 24;

// Entries of the per-group rank tables a trace needs (communicator groups x world_size): 2^25 entries are
// 256 MiB, enough for 32 groups at 2^20 ranks or 2,048 groups at 16,384 ranks.
inline constexpr std::int64_t kMaxGroupRankEntries = std::int64_t{1} << 25;

// Bytes of one input file, as read: a trace, a profile, a log. Real ones are tens of megabytes; a name like
// /dev/zero must end in an error, not in reading forever.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// Bytes a compressed trace may expand to. nlohmann's document takes several times the text's size, so a
// gigabyte of JSON is already more than most machines can hold; real traces are tens of megabytes.
inline constexpr std::size_t kMaxDecompressedBytes = std::size_t{1} << 30;

// Nesting of a JSON document. simtrain's formats nest at most 5 deep; a bound keeps a file of 100,000 '['
// from exhausting the stack of any recursive code that walks the document.
inline constexpr int kMaxJsonDepth = 64;

// A measured duration (a kernel, a collective, a latency): anything above 10^6 s (11 days) is a unit mistake
// or garbage, and sums of such values stop being finite long before the simulator could report them.
inline constexpr double kMaxDuration_s = 1e6;

// A size in bytes (a message, a memory): an exabyte, far beyond any GPU job, yet small enough that bytes /
// rate stays finite and converts to an integer without overflow.
inline constexpr double kMaxBytes = 1e18;

// A rate (bytes/s, FLOP/s): between 1/s, below which it is a unit mistake and durations derived from it
// overflow, and 10^21/s, a thousand times any GPU or link of today.
inline constexpr double kMinRate = 1;
inline constexpr double kMaxRate = 1e21;

// Runs of one study (the product of its axes' lengths): a sweep is a list held in memory and a queue of
// processes; the largest shipped study has 1,000.
inline constexpr std::size_t kMaxStudyRuns = 1'000'000;

}  // namespace simtrain
