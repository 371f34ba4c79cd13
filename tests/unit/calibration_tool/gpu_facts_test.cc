// What simtrain-calibrate derives without a GPU: per-architecture peaks and dtype support, random operand
// encodings, nccl-tests bus bandwidth and efficiencies fitted from measured tables.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "calibration/tool/bus_bandwidth.h"
#include "calibration/tool/efficiency_fit.h"
#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_architecture.h"
#include "common/error.h"

using namespace simtrain;
using namespace simtrain::calibration;
using namespace simtrain::calibration::tool;

TEST_CASE("peaks from SM count, clock and per-SM rate match datasheets") {
  // A100 SXM: 108 SMs at 1410 MHz, 312 TFLOP/s fp16, 156 tf32, 19.5 fp32 (datasheet, dense).
  const auto a100 = peak_flops_per_s({8, 0}, 108, 1410);
  CHECK(a100.at(DType::FP16) == simtrain::testing::Approx(312e12).epsilon(0.01));
  CHECK(a100.at(DType::TF32) == simtrain::testing::Approx(156e12).epsilon(0.01));
  CHECK(a100.at(DType::FP32) == simtrain::testing::Approx(19.5e12).epsilon(0.01));
  CHECK(a100.count(DType::FP8) == 0);
  // H100 SXM: 132 SMs; datasheet 989 TFLOP/s fp16 and 1979 fp8 at the 1830 MHz tensor clock.
  const auto h100 = peak_flops_per_s({9, 0}, 132, 1830);
  CHECK(h100.at(DType::FP16) == simtrain::testing::Approx(989e12).epsilon(0.01));
  CHECK(h100.at(DType::FP8) == simtrain::testing::Approx(1979e12).epsilon(0.01));
  CHECK(peak_flops_per_s({42, 0}, 100, 1000).empty());  // unknown: the tool measures instead
}

TEST_CASE("Blackwell Ultra's special-function units do twice the exponentials per clock") {
  CHECK(exponentials_per_clock_per_sm({9, 0}) == 16);
  CHECK(exponentials_per_clock_per_sm({10, 0}) == 16);  // B200, GB200
  CHECK(exponentials_per_clock_per_sm({10, 3}) == 32);  // B300, GB300
}

TEST_CASE("dtypes a GPU cannot run are skipped with a warning unless asked for by name") {
  std::vector<std::string> warnings;
  const auto v100 = dtypes_to_measure({7, 0}, "Tesla V100", {}, warnings);
  CHECK(v100 == std::vector<DType>{DType::FP32, DType::FP16});
  CHECK(warnings.size() == 3);  // tf32, bf16, fp8
  warnings.clear();
  CHECK(dtypes_to_measure({9, 0}, "H200", {}, warnings).size() == 5);
  CHECK(warnings.empty());
  CHECK_THROWS_WITH_AS(dtypes_to_measure({8, 0}, "NVIDIA A100", {DType::FP16, DType::FP8}, warnings),
                       "--dtypes: fp8 is not supported on NVIDIA A100 (sm_80)", Error);
}

TEST_CASE("random operands are never zero and encode exactly") {
  CHECK(fp16_bits(0.75f) == 0x3A00);
  CHECK(fp16_bits(-1.0f) == 0xBC00);
  CHECK(bf16_bits(0.75f) == 0x3F40);
  CHECK(fp8_e4m3_bits(0.75f) == 0x34);
  CHECK(fp8_e4m3_bits(1e6f) == 0x7E);  // clamped to 448, never the NaN pattern 0x7F
  const auto bytes = encode_random_values(DType::FP8, {1e-9f, 0.5f, 1.0f, 0.25f});
  REQUIRE(bytes.size() == 4);
  for (std::uint8_t b : bytes) {
    CHECK((b & 0x7F) != 0);     // not zero
    CHECK((b & 0x7F) != 0x7F);  // not NaN
  }
  CHECK(encode_random_values(DType::BF16, {0.5f, 0.9f}).size() == 4);
  CHECK(bytes_per_element(DType::TF32) == 4);
}

