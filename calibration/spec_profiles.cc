// Built-in spec profiles: datasheet figures for GPUs nobody has measured, and the lookup of a profile by spec
// name or file path.
//
// Figures come from validation/reference/datasheets/gpu_peak_specs.csv and interconnect_specs.csv: dense
// rates (no structured sparsity), TFLOP/s x 1e12, HBM GB/s x 1e9, NVLink per direction = bidirectional / 2.
// The P100, absent from those tables, takes NVIDIA's Tesla P100 PCIe datasheet figures.
#include "calibration/spec_profiles.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "calibration/profile_json.h"
#include "common/error.h"
#include "common/suggest.h"

namespace simtrain::calibration {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;

double tflops(double value) { return value * 1e12; }
double gb_per_s(double value) { return value * 1e9; }

// PCIe x16 per direction, nominal (the ml-engineering table lists 31 and 63 GB/s measured-ish figures for
// Gen4/Gen5; the nominal rate is what a datasheet promises and what other spec figures here are).
constexpr double kPcieGen3 = 16e9;
constexpr double kPcieGen4 = 32e9;
constexpr double kPcieGen5 = 64e9;
constexpr double kPcieGen6 = 128e9;
// Grace-Blackwell: the GPU reaches its Grace CPU's memory over NVLink-C2C, 900 GB/s bidirectional.
constexpr double kNvlinkC2C = 450e9;

constexpr const char* kSource =
    "datasheet figures (dense, no sparsity) from stas00/ml-engineering@744d01e compute/accelerator/README.md "
    "and network/README.md tables, and vendor datasheets";

// Roofline efficiencies per GPU generation (tools/derive_efficiencies.py prints each figure with its basis).
//
// Volta and Ampere keep the first central set (Efficiencies' defaults): DeepBench V100 medians over
// realistic shapes, which the Selene (Megatron-LM 2021-22, cuBLAS 11) and DeepLearningExamples validations
// stand on. The Azure cuBLASLt 12.5 sweep on A100 reaches 0.82 of peak at large sizes; 2021's kernels did
// not.
Efficiencies volta_ampere_efficiencies() { return {}; }

// Ampere adds FlashAttention-2's own figure (the flash-attn package's kernels, and its Triton port's shares
// of them), which does not run on Volta: 0.517, its forward on an A100
// (azure_microbench_hbm_nvbw_flashattn.csv: 179.5 TFLOP/s at head size 64, batch 2, seq 8192; 0.575 of peak)
// with the backward and the combination by FLOPs as Hopper's attention_flash2 (below). It is `attention` too:
// below compute capability 9.0 the fused attention frameworks run is FlashAttention-2's. Transformer Engine
// prefers its FlashAttention backend to cuDNN's there (it turns to cuDNN from Hopper on), and PyTorch's SDPA
// tries its flash backend, FlashAttention-2's kernels since PyTorch 2.2, before cuDNN's on Ampere.
Efficiencies ampere_efficiencies() {
  Efficiencies eff = volta_ampere_efficiencies();
  eff.attention_flash2 = 0.517;
  eff.attention = eff.attention_flash2;
  eff.attention_reference_kv_tiles = 64;  // non-causal at 8,192 tokens; no fixed cost is known to apply it to
  return eff;
}

// Hopper (H100, H200), cuBLASLt 12.x and Transformer Engine's cuDNN attention:
// - GEMMs: 128 x 128 output tiles in waves over the SMs, each tile at `core` of peak, combined with the
//   memory time as the root of the sum of squares (compute_cost.cc). FP8 core 0.687: the median over the 12
//   compute-bound GEMMs of Azure's H100 and H200 cuBLASLt FP8 sweeps
//   (validation/reference/kernels/gemm_tflops_published.csv); with the tile waves, the memory time and the
//   4 us launch it predicts all 18 sweep points within 2.7% MAPE (leave one GPU out: 3.2% H100, 2.2% H200).
//   16-bit core 0.764: H100's bf16 MAMF (0.803 of peak, ml-engineering) times the sweep core / FP8 MAMF
//   (0.952).
// - power: sustained, Hopper runs its GEMMs at its power limit, as Blackwell does (below): through Azure's
//   10,000 warm-up iterations H100 and H200 (700 W both) hold 0.952 of their burst FP8 MAMF. So a joule buys
//   the sustained rate over 700 W (16-bit 0.764 x 989 TFLOP/s, FP8 0.687 x 1,979), and a GPU capped below
//   its TDP (`gpu_power_limit_w`, or a lower-TDP part's profile) sustains proportionally less; at 700 W
//   nothing changes. Proportional is Blackwell's finding between 1,200 and 1,400 W (2.46 and 2.42 TFLOP
//   per joule); far below the TDP a lower voltage buys more per joule, so a deep cap comes out somewhat
//   slow.
// - FP8 GEMMs with the split accumulator 0.870 of that, 1 / 1.15: fast accumulation runs FP8 GEMMs 1.1x
//   to 1.2x faster (pytorch/ao#2377, torchao's float8 training benchmark). The sweep's cublaslt_gemm
//   (microsoft/superbenchmark micro_benchmarks/cublaslt_gemm, cublaslt_utils.cc) sets
//   CUBLASLT_MATMUL_DESC_FAST_ACCUM; Transformer Engine turns it off for its data- and weight-gradient GEMMs
//   (transformer_engine/common/recipe: MMParams use_split_accumulator; gemm/cublaslt_gemm.cu). Blackwell has
//   no such mode (NVIDIA/TransformerEngine#2748: no fastAccuMode for sm100).
// - memory-bound 0.863: the mean of STREAM copy, mul, add and triad over datasheet HBM on H100 (0.876) and
//   H200 (0.849) (azure_microbench_hbm_nvbw_flashattn.csv).
// - attention 0.558: FlashAttention-3-class forward at 0.621 of peak (pytorch/benchmark PR 2391: 614 TFLOP/s,
//   batch 2, 16 heads, seq 8192, hdim 128; FlashAttention-2 reached 0.33), the backward at 63/73 of the
//   forward's fraction (FlashAttention-2 paper), combined by FLOPs (1 : 2.5).
// - attention_flash2 0.298: FlashAttention-2 itself, as frameworks outside Transformer Engine run it, by the
//   same rule from its forward on H100 and H200 (azure_microbench_hbm_nvbw_flashattn.csv: 327.9 and 329.3
//   TFLOP/s at hdim 128, batch 2, seq 8192; their mean 0.332 of peak).
// - both at head size 128; smaller heads run slower by the softmax's cost per score element, 1.53 slots of
//   the exponential unit: fitted on cuDNN's H100 forward and backward at head size 64 against 128 (the
//   FlashAttention-3 paper's figures, validation/reference/kernels/flashattention3_h100_head_dim.csv;
//   tools/fit_attention_head_dim.py). Leave one pass out: forward +5.0%, backward -3.9%.
// - misaligned GEMMs, from calibration/profiles/h200-sxm.json (cuBLAS 13 on an H200): each GEMM with BERT's
//   vocabulary of 30,522 (4-byte aligned) or GPT-2's 50,257 (2-byte aligned) at 4,096 tokens, in all three
//   orders and in fp16 and bf16, against the median rate of the aligned GEMMs measured within 4x its work:
//   4-byte 0.318-0.350, median 0.325; 2-byte 0.121-0.181, median 0.170. Each dtype's median predicts the
//   other's within 0.01.
// - the flex MoE dispatcher inside a node 0.680: DeepEP's intranode dispatch and combine on H800 at EP 8
//   (its README: 153 and 158 GB/s of received tokens; validation/reference/kernels/
//   moe_flex_dispatch_nvlink.csv), 7/8 of which cross the H800's 200 GB/s NVLink per direction. The only
//   Hopper measurement inside a node; with one width of one operation per precision it cannot tell a row's
//   fixed cost from its bytes' (Blackwell's below), so Hopper's rows cost their bytes only.
// - PyTorch's own kernels, from the Kineto traces of traces/pytorch/ (seven eager steps on an H200, the
//   figures of calibration/profiles/h200-sxm.json): its unvectorized elementwise path (mixed-dtype and
//   strided operands) at 0.491 of HBM bandwidth (tools/fit_unvectorized_bandwidth.py, 1,074 kernels; leave
//   one model out -10.7% to +7.9%), its multi_tensor_apply optimizer kernels at 0.709
//   (tools/fit_multi_tensor_bandwidth.py, 196 kernels; -9.0% to +9.3% but DenseNet's launch-bound -51.7%),
//   and a flash-attention kernel's fixed cost per query tile, 3.4 key tiles of 128: that fit
//   (tools/fit_attention_tiles.py) run on this profile's own attention model, the head-size rule above
//   included (`simtrain profile show h200-sxm --json`; the measured profile, without the rule, fits 6.3),
//   against `attention` as measured: non-causal at 8,192 tokens (tritonbench's and Azure's flash-attention
//   runs leave causal off), 64 key tiles per query tile. Leave one model out, Llama 2's causal 4,096 keys
//   (16.5 tiles): forward +10.0%, backward -4.5%, where the full rate from 16 tiles on gave -3.7% / -16.5%.
//   Without them a spec profile ran eager PyTorch's casts and optimizer at the copy rate and short
//   sequences' attention at the long-sequence rate.
Efficiencies hopper_efficiencies() {
  Efficiencies eff;
  eff.gemm = 0.764;
  eff.gemm_fp8 = 0.687;
  eff.gemm_fp8_split_accumulator = 0.870;
  constexpr double kHopperTdpW = 700;
  eff.gemm_flops_per_joule = eff.gemm * 989e12 / kHopperTdpW;
  eff.gemm_fp8_flops_per_joule = eff.gemm_fp8 * 1979e12 / kHopperTdpW;
  eff.gemm_tile_m = eff.gemm_tile_n = 128;
  eff.gemm_misaligned_4_byte = 0.325;
  eff.gemm_misaligned_2_byte = 0.170;
  eff.memory_bound = 0.863;
  eff.attention = 0.558;
  eff.attention_flash2 = 0.298;
  eff.attention_head_dim = 128;
  eff.attention_softmax_cost = 1.53;
  eff.moe_flex_dispatch_intra_node = 0.680;
  eff.memory_bound_unvectorized = 0.491;
  eff.memory_bound_multi_tensor = 0.709;
  eff.attention_reference_kv_tiles = 64;
  eff.attention_fixed_tiles = 3.4;
  return eff;
}

// Blackwell (B200, B300, GB200, GB300) is power-limited. Through 10,000 warm-up iterations Azure's cuBLASLt
// sweeps (gemm_tflops_published.csv) sustain FP8 GEMMs at 0.591 of peak on GB200 (1,200 W) and 0.678 on
// GB300 (1,400 W, the same FP8 peak): 2.46 and 2.42 TFLOP per joule. So the sustained rate is the power limit
// times the generation's FLOPs per joule: FP8 2.442e12 (the mean; either GPU's figure predicts the other's
// sweep within 3.8% MAPE), NVFP4 6.010e12 (GB200 5.84, GB300 6.18; the two stored versions of GB200's table
// disagree by up to 30% at the largest sizes), 16-bit 1.254e12 (FP8's times the bf16 / FP8 rate ratio of the
// MAMFs, 0.513: the same clock at the same power). At their TDPs B200 sustains FP8 GEMMs at 0.543 of peak,
// B300 0.597, GB200 0.586, GB300 0.684. The fractions cap that (the rate before the power limit binds):
// each dtype's MAMF (ml-engineering: B200, B300, GB200 bf16 0.776, 0.786, 0.729; fp8 0.763, 0.745, 0.723)
// times Hopper's sweep / MAMF factor; NVFP4 has no MAMF and takes FP8's. Memory-bound: Hopper's STREAM
// fraction; Blackwell's one published figure (GB200 7.35 TB/s, 0.92 of 8 TB/s, Azure's GB200 blog, kernel
// not named) lies within Hopper's kernels' range (H100: copy 0.87 to dot 0.95). Attention 0.493: cuDNN
// 9.13's forward on B200 at 1,605 / 1.3 TFLOP/s (FlashAttention-4, arXiv 2025: 1,605 TFLOP/s, 1.3x cuDNN
// 9.13) = 0.549 of peak, the backward and the combination as on Hopper. No attention_flash2:
// FlashAttention-2 supports Ampere, Ada and Hopper GPUs (its README), so it runs as `attention` here.
// Head sizes below 128 as on Hopper: the same softmax cost in exponential slots, against tensor cores twice
// as fast per clock and SM, so a head of 64 loses more (no published Blackwell figure to check it on).
// PyTorch's unvectorized and multi-tensor kernels and the flash-attention fixed cost per query tile as on
// Hopper (no Blackwell trace to fit them on), as its memory-bound fraction is Hopper's; FlashAttention-4's
// figures run from 8,192 tokens up, so `attention` holds from 64 key tiles as on Hopper (with a fixed cost
// of 3.4 tiles, 64 and 256 tiles differ by 4%).
// The flex MoE dispatcher inside a node (or NVL72 rack): 0.693 of NVLink 5's 900 GB/s per direction for a
// row's bytes plus 7.58 ns per row. HybridEP's FP8 dispatch through its PyTorch API on GB200 (DeepEP's
// docs/README_Hybrid-EP.md, 32 SMs as Megatron-Bridge's recipes set, 8 to 36 ranks) moves 7,392 bytes a row
// where its BF16 dispatch moves 14,336, yet takes 0.6 to 0.7 of its time: what a row costs besides its bytes
// is the FP8 and BF16 times' difference extrapolated to no bytes (each run's pair solved, the medians of the
// five, each over the (N-1)/N of the rows that cross NVLink; moe_flex_dispatch_nvlink.csv,
// tools/derive_efficiencies.py; each run left out of the medians and predicted: 4.1% time MAPE). Held out:
// the B200 run (16 SMs, 8 ranks), BF16 dispatch and combine within 1%, FP8 6% fast; the GB200 combines within
// 8%. Bytes alone (the 20 runs' median, 0.516) price a row of DeepSeek-V3's hidden 7,168 the same, one of
// Nemotron 3 Super's latent 1,024 a third of what it takes. NCCL's own all-to-all reaches 0.73 in OCI's GB300
// rack (the NCCL validation's table).
Efficiencies blackwell_efficiencies() {
  Efficiencies eff;
  eff.gemm = 0.727;
  eff.gemm_fp8 = 0.708;
  eff.gemm_fp4 = 0.708;
  eff.gemm_flops_per_joule = 1.254e12;
  eff.gemm_fp8_flops_per_joule = 2.442e12;
  eff.gemm_fp4_flops_per_joule = 6.010e12;
  eff.gemm_tile_m = eff.gemm_tile_n = 128;
  eff.memory_bound = 0.863;
  eff.attention = 0.493;
  eff.attention_head_dim = 128;
  eff.attention_softmax_cost = 1.53;
  eff.moe_flex_dispatch_intra_node = 0.693;
  eff.moe_flex_dispatch_row_s = 7.58e-9;
  eff.memory_bound_unvectorized = 0.491;
  eff.memory_bound_multi_tensor = 0.709;
  eff.attention_reference_kv_tiles = 64;
  eff.attention_fixed_tiles = 3.4;
  return eff;
}

CalibrationProfile spec(std::string device_name, int sm_count, double clock_mhz, double memory_bytes,
                        double memory_bandwidth_Bps, std::map<DType, double> peaks, double nvlink_Bps,
                        double pcie_Bps, double power_limit_w,
                        Efficiencies efficiencies = volta_ampere_efficiencies()) {
  CalibrationProfile profile;
  profile.kind = ProfileKind::Spec;
  profile.device = {std::move(device_name), sm_count,   clock_mhz, memory_bytes, memory_bandwidth_Bps,
                    std::move(peaks),       nvlink_Bps, pcie_Bps,  power_limit_w};
  profile.environment.source = kSource;
  profile.efficiencies = efficiencies;  // one set per GPU generation, never per GPU
  return profile;
}

// Tesla P100 PCIe datasheet (NVIDIA, 2016): 9.3 TFLOP/s fp32 and 18.7 fp16 (Pascal has no tensor cores; fp16
// is the packed half2 rate), 16 GB HBM2 at 732 GB/s, 56 SMs at 1303 MHz boost, PCIe Gen3 x16, no NVLink.
CalibrationProfile p100_pcie() {
  CalibrationProfile profile =
      spec("P100-PCIE-16GB", 56, 1303, 16 * kGiB, gb_per_s(732),
           {{DType::FP32, tflops(9.3)}, {DType::FP16, tflops(18.7)}}, 0, kPcieGen3, 250);
  profile.environment.source = std::string(kSource) + "; P100: NVIDIA Tesla P100 PCIe datasheet";
  return profile;
}

// Volta: fp16 is tensor-core mixed precision; no tf32, bf16 or fp8.
std::map<DType, double> volta_peaks() { return {{DType::FP32, tflops(15.7)}, {DType::FP16, tflops(125)}}; }

std::map<DType, double> ampere_peaks() {
  return {{DType::FP32, tflops(19.5)},
          {DType::TF32, tflops(156)},
          {DType::FP16, tflops(312)},
          {DType::BF16, tflops(312)}};
}

std::map<DType, double> hopper_peaks() {
  return {{DType::FP32, tflops(67)},
          {DType::TF32, tflops(494.5)},
          {DType::FP16, tflops(989)},
          {DType::BF16, tflops(989)},
          {DType::FP8, tflops(1979)}};
}

// Blackwell Ultra (B300, GB300) doubles the exponentials its special-function units do per clock, which
// attention's softmax runs on (NVIDIA technical blog, "Making Softmax More Efficient with NVIDIA Blackwell
// Ultra": SFU throughput doubled over Blackwell; Blackwell's 16 per clock per SM as every generation since
// Volta).
CalibrationProfile blackwell_ultra(CalibrationProfile profile) {
  profile.device.exponentials_per_clock_per_sm = 32;
  return profile;
}

// B200 and B300 (HGX boards): the same dense 16- and 8-bit rates; Blackwell Ultra (B300) raised FP4.
std::map<DType, double> blackwell_peaks(double fp4_tflops) {
  return {{DType::FP32, tflops(80)},   {DType::TF32, tflops(1125)}, {DType::FP16, tflops(2250)},
          {DType::BF16, tflops(2250)}, {DType::FP8, tflops(4500)},  {DType::FP4, tflops(fp4_tflops)}};
}

// Grace-Blackwell superchips run their GPUs at a higher power limit (~1,200 W): 2.5 PFLOP/s bf16 per GPU.
// GB200's per-GPU row of gpu_peak_specs.csv; GB300 from NVIDIA's GB300 NVL72 page (rack figures / 72, dense
// = sparse / 2: 1,080 PFLOP/s dense FP4, 720 FP8 and 360 bf16 with sparsity; 288 GB HBM3e at 8 TB/s).
std::map<DType, double> grace_blackwell_peaks(double fp4_tflops) {
  return {{DType::FP32, tflops(80)},   {DType::TF32, tflops(1250)}, {DType::FP16, tflops(2500)},
          {DType::BF16, tflops(2500)}, {DType::FP8, tflops(5000)},  {DType::FP4, tflops(fp4_tflops)}};
}

// Power limits are the TDP column of gpu_peak_specs.csv; GB300 takes GB200's 1,200 W plus the 16% more TDP
// Azure gives ND GB300 v6 than ND GB200 v6 (techcommunity.microsoft.com, Azure HPC blog 4466080), ~1,400 W.
// Memory sizes are what the card reports to software: V100, A100 and H100 sizes are binary (an "80GB" card
// has 80 GiB), while H200 (141 GB) and B200 (180 GB usable of 192 GiB physical) are marketed in decimal GB.
const std::map<std::string, CalibrationProfile>& catalogue() {
  static const std::map<std::string, CalibrationProfile> profiles = {
      {"v100-sxm2-16gb", spec("V100-SXM2-16GB", 80, 1530, 16 * kGiB, gb_per_s(900), volta_peaks(),
                              gb_per_s(300) / 2, kPcieGen3, 300)},
      {"v100-sxm2-32gb", spec("V100-SXM2-32GB", 80, 1530, 32 * kGiB, gb_per_s(900), volta_peaks(),
                              gb_per_s(300) / 2, kPcieGen3, 300)},
      {"p100-pcie-16gb", p100_pcie()},
      // The PCIe card: lower clocks (1380 MHz) give 14 / 112 TFLOP/s; no NVLink.
      {"v100-pcie-16gb", spec("V100-PCIE-16GB", 80, 1380, 16 * kGiB, gb_per_s(900),
                              {{DType::FP32, tflops(14)}, {DType::FP16, tflops(112)}}, 0, kPcieGen3, 250)},
      {"a100-sxm4-40gb", spec("A100-SXM4-40GB", 108, 1410, 40 * kGiB, gb_per_s(1555), ampere_peaks(),
                              gb_per_s(600) / 2, kPcieGen4, 400, ampere_efficiencies())},
      {"a100-sxm4-80gb", spec("A100-SXM4-80GB", 108, 1410, 80 * kGiB, gb_per_s(2039), ampere_peaks(),
                              gb_per_s(600) / 2, kPcieGen4, 400, ampere_efficiencies())},
      // 1980 MHz is the SXM5 max boost; the ml-engineering table's 1830 MHz is the clock its peak math uses.
      {"h100-sxm5", spec("H100-SXM5-80GB", 132, 1980, 80 * kGiB, gb_per_s(3350), hopper_peaks(),
                         gb_per_s(900) / 2, kPcieGen5, 700, hopper_efficiencies())},
      {"h200-sxm", spec("H200-SXM-141GB", 132, 1980, 141 * kGB, gb_per_s(4800), hopper_peaks(),
                        gb_per_s(900) / 2, kPcieGen5, 700, hopper_efficiencies())},
      // Approximate: NVIDIA publishes no boost clock for B200; 1965 MHz is the commonly reported figure.
      // B300 and the Grace-Blackwell GPUs take B200's enabled SM count (148) and clock: no published figures.
      {"b200", spec("B200-180GB", 148, 1965, 180 * kGB, gb_per_s(8000), blackwell_peaks(9000),
                    gb_per_s(1800) / 2, kPcieGen5, 1000, blackwell_efficiencies())},
      {"b300",
       blackwell_ultra(spec("B300-288GB", 148, 1965, 288 * kGB, gb_per_s(8000), blackwell_peaks(12600),
                            gb_per_s(1800) / 2, kPcieGen6, 1100, blackwell_efficiencies()))},
      {"gb200", spec("GB200-186GB", 148, 1965, 186 * kGB, gb_per_s(8000), grace_blackwell_peaks(10000),
                     gb_per_s(1800) / 2, kNvlinkC2C, 1200, blackwell_efficiencies())},
      {"gb300",
       blackwell_ultra(spec("GB300-288GB", 148, 1965, 288 * kGB, gb_per_s(8000), grace_blackwell_peaks(15000),
                            gb_per_s(1800) / 2, kNvlinkC2C, 1400, blackwell_efficiencies()))},
  };
  return profiles;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::vector<std::string> spec_profile_names() {
  std::vector<std::string> names;
  for (const auto& [name, profile] : catalogue()) names.push_back(name);
  return names;  // std::map keeps them sorted
}

std::optional<CalibrationProfile> spec_profile(const std::string& name) {
  const auto found = catalogue().find(lowercase(name));
  if (found == catalogue().end()) return std::nullopt;
  return found->second;
}

CalibrationProfile load_profile(const std::string& name_or_path) {
  if (auto profile = spec_profile(name_or_path)) return *profile;
  std::error_code ignored;
  if (std::filesystem::exists(name_or_path, ignored)) return read_profile_file(name_or_path);
  std::string names;
  for (const std::string& name : spec_profile_names()) names += (names.empty() ? "" : ", ") + name;
  throw Error("unknown profile '" + name_or_path + "'" + did_you_mean(name_or_path, spec_profile_names()) +
              ": not a spec profile (" + names + ") nor a readable file");
}

}  // namespace simtrain::calibration
