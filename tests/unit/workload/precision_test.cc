// Specification of the training precisions: their names and the kernel dtypes they imply.
#include <doctest/doctest.h>

#include "simulator/workload/precision.h"

using namespace simtrain;
using namespace simtrain::workload;

TEST_CASE("precision names round-trip and accept the framework aliases") {
  for (Precision p : {Precision::FP32, Precision::TF32, Precision::AMP_FP16, Precision::AMP_BF16}) {
    CHECK(parse_precision(to_string(p)) == p);
  }
  CHECK(parse_precision("amp") == Precision::AMP_FP16);
  CHECK(parse_precision("fp16") == Precision::AMP_FP16);
  CHECK(parse_precision("bf16") == Precision::AMP_BF16);
  CHECK_FALSE(parse_precision("int8").has_value());
}

TEST_CASE("tf32 changes only the matmul math; amp stores activations in 16 bits") {
  CHECK(matmul_dtype(Precision::FP32) == DType::FP32);
  CHECK(matmul_dtype(Precision::TF32) == DType::TF32);
  CHECK(activation_dtype(Precision::TF32) == DType::FP32);
  CHECK(matmul_dtype(Precision::AMP_FP16) == DType::FP16);
  CHECK(activation_dtype(Precision::AMP_FP16) == DType::FP16);
  CHECK(matmul_dtype(Precision::AMP_BF16) == DType::BF16);
  CHECK(activation_dtype(Precision::AMP_BF16) == DType::BF16);
  CHECK(kParameterDType == DType::FP32);
}
