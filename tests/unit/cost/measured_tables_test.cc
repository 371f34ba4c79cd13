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

}  // namespace simtrain
