// Specification of calibration_profile.h: peak-rate lookup and profile-kind names.
#include "calibration/calibration_profile.h"

#include <doctest/doctest.h>

namespace simtrain::calibration {

TEST_CASE("peak_flops gives the dtype's peak, and 0 for a dtype the GPU does not support") {
  CalibrationProfile profile;
  profile.device.peak_flops_per_s = {{DType::FP32, 15.7e12}, {DType::FP16, 125e12}};
  CHECK(profile.peak_flops(DType::FP32) == 15.7e12);
  CHECK(profile.peak_flops(DType::FP16) == 125e12);
  CHECK(profile.peak_flops(DType::BF16) == 0);
  CHECK(profile.peak_flops(DType::FP8) == 0);
}

TEST_CASE("profile kinds are named as in the JSON kind field") {
  CHECK(to_string(ProfileKind::Spec) == "spec");
  CHECK(to_string(ProfileKind::Measured) == "measured");
  CHECK(parse_profile_kind("spec") == ProfileKind::Spec);
  CHECK(parse_profile_kind("measured") == ProfileKind::Measured);
  CHECK_FALSE(parse_profile_kind("Measured").has_value());
  CHECK_FALSE(parse_profile_kind("").has_value());
}

TEST_CASE("a default profile is a spec profile with default efficiencies and no tables") {
  const CalibrationProfile profile;
  CHECK(profile.kind == ProfileKind::Spec);
  CHECK(profile.efficiencies == Efficiencies{});
  CHECK(profile.gemm.empty());
  CHECK(profile.kernels.empty());
  CHECK(profile.memory.empty());
  CHECK(profile.collectives.empty());
}

TEST_CASE("profiles compare field by field") {
  CalibrationProfile a;
  a.device.name = "X";
  CalibrationProfile b = a;
  CHECK(a == b);
  b.gemm.push_back({128, 128, 128, DType::FP16, false, true, 1e-5});
  CHECK_FALSE(a == b);
}

}  // namespace simtrain::calibration
