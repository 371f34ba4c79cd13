// Specification of the NVLS pipeline: NCCL's chunk rule, the fill and drain of three stages around the
// steps, and the plain latency-bandwidth form without a per-step cost.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/nvls_pipeline.h"

namespace simtrain {
namespace {

constexpr double kKiB = 1024, kMiB = 1024 * 1024;

}  // namespace

TEST_CASE(
    "NVLS chunks on 8 GPUs: 16 KiB below 8 MiB, 32 KiB below 64 MiB, 64 KiB below 1 GiB, then 128 KiB") {
  // 16 channels x 8 heads = 128 concurrent chunks; thresholds at 2, 8 and 64 loops of the current chunk.
  CHECK(cost::nvls_chunk_bytes(1 * kMiB, 8) == 16 * kKiB);
  CHECK(cost::nvls_chunk_bytes(8 * kMiB - 1, 8) == 16 * kKiB);
  CHECK(cost::nvls_chunk_bytes(8 * kMiB, 8) == 32 * kKiB);
  CHECK(cost::nvls_chunk_bytes(64 * kMiB - 1, 8) == 32 * kKiB);
  CHECK(cost::nvls_chunk_bytes(64 * kMiB, 8) == 64 * kKiB);
  CHECK(cost::nvls_chunk_bytes(1024 * kMiB - 1, 8) == 64 * kKiB);
  CHECK(cost::nvls_chunk_bytes(1024 * kMiB, 8) == 128 * kKiB);
  // Fewer GPUs, fewer heads: the thresholds scale with them.
  CHECK(cost::nvls_chunk_bytes(4 * kMiB, 4) == 32 * kKiB);
}

TEST_CASE("NCCL's NVLS heads are the group's GPUs up to 32; its chunk thresholds scale with channels x heads") {
  CHECK(cost::nvls_heads(4) == 4);
  CHECK(cost::nvls_heads(8) == 8);
  CHECK(cost::nvls_heads(64) == 32);  // an NVL72 domain of 64 GPUs: NCCL_MAX_NVLS_ARITY heads
  // 64 GPUs on Blackwell's 24 channels inside one domain: 24 x 32 = 768 concurrent chunks. Each cut compares
  // with loops of the chunk already cut: 64 KiB below 64 x 768 x 128 KiB = 6 GiB, 32 KiB below
  // 8 x 768 x 64 KiB = 384 MiB, 16 KiB below 2 x 768 x 32 KiB = 48 MiB.
  CHECK(cost::nvls_chunk_bytes(48 * kMiB - 1, 64, 24) == 16 * kKiB);
  CHECK(cost::nvls_chunk_bytes(48 * kMiB, 64, 24) == 32 * kKiB);
  CHECK(cost::nvls_chunk_bytes(384 * kMiB, 64, 24) == 64 * kKiB);
  CHECK(cost::nvls_chunk_bytes(6144 * kMiB, 64, 24) == 128 * kKiB);
  // The pipeline's loop is channels x heads x chunk: 1 GiB takes 64 KiB chunks, loops of 48 MiB.
  const cost::NvlsFigures nvl72{500e9, 16e-6, 4e-6, 64, 24};
  const double loop = 768 * 64 * kKiB;
  CHECK(cost::nvls_all_reduce_s(1024 * kMiB, nvl72) ==
        simtrain::testing::Approx(16e-6 + (1024 * kMiB / loop + 2) * (4e-6 + loop / 500e9)).epsilon(1e-12));
}

TEST_CASE("an NVLS all-reduce is its latency plus (steps + 2) pipeline steps") {
  const cost::NvlsFigures nvls{300e9, 16e-6, 4e-6, 8};
  // 64 MiB: 64 KiB chunks, loops of 128 x 64 KiB = 8 MiB, 8 steps.
  const double loop = 8 * kMiB;
  CHECK(cost::nvls_all_reduce_s(64 * kMiB, nvls) ==
        simtrain::testing::Approx(16e-6 + (8 + 2) * (4e-6 + loop / 300e9)).epsilon(1e-12));
  // Below one loop there is one step of the whole buffer.
  CHECK(cost::nvls_all_reduce_s(1 * kMiB, nvls) ==
        simtrain::testing::Approx(16e-6 + 3 * (4e-6 + 1 * kMiB / 300e9)).epsilon(1e-12));
  // Large buffers approach bytes / bandwidth plus one step cost per 16 MiB loop (128 KiB chunks).
  const double huge = 64 * 1024 * kMiB;
  CHECK(cost::nvls_all_reduce_s(huge, nvls) / (huge / 300e9) ==
        simtrain::testing::Approx(1 + 4e-6 * 300e9 / (16 * kMiB)).epsilon(1e-3));
  // Without a per-step cost: latency + bytes / bandwidth.
  CHECK(cost::nvls_all_reduce_s(64 * kMiB, {300e9, 16e-6, 0, 8}) ==
        simtrain::testing::Approx(16e-6 + 64 * kMiB / 300e9).epsilon(1e-12));
}

}  // namespace simtrain