TEST_CASE("bus bandwidth follows nccl-tests' factors") {
  CHECK(bus_bandwidth_factor("all_reduce", 8) == simtrain::testing::Approx(1.75));
  CHECK(bus_bandwidth_factor("all_gather", 8) == simtrain::testing::Approx(0.875));
  CHECK(bus_bandwidth_factor("reduce_scatter", 4) == simtrain::testing::Approx(0.75));
  CHECK(bus_bandwidth_factor("all_to_all", 2) == simtrain::testing::Approx(0.5));
  CHECK(bus_bandwidth_factor("broadcast", 8) == 1);
  CHECK(bus_bandwidth_factor("send_recv", 1) == 1);
  CHECK(bus_bandwidth_factor("all_reduce", 1) == 0);  // one GPU moves nothing between GPUs
  // 1 GiB all-reduce on 8 GPUs in 5 ms: algbw 214.7 GB/s, busbw 375.8 GB/s.
  CHECK(bus_bandwidth_Bps("all_reduce", 8, 1 << 30, 5e-3) ==
        simtrain::testing::Approx(375.8e9).epsilon(1e-3));
  CHECK_THROWS_AS(bus_bandwidth_factor("gossip", 4), Error);
  CHECK_THROWS_AS(bus_bandwidth_factor("all_reduce", 0), Error);
}

TEST_CASE("efficiencies are the median achieved fraction of peak of each family") {
  CalibrationProfile p;
  p.device.peak_flops_per_s = {{DType::FP16, 1e15}, {DType::FP32, 1e14}};
  p.device.memory_bandwidth_Bps = 4e12;
  // fp16 GEMMs at 50%, 60% and 90% of peak: 2 x 1000^3 FLOP = 2e9.
  for (double fraction : {0.5, 0.6, 0.9})
    p.gemm.push_back({1000, 1000, 1000, DType::FP16, false, false, 2e9 / (fraction * 1e15)});
  const std::vector<std::int64_t> conv = {1, 1, 10, 10, 1, 1, 1, 1, 0};  // 2 x 100 FLOP
  CHECK(conv_flops(conv) == 200);
  p.kernels.push_back({"conv_forward", conv, DType::FP32, 200 / (0.25 * 1e14)});
  p.kernels.push_back({"batch_norm_forward", {100}, DType::FP16, 1e-6});  // not a conv: ignored
  p.memory.push_back({"device_copy", 1e9, 3.2e12});
  p.memory.push_back({"device_copy", 1e6, 1e12});
  const Efficiencies defaults;
  const auto log = fit_efficiencies(p);
  CHECK(p.efficiencies.gemm == simtrain::testing::Approx(0.6));
  CHECK(p.efficiencies.conv_fp32 == simtrain::testing::Approx(0.25));
  CHECK(p.efficiencies.memory_bound == simtrain::testing::Approx(0.8));  // the best copy
  CHECK(p.efficiencies.gemm_tf32 == defaults.gemm_tf32);                 // nothing measured: unchanged
  CHECK(p.efficiencies.attention == defaults.attention);
  CHECK(log.size() == 3);
}

TEST_CASE("PyTorch's kernel paths give their fractions of the bandwidth at their largest buffers") {
  CalibrationProfile p;
  p.device.memory_bandwidth_Bps = 4e12;
  // The unrolled and strided paths at 2.4 and 1.6 TB/s on the largest buffer: 0.5 of 4 TB/s in the mean;
  // their smaller buffers (cached, faster) do not count.
  p.memory.push_back({"elementwise_unrolled", 2.7e8, 3.9e12});
  p.memory.push_back({"elementwise_unrolled", 1.1e9, 2.4e12});
  p.memory.push_back({"elementwise_strided", 1.1e9, 1.6e12});
  p.memory.push_back({"multi_tensor", 1.1e9, 2.8e12});
  p.memory.push_back({"elementwise_vectorized", 1.1e9, 3.4e12});  // the reference path: no figure of its own
  const auto log = fit_efficiencies(p);
  CHECK(p.efficiencies.memory_bound_unvectorized == simtrain::testing::Approx(0.5));
  CHECK(p.efficiencies.memory_bound_multi_tensor == simtrain::testing::Approx(0.7));
  CHECK(log.size() == 2);
  // Not measured: the figures stay unknown (0), and the simulator runs such kernels at memory_bound.
  CalibrationProfile unmeasured;
  unmeasured.device.memory_bandwidth_Bps = 4e12;
  fit_efficiencies(unmeasured);
  CHECK(unmeasured.efficiencies.memory_bound_unvectorized == 0);
  CHECK(unmeasured.efficiencies.memory_bound_multi_tensor == 0);
}

TEST_CASE("the driver release is read from /proc/driver/nvidia/version of open and proprietary modules") {
  // The open and the proprietary kernel modules lay the line out differently.
  CHECK(driver_release_from_version_line(
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
            "Release Build  (dvs-builder@U22-I3-AE18-09-3)  Thu Aug 7 2025") == "580.159.04");
  CHECK(driver_release_from_version_line(
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 22 "
            "2025") == "570.86.15");
  CHECK(driver_release_from_version_line("something else") == "");
  CHECK(driver_release_from_version_line("NVIDIA Kernel Module") == "");
}
