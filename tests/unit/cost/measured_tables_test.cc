// Interpolation in measured kernel tables: exact entries, scaling by work, and inverse-distance weighting.
#include "simulator/cost/measured_tables.h"

#include <cmath>

#include <doctest/doctest.h>

#include "tests/support/approx.h"

namespace simtrain {
namespace {

calibration::CalibrationProfile profile_with(std::vector<calibration::GemmMeasurement> gemm) {
  calibration::CalibrationProfile profile;
  profile.gemm = std::move(gemm);
  return profile;
}

}  // namespace

TEST_CASE("work is multiply-adds for GEMM, convolution and attention, elements otherwise") {
  CHECK(cost::MeasuredTables::work("gemm", {2, 3, 4}) == 24);
  // n=2, c=3, 8x8 input, k=4 filters of 3x3, stride 1, pad 1: 8x8 output, 2*4*3*9*64 multiply-adds.
  CHECK(cost::MeasuredTables::work("conv_forward", {2, 3, 8, 8, 4, 3, 3, 1, 1}) == 2 * 4 * 3 * 9 * 64);
  // Stride 2 without padding on 9x9 with 3x3 filters: 4x4 output.
  CHECK(cost::MeasuredTables::work("conv_backward_data", {1, 1, 9, 9, 1, 3, 3, 2, 0}) == 9 * 16);
  CHECK(cost::MeasuredTables::work("attention_forward", {2, 4, 16, 8}) == 2 * 4 * 16 * 16 * 8);
  CHECK(cost::MeasuredTables::work("batch_norm_forward", {8, 64, 7, 7}) == 8 * 64 * 49);
}

TEST_CASE("an exact shape returns its measured time; other dtypes and arities find nothing") {
  cost::MeasuredTables tables(profile_with({{64, 64, 64, DType::FP16, false, false, 1e-5}}));
  CHECK(tables.exact_s("gemm", DType::FP16, {64, 64, 64}) == 1e-5);
  CHECK_FALSE(tables.exact_s("gemm", DType::FP16, {64, 64, 32}));
  CHECK_FALSE(tables.interpolated_s("gemm", DType::BF16, {64, 64, 64}));
  CHECK_FALSE(tables.interpolated_s("conv_forward", DType::FP16, {64, 64, 64}));
}

TEST_CASE("between two measured shapes, time per multiply-add is a distance-weighted geometric mean") {
  // 1e-12 s per MAC at M=N=K=1024 and 2e-12 s at M=N=K=256 (smaller GEMMs run less efficiently).
  const double small_s = 2e-12 * 256.0 * 256 * 256, large_s = 1e-12 * 1024.0 * 1024 * 1024;
  cost::MeasuredTables tables(profile_with({{256, 256, 256, DType::FP16, false, false, small_s},
                                            {1024, 1024, 1024, DType::FP16, false, false, large_s}}));
  // 512 is equally far from both in log space: the per-MAC time is sqrt(1e-12 * 2e-12).
  const double expected = std::sqrt(2.0) * 1e-12 * 512.0 * 512 * 512;
  CHECK(*tables.interpolated_s("gemm", DType::FP16, {512, 512, 512}) ==
        simtrain::testing::Approx(expected).epsilon(1e-12));
  // Far beyond the largest measurement, the nearest dominates but the other still weighs in: the per-MAC
  // time lies strictly between the two measured ones.
  const double per_mac =
      *tables.interpolated_s("gemm", DType::FP16, {8192, 8192, 8192}) / (8192.0 * 8192 * 8192);
  CHECK(per_mac > 1e-12);
  CHECK(per_mac < std::sqrt(2.0) * 1e-12);
}

TEST_CASE("a misaligned GEMM is interpolated from the measured shapes of its alignment class") {
  // Aligned shapes at 1e-12 s per MAC, GPT-2's LM head shape (2-byte aligned) at 8e-12 s.
  const double aligned = 1e-12, misaligned = 8e-12;
  auto at = [](std::int64_t m, std::int64_t n, std::int64_t k, double per_mac) {
    return calibration::GemmMeasurement{m, n, k, DType::BF16, false, false, per_mac * m * n * k};
  };
  cost::MeasuredTables tables(
      profile_with({at(4096, 32000, 4096, aligned), at(4096, 4096, 4096, aligned),
                    at(2048, 32000, 2048, aligned), at(4096, 50257, 1600, misaligned)}));
  // Half the tokens of the measured LM head: its own class's rate, though three aligned shapes are about as
  // near in log space.
  const double lm_head = 2048.0 * 50257 * 1600;
  CHECK(*tables.interpolated_s("gemm", DType::BF16, {2048, 50257, 1600}) ==
        simtrain::testing::Approx(misaligned * lm_head).epsilon(1e-9));
  // An aligned GEMM never takes the fallback kernels' rate.
  CHECK(*tables.interpolated_s("gemm", DType::BF16, {2048, 4096, 4096}) ==
        simtrain::testing::Approx(aligned * 2048.0 * 4096 * 4096).epsilon(1e-9));
  // Far from every size the class was measured at (a 2-wide head), every measured shape counts again.
  const double tiny = *tables.interpolated_s("gemm", DType::BF16, {32, 2, 1024}) / (32.0 * 2 * 1024);
  CHECK(tiny < misaligned);
  CHECK(tiny > aligned);
  // A class the profile never measured (4-byte aligned) is interpolated from every shape.
  CHECK(*tables.interpolated_s("gemm", DType::BF16, {4096, 30522, 1024}) / (4096.0 * 30522 * 1024) <
        misaligned);
}

}  // namespace simtrain
