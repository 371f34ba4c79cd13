// Specification of spec_profiles.h: the built-in datasheet profiles match the reference datasheet table, and
// load_profile finds a profile by spec name or by file path.
#include "calibration/spec_profiles.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "calibration/profile_json.h"
#include "common/error.h"
#include "tests/support/approx.h"
#include "tests/support/reference_csv.h"

namespace simtrain::calibration {
namespace {

namespace fs = std::filesystem;
using testing::CsvRow;
using testing::reference_rows;

CsvRow datasheet_row(const std::string& gpu, const std::string& form_factor) {
  for (const CsvRow& row : reference_rows("datasheets/gpu_peak_specs.csv"))
    if (row.at("gpu") == gpu && row.at("form_factor") == form_factor) return row;
  FAIL("no datasheet row for " << gpu << " " << form_factor);
  return {};
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("simtrain-spec-test-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

TEST_CASE("spec profile names are sorted and cover the datasheet GPUs") {
  const std::vector<std::string> names = spec_profile_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const char* name : {"v100-sxm2-16gb", "v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb",
                           "h100-sxm5", "h200-sxm", "b200", "b300", "gb200", "gb300"}) {
    CAPTURE(name);
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  }
}

TEST_CASE("every spec profile is a valid spec profile that cites its sources") {
  for (const std::string& name : spec_profile_names()) {
    CAPTURE(name);
    const auto profile = spec_profile(name);
    REQUIRE(profile.has_value());
    CHECK(profile->kind == ProfileKind::Spec);
    CHECK_NOTHROW(validate_profile(*profile, name));
    CHECK(profile->environment.source.find("stas00/ml-engineering@744d01e") != std::string::npos);
    CHECK(profile->gemm.empty());
    CHECK(profile->collectives.empty());
  }
}

TEST_CASE(
    "spec profile figures equal the datasheet table: dense peaks, HBM bandwidth, NVLink per direction") {
  struct Case {
    const char* name;
    const char* gpu;
    const char* form_factor;
  };
  const Case cases[] = {{"v100-sxm2-16gb", "V100", "SXM2"},
                        {"v100-sxm2-32gb", "V100", "SXM2"},
                        {"a100-sxm4-40gb", "A100 40GB", "SXM4"},
                        {"a100-sxm4-80gb", "A100 80GB", "SXM4"},
                        {"h100-sxm5", "H100", "SXM5"},
                        {"h200-sxm", "H200", "SXM"},
                        {"b200", "B200", "SXM (HGX)"},
                        {"b300", "B300", "SXM"},
                        {"gb200", "GB200 (per B200 die)", "NVL72"}};
  const std::pair<DType, const char*> columns[] = {{DType::FP32, "fp32_tflops"}, {DType::TF32, "tf32_tflops"},
                                                   {DType::FP16, "fp16_tflops"}, {DType::BF16, "bf16_tflops"},
                                                   {DType::FP8, "fp8_tflops"},   {DType::FP4, "fp4_tflops"}};
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const CsvRow row = datasheet_row(c.gpu, c.form_factor);
    const CalibrationProfile profile = *spec_profile(c.name);
    // Same arithmetic as the profile (decimal text x 1e12), so equality is exact.
    for (const auto& [dtype, column] : columns) {
      CAPTURE(column);
      const std::string cell = row.at(column);
      if (cell.empty()) {
        CHECK(profile.peak_flops(dtype) == 0);  // unsupported: absent from the profile
        CHECK(profile.device.peak_flops_per_s.count(dtype) == 0);
      } else {
        CHECK(profile.peak_flops(dtype) == std::stod(cell) * 1e12);
      }
    }
    CHECK(profile.device.memory_bandwidth_Bps == std::stod(row.at("mem_bw_GBps")) * 1e9);
    CHECK(profile.device.nvlink_bandwidth_Bps == std::stod(row.at("nvlink_GBps_bidir")) * 1e9 / 2);
    // Memory: the datasheet's "GB" is either decimal or binary depending on the vendor's habit (see
    // spec_profiles.cc), so the size must lie between N x 1e9 and N x 2^30 bytes. V100 lists "16 or 32".
    const std::string mem = row.at("mem_GB");
    if (mem.find("or") == std::string::npos) {
      const double gb = std::stod(mem);
      CHECK(profile.device.memory_bytes >= gb * 1e9);
      CHECK(profile.device.memory_bytes <= gb * 1024 * 1024 * 1024);
    }
    CHECK(profile.device.sm_count > 0);
    CHECK(profile.device.clock_mhz > 0);
    CHECK(profile.device.pcie_bandwidth_Bps > 0);
  }
}

TEST_CASE("efficiencies are one set per GPU generation: Volta, Ampere, Hopper, Blackwell") {
  const auto efficiencies = [](const char* name) { return spec_profile(name)->efficiencies; };
  // Volta and Ampere keep the first central set, which the Selene and DLE validations stand on; Ampere adds
  // FlashAttention-2's own figure (its forward on an A100 at 0.575 of peak, the backward as on Hopper), which
  // is also its fused attention's: frameworks run FlashAttention-2's kernels below Hopper.
  for (const char* name : {"v100-sxm2-16gb", "v100-pcie-16gb"}) {
    CAPTURE(name);
    CHECK(efficiencies(name) == Efficiencies{});
  }
  for (const char* name : {"a100-sxm4-40gb", "a100-sxm4-80gb"}) {
    CAPTURE(name);
    Efficiencies ampere = efficiencies(name);
    CHECK(ampere.attention_flash2 == simtrain::testing::Approx(0.517).epsilon(0.002));
    CHECK(ampere.attention == ampere.attention_flash2);
    CHECK(ampere.attention_reference_kv_tiles == 64);  // measured non-causal at 8,192 tokens
    ampere.attention_flash2 = 0;
    ampere.attention = Efficiencies{}.attention;
    ampere.attention_reference_kv_tiles = Efficiencies{}.attention_reference_kv_tiles;
    CHECK(ampere == Efficiencies{});
  }
  CHECK(efficiencies("h100-sxm5") == efficiencies("h200-sxm"));
  for (const char* name : {"b300", "gb200", "gb300"}) {
    CAPTURE(name);
    CHECK(efficiencies(name) == efficiencies("b200"));
  }
  CHECK(efficiencies("h100-sxm5") != efficiencies("b200"));
  CHECK(efficiencies("h100-sxm5") != Efficiencies{});
  // FP8 GEMMs reach a smaller fraction of their peak than 16-bit ones (tools/derive_efficiencies.py).
  CHECK(efficiencies("h100-sxm5").gemm_fp8 < efficiencies("h100-sxm5").gemm);
}

TEST_CASE("Hopper and Blackwell run PyTorch's own kernels at the rates the H200's traces fitted") {
  // The measured H200 profile holds the figures tools/fit_unvectorized_bandwidth.py and
  // fit_multi_tensor_bandwidth.py fit to the Kineto traces; the spec profiles of both generations carry them.
  const CalibrationProfile measured =
      load_profile(std::string(SIMTRAIN_REFERENCE_DIR) + "/../../calibration/profiles/h200-sxm.json");
  REQUIRE(measured.efficiencies.memory_bound_unvectorized > 0);
  REQUIRE(measured.efficiencies.memory_bound_multi_tensor > 0);
  // Its `attention` was fitted on a causal step at 4,096 tokens (16.5 key tiles per query tile).
  CHECK(measured.efficiencies.attention_reference_kv_tiles == 16);
  for (const char* name : {"h100-sxm5", "h200-sxm", "b200", "gb300"}) {
    CAPTURE(name);
    const Efficiencies spec = spec_profile(name)->efficiencies;
    CHECK(spec.memory_bound_unvectorized == measured.efficiencies.memory_bound_unvectorized);
    CHECK(spec.memory_bound_multi_tensor == measured.efficiencies.memory_bound_multi_tensor);
    // The flash-attention fixed cost per query tile, fitted on top of the head-size rule the spec profiles
    // apply and the measured one does not: that rule already slows the traces' heads of 64, so less is left.
    CHECK(spec.attention_fixed_tiles > 0);
    CHECK(spec.attention_fixed_tiles < measured.efficiencies.attention_fixed_tiles);
    // Their `attention` figures come from non-causal benchmarks at 8,192 tokens.
    CHECK(spec.attention_reference_kv_tiles == 64);
  }
  // Nothing was fitted on Volta or Ampere: their kernels keep the copy rate and the long-sequence rate.
  for (const char* name : {"v100-sxm2-16gb", "a100-sxm4-80gb"}) {
    CAPTURE(name);
    const Efficiencies spec = spec_profile(name)->efficiencies;
    CHECK(spec.memory_bound_unvectorized == 0);
    CHECK(spec.memory_bound_multi_tensor == 0);
    CHECK(spec.attention_fixed_tiles == 0);
  }
}

TEST_CASE("Hopper slows FP8 GEMMs that split their accumulator; Blackwell accumulates in fp32") {
  const auto fraction = [](const char* name) {
    return spec_profile(name)->efficiencies.gemm_fp8_split_accumulator;
  };
  // Fast accumulation is 1.1x to 1.2x faster (pytorch/ao#2377): the middle of that range.
  CHECK(fraction("h100-sxm5") == simtrain::testing::Approx(1 / 1.15).epsilon(0.001));
  for (const char* name : {"b200", "b300", "gb200", "gb300", "a100-sxm4-80gb"}) {
    CAPTURE(name);
    CHECK(fraction(name) == 0);
  }
}

TEST_CASE("the flex MoE dispatcher's figures are what HybridEP's and DeepEP's published runs give") {
  // Blackwell: each GB200 run on 32 SMs moves the same rows as FP8 (7,168 bytes and a 4-byte scale per 128)
  // and as BF16 (14,336 bytes); its two times solve for a cost per row and per byte. Both bandwidths count
  // every row a rank receives, its own too: (N-1)/N of them cross NVLink. The profile holds the medians.
  std::vector<double> row_s, shares;
  double h800_share = 0;
  for (const CsvRow& row : reference_rows("kernels/moe_flex_dispatch_nvlink.csv")) {
    if (row.at("measurement") != "torch_api") continue;
    const double n = std::stod(row.at("ranks")), line = std::stod(row.at("nvlink_GBps")) * 1e9;
    if (row.at("gpu") == "H800") {
      for (const char* column : {"dispatch_fp8_GBps", "combine_GBps"})
        h800_share += std::stod(row.at(column)) * 1e9 * (n - 1) / n / line / 2;
      continue;
    }
    if (row.at("gpu") != "GB200" || row.at("sms") != "32") continue;
    const double fp8_bytes = 7168 * (1 + 4.0 / 128), bf16_bytes = 7168 * 2;
    const double fp8_s = fp8_bytes / (std::stod(row.at("dispatch_fp8_GBps")) * 1e9);
    const double bf16_s = bf16_bytes / (std::stod(row.at("dispatch_bf16_GBps")) * 1e9);
    const double per_byte_s = (bf16_s - fp8_s) / (bf16_bytes - fp8_bytes);
    row_s.push_back((fp8_s - fp8_bytes * per_byte_s) * n / (n - 1));
    shares.push_back((n - 1) / n / per_byte_s / line);
  }
  REQUIRE(row_s.size() == 5);
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const Efficiencies blackwell = spec_profile("b200")->efficiencies;
  CHECK(blackwell.moe_flex_dispatch_row_s == simtrain::testing::Approx(median(row_s)).epsilon(0.005));
  CHECK(blackwell.moe_flex_dispatch_intra_node == simtrain::testing::Approx(median(shares)).epsilon(0.005));
  // Hopper: DeepEP's one H800 run, its FP8 dispatch and BF16 combine averaged, bytes only.
  const Efficiencies hopper = spec_profile("h100-sxm5")->efficiencies;
  CHECK(hopper.moe_flex_dispatch_intra_node == simtrain::testing::Approx(h800_share).epsilon(0.005));
  CHECK(hopper.moe_flex_dispatch_row_s == 0);
  // NCCL's all-to-all reaches more of the same NVLink (OCI's GB300 rack: 0.73), and older GPUs keep it.
  CHECK(spec_profile("gb200")->efficiencies.moe_flex_dispatch_intra_node <
        spec_profile("gb200")->efficiencies.nccl_intra_node);
  CHECK(spec_profile("a100-sxm4-80gb")->efficiencies.moe_flex_dispatch_intra_node == 0);
}

TEST_CASE("Blackwell's and Hopper's sustained GEMM rates follow each GPU's power limit; Ampere has none") {
  // Azure's 10,000-warm-up FP8 sweeps (tools/derive_efficiencies.py): GB200 at 1,200 W runs the 16384^3 GEMM
  // at 2,907 TFLOP/s, GB300 at 1,400 W at 3,309, with the same 5,000 TFLOP/s FP8 peak. The profile's
  // sustained tensor-core rate, with the GEMM's memory time combined as the cost model does (the root of
  // the sum of squares) and its last ragged wave of 128 x 128 tiles, gives that rate within 3%.
  const auto sustained_fp8 = [](const char* name) {
    const CalibrationProfile p = *spec_profile(name);
    return std::min(p.efficiencies.gemm_fp8 * p.peak_flops(DType::FP8),
                    p.device.power_limit_w * p.efficiencies.gemm_fp8_flops_per_joule);
  };
  const auto square_16384 = [&](const char* name) {
    const CalibrationProfile p = *spec_profile(name);
    const double n = 16384, flops = 2 * n * n * n, tiles = (n / 128) * (n / 128);
    const double waves = std::ceil(tiles / p.device.sm_count),
                 wave_fraction = tiles / (waves * p.device.sm_count);
    const double compute_s = flops / (sustained_fp8(name) * wave_fraction);
    const double memory_s =
        n * n * (1 + 1 + 2) / (p.device.memory_bandwidth_Bps * p.efficiencies.memory_bound);
    return flops / std::hypot(compute_s, memory_s);
  };
  CHECK(square_16384("gb200") == simtrain::testing::Approx(2907e12).epsilon(0.03));
  CHECK(square_16384("gb300") == simtrain::testing::Approx(3309e12).epsilon(0.03));
  CHECK(sustained_fp8("b200") < sustained_fp8("b300"));
  CHECK(sustained_fp8("b300") < sustained_fp8("gb200"));
  // The power limits are the datasheet TDPs.
  CHECK(spec_profile("b200")->device.power_limit_w == 1000);
  CHECK(spec_profile("h100-sxm5")->device.power_limit_w == 700);
  // Hopper's joule buys its sustained sweep rate over its 700 W TDP: at the TDP the power limit costs
  // nothing, capped to 500 W (Meta's Grand Teton H100s) the GEMMs sustain 5/7 of it.
  for (const char* name : {"h100-sxm5", "h200-sxm"}) {
    CAPTURE(name);
    const CalibrationProfile p = *spec_profile(name);
    CHECK(p.device.power_limit_w * p.efficiencies.gemm_fp8_flops_per_joule >=
          p.efficiencies.gemm_fp8 * p.peak_flops(DType::FP8));
    CHECK(p.device.power_limit_w * p.efficiencies.gemm_flops_per_joule >=
          p.efficiencies.gemm * p.peak_flops(DType::BF16));
    CHECK(500 * p.efficiencies.gemm_flops_per_joule ==
          simtrain::testing::Approx(p.efficiencies.gemm * p.peak_flops(DType::BF16) * 5 / 7));
  }
  CHECK(spec_profile("a100-sxm4-80gb")->efficiencies.gemm_fp8_flops_per_joule == 0);
  CHECK(spec_profile("a100-sxm4-80gb")->efficiencies.gemm_flops_per_joule == 0);
}

TEST_CASE("GB300's figures are NVIDIA's GB300 NVL72 rack figures per GPU, dense") {
  const CalibrationProfile gb300 = *spec_profile("gb300");
  CHECK(gb300.peak_flops(DType::FP4) == 15000e12);  // 1,080 PFLOP/s dense FP4 / 72
  CHECK(gb300.peak_flops(DType::FP8) == 5000e12);   // 720 PFLOP/s sparse / 2 / 72
  CHECK(gb300.peak_flops(DType::BF16) == 2500e12);  // 360 PFLOP/s sparse / 2 / 72
  CHECK(gb300.device.memory_bytes == 288e9);
  CHECK(gb300.device.memory_bandwidth_Bps == 8000e9);
  // Hopper and older have no FP4 tensor cores.
  CHECK(spec_profile("h100-sxm5")->peak_flops(DType::FP4) == 0);
}

TEST_CASE("Blackwell Ultra doubles the exponentials per clock; the other GPUs keep the default 16") {
  for (const char* name : {"b300", "gb300"}) {
    CAPTURE(name);
    CHECK(spec_profile(name)->device.exponentials_per_clock_per_sm == 32);
  }
  for (const char* name : {"a100-sxm4-80gb", "h100-sxm5", "h200-sxm", "b200", "gb200"}) {
    CAPTURE(name);
    CHECK(spec_profile(name)->device.exponentials_per_clock_per_sm == 0);
  }
}

TEST_CASE("the datasheet's headline figures are the expected ones") {
  // Spot checks written out by hand, so a change to the CSV or the table cannot silently move both.
  CHECK(spec_profile("a100-sxm4-80gb")->peak_flops(DType::BF16) == 312e12);
  CHECK(spec_profile("a100-sxm4-80gb")->device.memory_bytes == 80.0 * (1 << 30));
  CHECK(spec_profile("h100-sxm5")->peak_flops(DType::FP8) == 1979e12);
  CHECK(spec_profile("h100-sxm5")->device.nvlink_bandwidth_Bps == 450e9);
  CHECK(spec_profile("h200-sxm")->device.memory_bytes == 141e9);
  CHECK(spec_profile("b200")->device.nvlink_bandwidth_Bps == 900e9);
  CHECK(spec_profile("b200")->device.sm_count == 148);
  CHECK(spec_profile("v100-sxm2-16gb")->device.pcie_bandwidth_Bps == 16e9);
  CHECK(spec_profile("v100-sxm2-16gb")->peak_flops(DType::TF32) == 0);
}

TEST_CASE("the P100 PCIe profile carries NVIDIA's datasheet figures") {
  // Not in gpu_peak_specs.csv: the Tesla P100 PCIe datasheet's 16 GB card, written out by hand.
  const CalibrationProfile p100 = *spec_profile("p100-pcie-16gb");
  CHECK(p100.peak_flops(DType::FP32) == 9.3e12);
  CHECK(p100.peak_flops(DType::FP16) == 18.7e12);
  CHECK(p100.peak_flops(DType::TF32) == 0);  // no tensor cores
  CHECK(p100.device.memory_bandwidth_Bps == 732e9);
  CHECK(p100.device.memory_bytes == 16.0 * (1 << 30));
  CHECK(p100.device.nvlink_bandwidth_Bps == 0);
  CHECK(p100.device.pcie_bandwidth_Bps == 16e9);
  CHECK(p100.environment.source.find("Tesla P100 PCIe datasheet") != std::string::npos);
}

TEST_CASE("spec profile names are case-insensitive and unknown names give nothing") {
  CHECK(spec_profile("H100-SXM5") == spec_profile("h100-sxm5"));
  CHECK(spec_profile("B200").has_value());
  CHECK_FALSE(spec_profile("h100").has_value());
  CHECK_FALSE(spec_profile("").has_value());
}

TEST_CASE("load_profile takes a spec name first, then a file path") {
  const TempDir dir;
  CalibrationProfile measured = *spec_profile("a100-sxm4-80gb");
  measured.kind = ProfileKind::Measured;
  const std::string path = (dir.path / "mine.json").string();
  write_profile_file(measured, path);
  CHECK(load_profile(path) == measured);
  CHECK(load_profile("A100-SXM4-80GB") == *spec_profile("a100-sxm4-80gb"));

  // A file in the working directory named like a spec profile does not shadow it.
  const fs::path previous = fs::current_path();
  fs::current_path(dir.path);
  std::ofstream(dir.path / "b200") << "not json";
  const CalibrationProfile by_name = load_profile("b200");
  fs::current_path(previous);
  CHECK(by_name == *spec_profile("b200"));
}

TEST_CASE("load_profile of neither a spec name nor a file lists the spec names") {
  try {
    load_profile("/nonexistent/tpu-v5.json");
    FAIL("expected an Error");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message.find("unknown profile '/nonexistent/tpu-v5.json'") == 0);
    CHECK(message.find("a100-sxm4-80gb, b200, b300, gb200, gb300, h100-sxm5") != std::string::npos);
    CHECK(message.find("nor a readable file") != std::string::npos);
  }
}

TEST_CASE("load_profile reports a broken profile file with its own error") {
  const TempDir dir;
  const std::string path = (dir.path / "broken.json").string();
  std::ofstream(path) << "{\n  \"schema\": \n}\n";
  try {
    load_profile(path);
    FAIL("expected an Error");
  } catch (const Error& error) {
    CHECK(error.file() == path);
    CHECK(error.line() == 3);
  }
}

}  // namespace simtrain::calibration
