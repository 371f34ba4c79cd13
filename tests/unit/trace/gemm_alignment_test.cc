// Specification of gemm_alignment.h: a GEMM's alignment in bytes as cuBLAS sees it, over every dimension
// or over a framework GEMM's leading ones.
#include "simulator/trace/gemm_alignment.h"

#include <doctest/doctest.h>

using namespace simtrain;
using trace::Pass;

TEST_CASE("a GEMM's alignment is the largest power of two dividing every dimension, in bytes, up to 16") {
  CHECK(trace::alignment_bytes(DType::BF16, {4096, 1600, 32000}) == 16);
  // GPT-2's vocabulary of 50,257 is odd: 2 bytes in bf16 (cuBLAS's align1 kernels), 4 in fp32.
  CHECK(trace::alignment_bytes(DType::BF16, {4096, 50257, 1600}) == 2);
  CHECK(trace::alignment_bytes(DType::FP32, {4096, 50257, 1600}) == 4);
  // BERT's 30,522 = 2 x 15,261: 4 bytes in fp16 (align2), whichever dimension it is.
  CHECK(trace::alignment_bytes(DType::FP16, {30522, 1024, 8192}) == 4);
  CHECK(trace::alignment_bytes(DType::FP8, {4096, 4096, 4104}) == 8);
  // No dimension, or one that is not positive, says nothing: aligned.
  CHECK(trace::alignment_bytes(DType::FP16, {}) == 16);
  CHECK(trace::alignment_bytes(DType::FP16, {0, 7}) == 16);
}

TEST_CASE("a framework's GEMM is aligned by its leading dimensions") {
  // An odd token count (m forward and for the input gradient, k for the weight gradient) misaligns nothing,
  // an odd vocabulary every pass.
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::Forward, {12607, 4096, 1024}) == 16);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::BackwardData, {12607, 1024, 4096}) == 16);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::BackwardWeight, {4096, 1024, 12607}) == 16);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::Forward, {2048, 50257, 1600}) == 2);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::BackwardData, {2048, 1600, 50257}) == 2);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::BackwardWeight, {50257, 1600, 2048}) == 2);
  // A grouped GEMM {m, n, k, groups} as one group: three local experts misalign nothing.
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::Forward, {1001, 4096, 1024, 3}) == 16);
  CHECK(trace::gemm_alignment_bytes(DType::BF16, Pass::Forward, {1001, 4095, 1024, 3}) == 2);
}
