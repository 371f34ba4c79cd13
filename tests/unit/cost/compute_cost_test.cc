// Specification of the compute cost model: the roofline max(flops / (peak * eff), bytes / (bw * mem_eff)) +
// launch (for GEMMs the root of the sum of the two times' squares), which efficiency each kernel family and
// dtype gets, the tf32 and unsupported-dtype rules, and the precedence trace duration > measured table >
// roofline.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/trace/gemm_alignment.h"

namespace simtrain {
namespace {

// Round numbers so that every expectation can be worked out by hand. Relative 1e-12 covers only the
// rounding of a handful of floating-point operations.
constexpr double kRel = 1e-12;

constexpr double kFp32Peak = 10e12;
constexpr double kTf32Peak = 100e12;
constexpr double kFp16Peak = 200e12;
constexpr double kBandwidth = 1e12;
constexpr double kLaunch = 1e-6;

calibration::CalibrationProfile test_profile() {
  calibration::CalibrationProfile p;
  p.device.name = "TestGPU";
  p.device.memory_bandwidth_Bps = kBandwidth;
  p.device.peak_flops_per_s = {{DType::FP32, kFp32Peak}, {DType::TF32, kTf32Peak}, {DType::FP16, kFp16Peak}};
  auto& e = p.efficiencies;
  e.gemm = 0.5;
  e.conv = 0.25;
  e.gemm_tf32 = 0.4;
  e.conv_tf32 = 0.2;
  e.gemm_fp32 = 0.8;
  e.conv_fp32 = 0.625;
  e.attention = 0.1;
  e.memory_bound = 0.5;
  e.kernel_launch_s = kLaunch;
  return p;
}

trace::ComputeSpec kernel(trace::ComputeKind kind, DType dtype, double flops, double bytes) {
  trace::ComputeSpec k;
  k.kind = kind;
  k.dtype = dtype;
  k.flops = flops;
  k.bytes = bytes;
  return k;
}

using trace::ComputeKind;

// A GPU of 4 SMs whose GEMMs run in 128 x 128 output tiles: tile waves small enough to count by hand.
calibration::CalibrationProfile four_sm_profile() {
  auto profile = test_profile();
  profile.device.sm_count = 4;
  profile.efficiencies.gemm_tile_m = profile.efficiencies.gemm_tile_n = 128;
  return profile;
}

}  // namespace

TEST_CASE("a compute-bound kernel lasts flops / (peak * efficiency) plus the launch cost") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  // 1e12 FLOPs at 200 TFLOP/s * 0.5 = 10 ms; its 1 MB at 1 TB/s * 0.5 = 2 us is hidden under that (a GEMM's
  // within 2e-8 of it, the root of the sum of squares).
  const cost::ComputeCost c = model.cost(kernel(ComputeKind::Conv, DType::FP16, 0.5e12, 1e6));
  CHECK(c.source == cost::CostSource::Roofline);
  CHECK(c.duration_s == simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  CHECK(model.cost(kernel(ComputeKind::Gemm, DType::FP16, 1e12, 1e6)).duration_s ==
        simtrain::testing::Approx(10e-3 + kLaunch).epsilon(1e-7));
}

TEST_CASE("near the ridge point a GEMM pays its compute and memory times as the root of their squares' sum") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  // 3e11 FLOPs at 100 TFLOP/s = 3 ms, 2 GB at 0.5 TB/s = 4 ms: a GEMM takes 5 ms, a convolution 4 ms.
  CHECK(model.cost(kernel(ComputeKind::Gemm, DType::FP16, 3e11, 2e9)).duration_s ==
        simtrain::testing::Approx(5e-3 + kLaunch).epsilon(kRel));
  CHECK(model.cost(kernel(ComputeKind::Conv, DType::FP16, 1.5e11, 2e9)).duration_s ==
        simtrain::testing::Approx(4e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("a memory-bound kernel lasts bytes / (bandwidth * memory efficiency) plus the launch cost") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  // 1 GB at 1 TB/s * 0.5 = 2 ms; its 1e6 FLOPs take 0.2 us.
  const auto c = model.cost(kernel(ComputeKind::Elementwise, DType::FP16, 1e6, 1e9));
  CHECK(c.duration_s == simtrain::testing::Approx(2e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("unvectorized and optimizer kernels move their bytes at the profile's own fractions where known") {
  trace::ComputeSpec strided = kernel(ComputeKind::Elementwise, DType::FP16, 1e6, 1e9);
  strided.unvectorized = true;
  struct Case {
    trace::ComputeSpec kernel;
    double calibration::Efficiencies::*fraction;
    double value;
    double known_s;  // 1 GB at 1 TB/s x value
  };
  for (const Case& c : {Case{strided, &calibration::Efficiencies::memory_bound_unvectorized, 0.25, 4e-3},
                        Case{kernel(ComputeKind::Optimizer, DType::FP32, 1e6, 1e9),
                             &calibration::Efficiencies::memory_bound_multi_tensor, 0.4, 2.5e-3}}) {
    auto profile = test_profile();
    // Not known for this GPU (0): the kernel runs at memory_bound like any other, 1 GB in 2 ms.
    CHECK(cost::ComputeCostModel(profile).cost(c.kernel).duration_s ==
          simtrain::testing::Approx(2e-3 + kLaunch).epsilon(kRel));
    // Known: its own fraction; a plain elementwise kernel of the same bytes keeps its 2 ms.
    profile.efficiencies.*c.fraction = c.value;
    const cost::ComputeCostModel model(profile);
    CHECK(model.cost(c.kernel).duration_s == simtrain::testing::Approx(c.known_s + kLaunch).epsilon(kRel));
    CHECK(model.cost(kernel(ComputeKind::Elementwise, c.kernel.dtype, 1e6, 1e9)).duration_s ==
          simtrain::testing::Approx(2e-3 + kLaunch).epsilon(kRel));
  }
}

TEST_CASE("a flash-attention kernel over few key tiles per query tile runs below the long-sequence rate") {
  auto profile = test_profile();
  // 1e12 FLOPs at fp16: 200 TFLOP/s x 0.1 = 50 ms at the long-sequence rate.
  trace::ComputeSpec short_keys = kernel(ComputeKind::Attention, DType::FP16, 1e12, 0);
  short_keys.kv_tiles = 2;
  CHECK(cost::ComputeCostModel(profile).cost(short_keys).duration_s ==
        simtrain::testing::Approx(50e-3 + kLaunch).epsilon(kRel));  // fixed cost not known: unchanged
  profile.efficiencies.attention_fixed_tiles = 8;
  const cost::ComputeCostModel model(profile);
  // 2 tiles of work and 8 of fixed cost against 16 and 8 at the reference: 2/10 x 24/16 = 0.3 of the rate.
  CHECK(model.cost(short_keys).duration_s == simtrain::testing::Approx(50e-3 / 0.3 + kLaunch).epsilon(kRel));
  for (double tiles : {16.0, 16.5, 32.0, 0.0}) {  // at and beyond the reference, or not a tile loop
    trace::ComputeSpec k = short_keys;
    k.kv_tiles = tiles;
    CHECK(model.cost(k).duration_s == simtrain::testing::Approx(50e-3 + kLaunch).epsilon(kRel));
  }
  // The same rate measured at 64 tiles (a non-causal benchmark at 8,192 tokens): 16 tiles now fall short of
  // it, 16/24 x 72/64 = 0.75, and 2 tiles get 2/10 x 72/64 = 0.225.
  profile.efficiencies.attention_reference_kv_tiles = 64;
  const cost::ComputeCostModel long_reference(profile);
  trace::ComputeSpec sixteen = short_keys;
  sixteen.kv_tiles = 16;
  CHECK(long_reference.cost(sixteen).duration_s ==
        simtrain::testing::Approx(50e-3 / 0.75 + kLaunch).epsilon(kRel));
  CHECK(long_reference.cost(short_keys).duration_s ==
        simtrain::testing::Approx(50e-3 / 0.225 + kLaunch).epsilon(kRel));
  sixteen.kv_tiles = 64;
  CHECK(long_reference.cost(sixteen).duration_s == simtrain::testing::Approx(50e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("an attention kernel with heads below the profile's reference size loses rate to its softmax") {
  auto profile = test_profile();
  // 4 SMs whose fp16 tensor cores do 1,280 FLOPs per clock each: 200 TFLOP/s at 39,062.5 MHz.
  profile.device.sm_count = 4;
  profile.device.clock_mhz = 200e12 / (4 * 1280 * 1e6);
  const auto attention = [](std::int64_t head_dim, trace::Pass pass) {
    trace::ComputeSpec k = kernel(ComputeKind::Attention, DType::FP16, 1e12, 0);
    k.shape = {2, 16, 4096, head_dim};
    k.pass = pass;
    return k;
  };
  const auto seconds = [&](const trace::ComputeSpec& k) {
    return cost::ComputeCostModel(profile).cost(k).duration_s;
  };
  constexpr double kReferenceRate = 50e-3;  // 1e12 FLOPs at 200 TFLOP/s x 0.1
  // Not modelled: every head size at the profile's rate.
  CHECK(seconds(attention(64, trace::Pass::Forward)) ==
        simtrain::testing::Approx(kReferenceRate + kLaunch).epsilon(kRel));
  profile.efficiencies.attention_head_dim = 128;
  profile.efficiencies.attention_softmax_cost = 3.2;
  // Forward x = 3.2 x 1280 / (4 x 16) = 64: (64 / 128) / (128 / 192) = 0.75 of the rate.
  CHECK(seconds(attention(64, trace::Pass::Forward)) ==
        simtrain::testing::Approx(kReferenceRate / 0.75 + kLaunch).epsilon(kRel));
  // Backward x = 3.2 x 1280 / (10 x 16) = 25.6: (64 / 89.6) / (128 / 153.6) = 6/7 of the rate.
  CHECK(seconds(attention(64, trace::Pass::BackwardData)) ==
        simtrain::testing::Approx(kReferenceRate * 7 / 6 + kLaunch).epsilon(kRel));
  for (std::int64_t head_dim : {128, 192, 256})  // the reference size and above keep the measured rate
    CHECK(seconds(attention(head_dim, trace::Pass::Forward)) ==
          simtrain::testing::Approx(kReferenceRate + kLaunch).epsilon(kRel));
  // Tensor cores half as fast per clock (x = 32): (64 / 96) / (128 / 160) = 5/6 of the rate.
  profile.device.clock_mhz *= 2;
  CHECK(seconds(attention(64, trace::Pass::Forward)) ==
        simtrain::testing::Approx(kReferenceRate * 6 / 5 + kLaunch).epsilon(kRel));
}

TEST_CASE("a GPU whose special-function units do more exponentials per clock runs attention faster") {
  auto profile = test_profile();
  // As above: 4 SMs of 1,280 fp16 tensor-core FLOPs per clock, the rate measured at head size 128.
  profile.device.sm_count = 4;
  profile.device.clock_mhz = 200e12 / (4 * 1280 * 1e6);
  profile.efficiencies.attention_head_dim = 128;
  profile.efficiencies.attention_softmax_cost = 3.2;
  const auto seconds = [&](std::int64_t head_dim) {
    trace::ComputeSpec k = kernel(ComputeKind::Attention, DType::FP16, 1e12, 0);
    k.shape = {2, 16, 4096, head_dim};
    k.pass = trace::Pass::Forward;
    return cost::ComputeCostModel(profile).cost(k).duration_s;
  };
  constexpr double kReferenceRate = 50e-3;            // 1e12 FLOPs at 200 TFLOP/s x 0.1
  profile.device.exponentials_per_clock_per_sm = 16;  // what `attention` was measured at: as unknown (0)
  CHECK(seconds(128) == simtrain::testing::Approx(kReferenceRate + kLaunch).epsilon(kRel));
  // Twice the exponentials: forward x = 3.2 x 1280 / (4 x 32) = 32 against 64 at the measured rate, so
  // (128 / 160) / (128 / 192) = 1.2 times the rate at head size 128 and above.
  profile.device.exponentials_per_clock_per_sm = 32;
  for (std::int64_t head_dim : {128, 256})
    CHECK(seconds(head_dim) == simtrain::testing::Approx(kReferenceRate / 1.2 + kLaunch).epsilon(kRel));
  // Head size 64: (64 / 96) / (128 / 192) = 1, the smaller head's loss and the faster unit cancelling.
  CHECK(seconds(64) == simtrain::testing::Approx(kReferenceRate + kLaunch).epsilon(kRel));
}

TEST_CASE("Hopper's head-size rule predicts cuDNN's published H100 rates at head size 64 within 5%") {
  // validation/reference/kernels/flashattention3_h100_head_dim.csv: the FlashAttention-3 paper's H100
  // figures; cuDNN's rate at head size 64 over its rate at 128, each pass at the longest sequence.
  std::ifstream table(std::string(SIMTRAIN_REFERENCE_DIR) + "/kernels/flashattention3_h100_head_dim.csv");
  REQUIRE(table);
  std::map<std::pair<std::string, int>, double> rate;  // (pass, head size) -> TFLOP/s at 16,384 tokens
  for (std::string line; std::getline(table, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("pass,", 0) == 0) continue;
    std::vector<std::string> field;
    std::stringstream row(line);
    for (std::string f; std::getline(row, f, ',');) field.push_back(f);
    REQUIRE(field.size() == 5);
    if (field[1] == "cuDNN" && field[3] == "16384")
      rate[{field[0], std::stoi(field[2])}] = std::stod(field[4]);
  }
  const auto h100 = calibration::load_profile("h100-sxm5");
  const cost::ComputeCostModel model(h100);
  for (const auto& [name, pass] :
       {std::pair{"forward", trace::Pass::Forward}, std::pair{"backward", trace::Pass::BackwardData}}) {
    REQUIRE(rate.contains({name, 64}));
    REQUIRE(rate.contains({name, 128}));
    const auto seconds = [&](std::int64_t head_dim) {
      trace::ComputeSpec k = kernel(ComputeKind::Attention, DType::BF16, 1e12, 0);
      k.shape = {1, 16, 16384, head_dim};
      k.pass = pass;
      return model.cost(k).duration_s - h100.efficiencies.kernel_launch_s;
    };
    const double predicted = seconds(128) / seconds(64), measured = rate[{name, 64}] / rate[{name, 128}];
    INFO(std::string(name) << ": predicted " << predicted << ", measured " << measured);
    CHECK(predicted == simtrain::testing::Approx(measured).epsilon(0.05));
  }
}

TEST_CASE("a FlashAttention-2 kernel runs at the profile's own fraction where known, else at attention") {
  auto profile = test_profile();
  trace::ComputeSpec flash2 = kernel(ComputeKind::Attention, DType::FP16, 1e12, 0);
  flash2.attention_kernel = trace::AttentionKernel::FlashAttention2;
  // Not known: 200 TFLOP/s x 0.1, as Transformer Engine's attention.
  CHECK(cost::ComputeCostModel(profile).cost(flash2).duration_s ==
        simtrain::testing::Approx(50e-3 + kLaunch).epsilon(kRel));
  profile.efficiencies.attention_flash2 = 0.05;
  const cost::ComputeCostModel model(profile);
  CHECK(model.cost(flash2).duration_s == simtrain::testing::Approx(100e-3 + kLaunch).epsilon(kRel));
  flash2.attention_kernel = trace::AttentionKernel::Fused;
  CHECK(model.cost(flash2).duration_s == simtrain::testing::Approx(50e-3 + kLaunch).epsilon(kRel));
  // The short-sequence rate applies to either kernel.
  profile.efficiencies.attention_fixed_tiles = 8;
  flash2.attention_kernel = trace::AttentionKernel::FlashAttention2;
  flash2.kv_tiles = 2;
  CHECK(cost::ComputeCostModel(profile).cost(flash2).duration_s ==
        simtrain::testing::Approx(100e-3 / 0.3 + kLaunch).epsilon(kRel));
}

TEST_CASE("FlashAttention's Triton port runs at 1/1.4 of FlashAttention-2's rate forward, half backward") {
  auto profile = test_profile();
  profile.efficiencies.attention_flash2 = 0.05;
  const cost::ComputeCostModel model(profile);
  trace::ComputeSpec attention = kernel(ComputeKind::Attention, DType::FP16, 1e12, 0);
  attention.attention_kernel = trace::AttentionKernel::Triton;
  // FlashAttention-2's 1e12 FLOPs at 200 TFLOP/s x 0.05 take 100 ms.
  attention.pass = trace::Pass::Forward;
  CHECK(model.cost(attention).duration_s == simtrain::testing::Approx(140e-3 + kLaunch).epsilon(kRel));
  attention.pass = trace::Pass::BackwardData;
  CHECK(model.cost(attention).duration_s == simtrain::testing::Approx(200e-3 + kLaunch).epsilon(kRel));
  // Without a FlashAttention-2 figure its shares are of the fused kernel's (0.1: 50 ms).
  CHECK(cost::ComputeCostModel(test_profile()).cost(attention).duration_s ==
        simtrain::testing::Approx(100e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("memory-bound kernel families do their FLOPs at the fp32 peak with the memory efficiency") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  // An fp16 elementwise kernel of 1e10 FLOPs and no bytes: 1e10 / (10 TFLOP/s * 0.5) = 2 ms, not the
  // 0.1 ms the fp16 tensor-core peak would give.
  const auto c = model.cost(kernel(ComputeKind::Elementwise, DType::FP16, 1e10, 0));
  CHECK(c.duration_s == simtrain::testing::Approx(2e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("GEMMs and convolutions pick the tensor-core, tf32 or fp32 efficiency by dtype") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  struct Case {
    ComputeKind kind;
    DType dtype;
    double expected_s;  // 1e12 FLOPs / (peak * efficiency)
  };
  const Case cases[] = {
      {ComputeKind::Gemm, DType::FP16, 1e12 / (kFp16Peak * 0.5)},    // gemm
      {ComputeKind::Conv, DType::FP16, 1e12 / (kFp16Peak * 0.25)},   // conv
      {ComputeKind::Gemm, DType::TF32, 1e12 / (kTf32Peak * 0.4)},    // gemm_tf32
      {ComputeKind::Conv, DType::TF32, 1e12 / (kTf32Peak * 0.2)},    // conv_tf32
      {ComputeKind::Gemm, DType::FP32, 1e12 / (kFp32Peak * 0.8)},    // gemm_fp32
      {ComputeKind::Conv, DType::FP32, 1e12 / (kFp32Peak * 0.625)},  // conv_fp32
      {ComputeKind::Attention, DType::FP16, 1e12 / (kFp16Peak * 0.1)},
  };
  for (const Case& c : cases) {
    CAPTURE(trace::to_string(c.kind));
    CAPTURE(to_string(c.dtype));
    CHECK(model.cost(kernel(c.kind, c.dtype, 1e12, 0)).duration_s ==
          simtrain::testing::Approx(c.expected_s + kLaunch).epsilon(kRel));
  }
}

TEST_CASE("tf32 on a GPU without TF32 units runs at the fp32 peak with the fp32 efficiencies") {
  auto profile = test_profile();
  profile.device.peak_flops_per_s.erase(DType::TF32);
  const cost::ComputeCostModel model(profile);
  CHECK(model.effective_peak_flops(DType::TF32) == kFp32Peak);
  CHECK(model.cost(kernel(ComputeKind::Gemm, DType::TF32, 1e12, 0)).duration_s ==
        simtrain::testing::Approx(1e12 / (kFp32Peak * 0.8) + kLaunch).epsilon(kRel));
  CHECK(model.cost(kernel(ComputeKind::Conv, DType::TF32, 1e12, 0)).duration_s ==
        simtrain::testing::Approx(1e12 / (kFp32Peak * 0.625) + kLaunch).epsilon(kRel));
}

TEST_CASE("the effective peak of a supported dtype is its own, of an unsupported one 0") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  CHECK(model.effective_peak_flops(DType::FP16) == kFp16Peak);
  CHECK(model.effective_peak_flops(DType::TF32) == kTf32Peak);
  CHECK(model.effective_peak_flops(DType::BF16) == 0);
}

TEST_CASE("a bf16 kernel on a GPU without bf16 support is an error naming the GPU") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  CHECK_THROWS_AS(model.cost(kernel(ComputeKind::Gemm, DType::BF16, 1e9, 1e6)), Error);
  CHECK_THROWS_WITH(model.cost(kernel(ComputeKind::Gemm, DType::BF16, 1e9, 1e6)),
                    doctest::Contains("TestGPU has no bf16 support"));
}

TEST_CASE("a duration measured in the trace wins over table and roofline, even when it is zero") {
  const auto profile = test_profile();
  const cost::ComputeCostModel model(profile);
  auto k = kernel(ComputeKind::Gemm, DType::BF16, 1e12, 1e9);  // unsupported dtype: no roofline possible
  k.duration_s = 0.125;
  CHECK(model.cost(k).duration_s == 0.125);
  CHECK(model.cost(k).source == cost::CostSource::Trace);
  k.duration_s = 0;
  CHECK(model.cost(k).duration_s == 0);
  CHECK(model.cost(k).source == cost::CostSource::Trace);
}

TEST_CASE("a measured GEMM of the exact shape and dtype wins over the roofline") {
  auto profile = test_profile();
  profile.gemm.push_back({1024, 2048, 512, DType::FP16, false, false, 3e-5});
  const cost::ComputeCostModel model(profile);
  auto k = kernel(ComputeKind::Gemm, DType::FP16, 2.0 * 1024 * 2048 * 512, 1e6);
  k.shape = {1024, 2048, 512};
  CHECK(model.cost(k).duration_s == 3e-5);
  CHECK(model.cost(k).source == cost::CostSource::Measured);

  auto other_dtype = k;
  other_dtype.dtype = DType::FP32;
  CHECK(model.cost(other_dtype).source == cost::CostSource::Roofline);
  // Another shape of the same dtype is scaled from the measured one by work (multiply-adds): half the K,
  // half the time. Relative 1e-12: the scaling goes through log and exp.
  auto other_shape = k;
  other_shape.shape = {1024, 2048, 256};
  CHECK(model.cost(other_shape).source == cost::CostSource::Interpolated);
  CHECK(model.cost(other_shape).duration_s == simtrain::testing::Approx(1.5e-5).epsilon(1e-12));
}

TEST_CASE("a measured kernel is looked up as <kind>_<pass>, e.g. conv_forward") {
  auto profile = test_profile();
  const std::vector<std::int64_t> shape = {32, 64, 56, 56, 64, 3, 3, 1, 1};
  profile.kernels.push_back({"conv_forward", shape, DType::FP16, 2e-4});
  const cost::ComputeCostModel model(profile);
  auto forward = kernel(ComputeKind::Conv, DType::FP16, 1e11, 1e8);
  forward.pass = trace::Pass::Forward;
  forward.shape = shape;
  CHECK(model.cost(forward).duration_s == 2e-4);
  CHECK(model.cost(forward).source == cost::CostSource::Measured);

  auto backward = forward;  // same shape, another pass: "conv_backward_data" is not in the table
  backward.pass = trace::Pass::BackwardData;
  CHECK(model.cost(backward).source == cost::CostSource::Roofline);
}

TEST_CASE("an interpolated time is never shorter than the kernel's bytes take at the memory roofline") {
  auto profile = test_profile();
  profile.gemm.push_back({1024, 2048, 512, DType::FP16, false, false, 3e-5});
  const cost::ComputeCostModel model(profile);
  // Scaled by work alone, K = 256 would take 1.5e-5 s; its 1e8 bytes at 1 TB/s * 0.5 take 2e-4 s.
  auto thin = kernel(ComputeKind::Gemm, DType::FP16, 2.0 * 1024 * 2048 * 256, 1e8);
  thin.shape = {1024, 2048, 256};
  CHECK(model.cost(thin).source == cost::CostSource::Interpolated);
  CHECK(model.cost(thin).duration_s == simtrain::testing::Approx(2e-4).epsilon(kRel));
  // A measured row is the measurement, whatever its bytes.
  auto exact = thin;
  exact.shape = {1024, 2048, 512};
  CHECK(model.cost(exact).duration_s == 3e-5);
}

TEST_CASE("a pointwise stride-1 convolution costs the lesser of itself and the GEMM it is") {
  auto profile = test_profile();
  // {n, c, h, w, k, r, s, stride, pad}: 8 x 10 x 10 = 800 pixels, 64 -> 128 channels.
  const std::vector<std::int64_t> pointwise = {8, 64, 10, 10, 128, 1, 1, 1, 0};
  profile.kernels.push_back({"conv_forward", pointwise, DType::FP16, 5e-5});
  profile.kernels.push_back({"conv_backward_data", pointwise, DType::FP16, 1e-5});
  profile.gemm.push_back({800, 128, 64, DType::FP16, false, true, 2e-5});  // forward: {pixels, out, in}
  profile.gemm.push_back(
      {800, 64, 128, DType::FP16, false, false, 4e-5});  // data gradient: {pixels, in, out}
  const cost::ComputeCostModel model(profile);
  auto forward = kernel(ComputeKind::Conv, DType::FP16, 2.0 * 800 * 64 * 128, 1e3);
  forward.pass = trace::Pass::Forward;
  forward.shape = pointwise;
  CHECK(model.cost(forward).duration_s == 2e-5);  // the GEMM is faster
  auto backward = forward;
  backward.pass = trace::Pass::BackwardData;
  CHECK(model.cost(backward).duration_s == 1e-5);  // the convolution is faster

  // A 3x3 or a strided 1x1 convolution is not a plain GEMM: its own time stands.
  for (const auto& shape : {std::vector<std::int64_t>{8, 64, 10, 10, 128, 3, 3, 1, 1},
                            std::vector<std::int64_t>{8, 64, 10, 10, 128, 1, 1, 2, 0}}) {
    profile.kernels.push_back({"conv_forward", shape, DType::FP16, 5e-5});
    const cost::ComputeCostModel with_shape(profile);
    auto other = forward;
    other.shape = shape;
    CHECK(with_shape.cost(other).duration_s == 5e-5);
  }
}

TEST_CASE("activations ignore the measured cuDNN rows: frameworks run their own elementwise kernels") {
  auto profile = test_profile();
  profile.kernels.push_back({"activation_forward", {1000000}, DType::FP16, 1.0});
  const cost::ComputeCostModel model(profile);
  auto relu = kernel(ComputeKind::Activation, DType::FP16, 1e6, 4e6);
  relu.pass = trace::Pass::Forward;
  relu.shape = {1000000};
  CHECK(model.cost(relu).source == cost::CostSource::Roofline);
  CHECK(model.cost(relu).duration_s ==
        simtrain::testing::Approx(4e6 / (kBandwidth * 0.5) + kLaunch).epsilon(kRel));
}

TEST_CASE("cost_programs gives every op its duration and counts ops by where the duration came from") {
  auto profile = test_profile();
  profile.gemm.push_back({8, 8, 8, DType::FP16, false, false, 7e-6});
  const cost::ComputeCostModel model(profile);

  trace::Op timed;
  timed.compute = kernel(ComputeKind::Gemm, DType::FP16, 1e12, 0);
  timed.compute.duration_s = 0.5;
  trace::Op measured;
  measured.compute = kernel(ComputeKind::Gemm, DType::FP16, 1024, 0);
  measured.compute.shape = {8, 8, 8};
  trace::Op roofline;
  roofline.compute = kernel(ComputeKind::Gemm, DType::FP16, 1e12, 0);
  trace::Op all_reduce;
  all_reduce.type = trace::OpType::Collective;
  all_reduce.collective.bytes = 1e9;

  trace::Trace t;
  t.programs.resize(2);
  t.programs[0].ops = {timed, measured, all_reduce};
  t.programs[1].ops = {roofline, measured};
  const cost::ProgramCosts costs = cost::cost_programs(t, model, "test-gpu");

  REQUIRE(costs.duration_s.size() == 2);
  CHECK(costs.duration_s[0] == std::vector<double>{0.5, 7e-6, 0.0});
  REQUIRE(costs.duration_s[1].size() == 2);
  CHECK(costs.duration_s[1][0] == simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  CHECK(costs.duration_s[1][1] == 7e-6);
  CHECK(costs.trace_timed_ops == 1);
  CHECK(costs.measured_ops == 2);  // once per program holding it
  CHECK(costs.roofline_ops == 1);
}

TEST_CASE("FP8 and FP4 GEMMs take their own fractions of their own peaks") {
  auto profile = test_profile();
  profile.device.peak_flops_per_s[DType::FP8] = 400e12;
  profile.device.peak_flops_per_s[DType::FP4] = 800e12;
  profile.efficiencies.gemm_fp8 = 0.25;
  profile.efficiencies.gemm_fp4 = 0.125;
  const cost::ComputeCostModel model(profile);
  // 1e12 FLOPs: at 400 TFLOP/s x 0.25 and at 800 TFLOP/s x 0.125 both take 10 ms, as fp16's 200 x 0.5.
  for (DType dtype : {DType::FP8, DType::FP4, DType::FP16}) {
    CAPTURE(to_string(dtype));
    CHECK(model.cost(kernel(ComputeKind::Gemm, dtype, 1e12, 0)).duration_s ==
          simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  }
}

TEST_CASE("a power-limited GPU sustains GEMMs at its power limit times the FLOPs per joule, if lower") {
  auto profile = test_profile();
  profile.device.peak_flops_per_s[DType::FP8] = 400e12;
  profile.efficiencies.gemm_fp8 = 0.25;  // 100 TFLOP/s before the power limit binds
  profile.efficiencies.gemm_flops_per_joule = 0.25e12;
  profile.efficiencies.gemm_fp8_flops_per_joule = 0.5e12;
  const auto gemm_s = [&](DType dtype, double watts) {
    profile.device.power_limit_w = watts;
    return cost::ComputeCostModel(profile).cost(kernel(ComputeKind::Gemm, dtype, 1e12, 0)).duration_s;
  };
  // 100 W buys 25 TFLOP/s of fp16 and 50 of FP8, both below their 100 TFLOP/s fractions.
  CHECK(gemm_s(DType::FP16, 100) == simtrain::testing::Approx(1.0 / 25 + kLaunch).epsilon(kRel));
  CHECK(gemm_s(DType::FP8, 100) == simtrain::testing::Approx(1.0 / 50 + kLaunch).epsilon(kRel));
  // 1,000 W would buy more than the fractions give: they bind.
  CHECK(gemm_s(DType::FP16, 1000) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  // No power limit known, or no FLOPs per joule for the width (FP4 here): the fractions alone.
  CHECK(gemm_s(DType::FP8, 0) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  profile.device.peak_flops_per_s[DType::FP4] = 800e12;
  profile.efficiencies.gemm_fp4 = 0.125;
  CHECK(gemm_s(DType::FP4, 100) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  // Memory-bound kernels and attention are not touched.
  profile.device.power_limit_w = 100;
  const cost::ComputeCostModel model(profile);
  CHECK(model.cost(kernel(ComputeKind::Attention, DType::FP16, 1e12, 0)).duration_s ==
        simtrain::testing::Approx(1.0 / 20 + kLaunch).epsilon(kRel));
}

TEST_CASE("an FP8 GEMM with the split accumulator keeps the profile's fraction of the FP8 rate") {
  auto profile = test_profile();
  profile.device.peak_flops_per_s[DType::FP8] = 400e12;
  profile.efficiencies.gemm_fp8 = 0.25;  // 100 TFLOP/s
  const auto gemm_s = [&](DType dtype, bool split) {
    auto k = kernel(ComputeKind::Gemm, dtype, 1e12, 0);
    k.split_accumulator = split;
    return cost::ComputeCostModel(profile).cost(k).duration_s;
  };
  // Not known: the FP8 rate either way.
  CHECK(gemm_s(DType::FP8, true) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  profile.efficiencies.gemm_fp8_split_accumulator = 0.8;
  CHECK(gemm_s(DType::FP8, true) == simtrain::testing::Approx(1.0 / 80 + kLaunch).epsilon(kRel));
  CHECK(gemm_s(DType::FP8, false) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  // A 16-bit GEMM has no such mode: its tensor cores accumulate in fp32.
  CHECK(gemm_s(DType::FP16, true) == simtrain::testing::Approx(1.0 / 100 + kLaunch).epsilon(kRel));
  // Under a power limit the fraction applies to the rate the limit leaves.
  profile.efficiencies.gemm_fp8_flops_per_joule = 0.5e12;
  profile.device.power_limit_w = 100;  // 50 TFLOP/s
  CHECK(gemm_s(DType::FP8, true) == simtrain::testing::Approx(1.0 / 40 + kLaunch).epsilon(kRel));
}

TEST_CASE("with tiles set, a GEMM whose output tiles leave SMs idle in its last wave runs slower") {
  const auto profile = four_sm_profile();
  const cost::ComputeCostModel model(profile);
  trace::ComputeSpec full = kernel(ComputeKind::Gemm, DType::FP16, 1e12, 0);
  full.shape = {256, 256, 4096};  // 2 x 2 = 4 tiles on 4 SMs: one full wave
  trace::ComputeSpec ragged = full;
  ragged.shape = {256, 384, 4096};  // 2 x 3 = 6 tiles: two waves, the second half empty (6 / 8 busy)
  CHECK(model.cost(full).duration_s == simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  CHECK(model.cost(ragged).duration_s == simtrain::testing::Approx(10e-3 / 0.75 + kLaunch).epsilon(kRel));
  // Without a shape (a kernel from a trace of unknown dimensions) nothing is lost.
  CHECK(model.cost(kernel(ComputeKind::Gemm, DType::FP16, 1e12, 0)).duration_s ==
        simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
}

TEST_CASE("a tensor-core GEMM whose dimensions are not 16-byte aligned runs at the profile's fraction") {
  const auto not_known = test_profile();
  const cost::ComputeCostModel unknown(not_known);
  auto profile = test_profile();
  profile.efficiencies.gemm_misaligned_4_byte = 0.25;
  profile.efficiencies.gemm_misaligned_2_byte = 0.125;
  const cost::ComputeCostModel model(profile);
  auto gemm = [](DType dtype, std::vector<std::int64_t> shape) {
    trace::ComputeSpec k = kernel(ComputeKind::Gemm, dtype, 1e12, 0);
    k.shape = std::move(shape);
    return k;
  };
  // 1e12 FLOPs at 200 TFLOP/s * 0.5 = 10 ms when aligned (every dimension a multiple of 8 fp16 elements).
  CHECK(model.cost(gemm(DType::FP16, {4096, 32000, 1024})).duration_s ==
        simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  // BERT's vocabulary, 4-byte aligned in fp16, and a dimension of 4 elements (8 bytes): the first fraction.
  CHECK(model.cost(gemm(DType::FP16, {4096, 30522, 1024})).duration_s ==
        simtrain::testing::Approx(10e-3 / 0.25 + kLaunch).epsilon(kRel));
  CHECK(model.cost(gemm(DType::FP16, {4096, 1028, 1024})).duration_s ==
        simtrain::testing::Approx(10e-3 / 0.25 + kLaunch).epsilon(kRel));
  // An odd token count (m of a forward GEMM) is no leading dimension: the aligned rate.
  CHECK(model.cost(gemm(DType::FP16, {4097, 32000, 1024})).duration_s ==
        simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  // GPT-2's, 2-byte aligned: the second.
  CHECK(model.cost(gemm(DType::FP16, {4096, 50257, 1600})).duration_s ==
        simtrain::testing::Approx(10e-3 / 0.125 + kLaunch).epsilon(kRel));
  // Not known: the aligned rate. Only 16-bit GEMMs are concerned: fp32 without tensor cores is not, nor
  // tf32 (and FP8, whose odd shapes the H200 ran at the aligned rate).
  CHECK(unknown.cost(gemm(DType::FP16, {4096, 50257, 1600})).duration_s ==
        simtrain::testing::Approx(10e-3 + kLaunch).epsilon(kRel));
  CHECK(model.cost(gemm(DType::FP32, {4096, 50257, 1600})).duration_s ==
        simtrain::testing::Approx(1e12 / (kFp32Peak * 0.8) + kLaunch).epsilon(kRel));
  CHECK(model.cost(gemm(DType::TF32, {4096, 50257, 1600})).duration_s ==
        simtrain::testing::Approx(1e12 / (kTf32Peak * 0.4) + kLaunch).epsilon(kRel));
}

TEST_CASE("Hopper's misaligned-GEMM fractions hold for the GEMMs the H200 profile measured") {
  // The spec profile's figures against the measured profile's own GEMMs (calibration/profiles/h200-sxm.json,
  // where they came from): each misaligned GEMM's time against the median aligned one of comparable work.
  const auto measured = calibration::load_profile(std::string(SIMTRAIN_REFERENCE_DIR) +
                                                  "/../../calibration/profiles/h200-sxm.json");
  const auto hopper = calibration::load_profile("h200-sxm").efficiencies;
  for (const auto& g : measured.gemm) {
    const std::vector<std::int64_t> shape = {g.m, g.n, g.k};
    const double work = static_cast<double>(g.m) * g.n * g.k;
    const int alignment = trace::alignment_bytes(g.dtype, shape);
    if (alignment >= 16 || work < 1e9 || (g.dtype != DType::FP16 && g.dtype != DType::BF16)) continue;
    std::vector<double> aligned_per_mac;
    for (const auto& a : measured.gemm) {
      const double a_work = static_cast<double>(a.m) * a.n * a.k;
      if (a.dtype == g.dtype && a_work >= work / 4 && a_work <= work * 4 &&
          trace::alignment_bytes(a.dtype, {a.m, a.n, a.k}) == trace::kAlignedGemmBytes)
        aligned_per_mac.push_back(a.time_s / a_work);
    }
    REQUIRE(aligned_per_mac.size() >= 5);
    std::sort(aligned_per_mac.begin(), aligned_per_mac.end());
    const double fraction = aligned_per_mac[aligned_per_mac.size() / 2] / (g.time_s / work);
    const double shipped = alignment >= 4 ? hopper.gemm_misaligned_4_byte : hopper.gemm_misaligned_2_byte;
    INFO(g.m << " x " << g.n << " x " << g.k << " " << to_string(g.dtype) << ": " << fraction);
    CHECK(fraction == simtrain::testing::Approx(shipped).epsilon(0.3));
  }
}

TEST_CASE("a grouped GEMM costs one GEMM per group, each with its own tile waves and launch") {
  const auto profile = four_sm_profile();
  const cost::ComputeCostModel model(profile);
  // 8 experts of 128 tokens each, n = 256, k = 4096: each expert's GEMM is 1 x 2 = 2 tiles on 4 SMs (half
  // the SMs busy), 2 * 128 * 256 * 4096 FLOPs at 200 TFLOP/s * 0.5 * 2/4, plus its own 1 us launch.
  auto grouped = kernel(ComputeKind::Gemm, DType::FP16, 8 * 2.0 * 128 * 256 * 4096, 0);
  grouped.shape = {128, 256, 4096, 8};
  const double one_s = 2.0 * 128 * 256 * 4096 / (kFp16Peak * 0.5 * 0.5) + kLaunch;
  CHECK(model.cost(grouped).duration_s == simtrain::testing::Approx(8 * one_s).epsilon(kRel));
  // The same FLOPs as one GEMM of 1024 tokens: 8 x 2 = 16 tiles, four full waves, one launch.
  auto whole = grouped;
  whole.shape = {1024, 256, 4096};
  const double whole_s = 8 * 2.0 * 128 * 256 * 4096 / (kFp16Peak * 0.5) + kLaunch;
  CHECK(model.cost(whole).duration_s == simtrain::testing::Approx(whole_s).epsilon(kRel));
  CHECK(model.cost(grouped).duration_s > 2 * model.cost(whole).duration_s);
}

TEST_CASE("a grouped GEMM of one group costs as the plain GEMM") {
  const auto profile = four_sm_profile();
  const cost::ComputeCostModel model(profile);
  auto plain = kernel(ComputeKind::Gemm, DType::FP16, 2.0 * 256 * 384 * 4096, 1e6);
  plain.shape = {256, 384, 4096};
  auto one_group = plain;
  one_group.shape = {256, 384, 4096, 1};
  CHECK(model.cost(one_group).duration_s ==
        simtrain::testing::Approx(model.cost(plain).duration_s).epsilon(kRel));
}

TEST_CASE("cost sources have the names the Result reports") {
  CHECK(cost::to_string(cost::CostSource::Trace) == "trace");
  CHECK(cost::to_string(cost::CostSource::Measured) == "measured");
  CHECK(cost::to_string(cost::CostSource::Roofline) == "roofline");
}

}  // namespace simtrain
