// Implements compute_cost.h: measured, interpolated or roofline kernel durations.
#include "simulator/cost/compute_cost.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "common/error.h"
#include "simulator/cost/kernel_rescale.h"

namespace simtrain::cost {
namespace {

// The measured-table name of a kernel: "gemm" for GEMMs, "<kind>_<pass>" otherwise ("conv_forward").
std::string measured_op_name(const trace::ComputeSpec& kernel) {
  if (kernel.kind == trace::ComputeKind::Gemm) return "gemm";
  return std::string(trace::to_string(kernel.kind)) + "_" + std::string(trace::to_string(kernel.pass));
}

// The GEMM a pointwise convolution is (shape {n, c, h, w, k, r, s, stride, pad} with r = s = stride = 1 and
// no padding): rows are the n h w pixels, as a linear layer's tokens, in the (m, n, k) order linear layers
// use for each pass; nullopt for any other kernel.
std::optional<trace::ComputeSpec> pointwise_conv_as_gemm(const trace::ComputeSpec& kernel) {
  const auto& d = kernel.shape;
  if (kernel.kind != trace::ComputeKind::Conv || d.size() != 9) return std::nullopt;
  if (d[5] != 1 || d[6] != 1 || d[7] != 1 || d[8] != 0) return std::nullopt;
  const std::int64_t pixels = d[0] * d[2] * d[3], in = d[1], out = d[4];
  trace::ComputeSpec gemm = kernel;
  gemm.kind = trace::ComputeKind::Gemm;
  switch (kernel.pass) {
    case trace::Pass::Forward:
      gemm.shape = {pixels, out, in};
      break;
    case trace::Pass::BackwardData:
      gemm.shape = {pixels, in, out};
      break;
    case trace::Pass::BackwardWeight:
      gemm.shape = {out, in, pixels};
      break;
    default:
      return std::nullopt;
  }
  return gemm;
}

// The tensor-core GEMM efficiency of a dtype at `peak_flops`: 8- and 4-bit GEMMs reach their own fractions
// of their peaks, and a power-limited GPU no more than its power limit buys.
double tensor_core_gemm_efficiency(const calibration::Efficiencies& eff,
                                   const calibration::DeviceFacts& device, DType dtype, double peak_flops) {
  const double fraction = dtype == DType::FP8 ? eff.gemm_fp8 : dtype == DType::FP4 ? eff.gemm_fp4 : eff.gemm;
  const double flops_per_joule = dtype == DType::FP8   ? eff.gemm_fp8_flops_per_joule
                                 : dtype == DType::FP4 ? eff.gemm_fp4_flops_per_joule
                                                       : eff.gemm_flops_per_joule;
  if (flops_per_joule <= 0 || device.power_limit_w <= 0 || peak_flops <= 0) return fraction;
  return std::min(fraction, device.power_limit_w * flops_per_joule / peak_flops);
}

// The fraction of the aligned rate a 16-bit GEMM reaches (Efficiencies' gemm_misaligned_*): 1
// when aligned, not known, or of another width (the H200 ran FP8 GEMMs of odd shapes at the aligned rate).
double misaligned_fraction(const calibration::Efficiencies& eff, const trace::ComputeSpec& kernel) {
  if (kernel.dtype != DType::FP16 && kernel.dtype != DType::BF16) return 1;
  const int alignment = trace::gemm_alignment_bytes(kernel.dtype, kernel.pass, kernel.shape);
  const double fraction = alignment >= trace::kAlignedGemmBytes ? 1
                          : alignment >= 4                      ? eff.gemm_misaligned_4_byte
                                                                : eff.gemm_misaligned_2_byte;
  return fraction > 0 ? fraction : 1;
}

// The fraction of the FP8 rate a GEMM keeps when it promotes its partial sums to fp32 as it goes
// (Efficiencies::gemm_fp8_split_accumulator; 1 for other GEMMs, or where the GPU has no such mode).
double split_accumulator_fraction(const calibration::Efficiencies& eff, const trace::ComputeSpec& kernel) {
  if (!kernel.split_accumulator || kernel.dtype != DType::FP8 || eff.gemm_fp8_split_accumulator <= 0)
    return 1;
  return eff.gemm_fp8_split_accumulator;
}

// The fraction of the SMs a GEMM's output tiles keep busy: tiles run one per SM in waves, so a GEMM with
// fewer tiles than SMs, or a last wave that fills few of them, wastes the rest (1 when not modelled, or for a
// shape that is not {m, n, k}).
double wave_fraction(const calibration::Efficiencies& eff, int sm_count, const trace::ComputeSpec& kernel) {
  if (eff.gemm_tile_m <= 0 || eff.gemm_tile_n <= 0 || sm_count <= 0 || kernel.shape.size() != 3) return 1;
  const auto tiles_along = [](std::int64_t extent, int tile) { return (extent + tile - 1) / tile; };
  const std::int64_t tiles =
      tiles_along(kernel.shape[0], eff.gemm_tile_m) * tiles_along(kernel.shape[1], eff.gemm_tile_n);
  if (tiles <= 0) return 1;
  const std::int64_t waves = (tiles + sm_count - 1) / sm_count;
  return static_cast<double>(tiles) / static_cast<double>(waves * sm_count);
}

// FlashAttention's Triton port against FlashAttention-2, per pass: FlashAttention-2 runs 1.3-1.5x as fast
// in the forward pass and about 2x in the backward (the FlashAttention-2 paper, arXiv:2307.08691, §4.1: A100,
// head sizes 64 and 128, sequences of 512 to 16k, against Triton's own port of the algorithm). The port
// llm-foundry ships (flash_attn_triton.py, Triton's pre-MLIR compiler) says the same of itself: its forward
// faster than FlashAttention-1's, its backward slower, the two together slightly slower, where
// FlashAttention-2 is about 2x FlashAttention-1. Neither compiler emits Hopper's wgmma, and neither does
// FlashAttention-2 itself, so the shares hold against attention_flash2 on Hopper too.
constexpr double kTritonForwardShareOfFlash2 = 1 / 1.4;
constexpr double kTritonBackwardShareOfFlash2 = 1 / 2.0;

// The fraction of peak an attention kernel's implementation reaches at the reference head size and
// sequence (its profile figure; FlashAttention-2's where the profile has none is the fused kernel's).
double attention_kernel_efficiency(const calibration::Efficiencies& eff, const trace::ComputeSpec& kernel) {
  const double flash2 = eff.attention_flash2 > 0 ? eff.attention_flash2 : eff.attention;
  switch (kernel.attention_kernel) {
    case trace::AttentionKernel::FlashAttention2:
      return flash2;
    case trace::AttentionKernel::Triton:
      return flash2 * (kernel.pass == trace::Pass::Forward ? kTritonForwardShareOfFlash2
                                                           : kTritonBackwardShareOfFlash2);
    case trace::AttentionKernel::Fused:
      break;
  }
  return eff.attention;
}

// The rate of a flash-attention kernel that visits n key tiles per query tile, relative to the rate
// `attention` stands for, measured at n_ref = attention_reference_kv_tiles: each query tile's CTA does n
// tiles of work plus a fixed cost worth n0 = attention_fixed_tiles, so the rate goes as n / (n + n0). Longer
// kernels run at `attention`: let past it, the rule makes long sequences faster than the published runs
// (NeMo's B200 long-sequence table 12.3% -> 14.2%, torchtitan's 14.0% -> 14.8%). 1 when not modelled.
double short_sequence_fraction(const calibration::Efficiencies& eff, const trace::ComputeSpec& kernel) {
  const double n = kernel.kv_tiles, n0 = eff.attention_fixed_tiles,
               reference = eff.attention_reference_kv_tiles;
  if (n0 <= 0 || n <= 0 || n >= reference) return 1;
  return n / (n + n0) * (reference + n0) / reference;
}

// The rate of an attention kernel (shape {batch, heads, seq, head_dim}) at its head size and its GPU's
// exponential rate, relative to the rate `attention` stands for: at the head size it was measured at
// (Efficiencies::attention_head_dim), on a GPU of 16 exponentials per clock per SM. The softmax's work per
// score element does not shrink with the head size, so at small heads it weighs more against the matrix
// products, the more so the faster the tensor cores (`peak` over the SMs and clock) are against the
// exponential unit, and the less so the faster that unit is (Blackwell Ultra's doubled one). Head sizes above
// the reference count as the reference (cuDNN's head-256 forward is no faster than its head-128 one). 1 when
// not modelled and for other shapes.
constexpr double kMeasuredExponentialsPerClockPerSm = 16;

double softmax_fraction(const calibration::Efficiencies& eff, const calibration::DeviceFacts& device,
                        const trace::ComputeSpec& kernel, double peak) {
  const double reference = eff.attention_head_dim;
  if (reference <= 0 || eff.attention_softmax_cost <= 0 || kernel.shape.size() != 4 || device.sm_count <= 0 ||
      device.clock_mhz <= 0 || peak <= 0 || kernel.shape[3] <= 0)
    return 1;
  const double head_dim = std::min(static_cast<double>(kernel.shape[3]), reference);
  const double exponentials = device.exponentials_per_clock_per_sm > 0 ? device.exponentials_per_clock_per_sm
                                                                       : kMeasuredExponentialsPerClockPerSm;
  // Matrix-product FLOPs per score element and unit of head size: QK^T and PV forward; the recomputed QK^T,
  // dV, dP, dQ and dK backward (2.5x the forward).
  const double products = kernel.pass == trace::Pass::Forward ? 4 : 10;
  const double flops_per_clock = peak / (device.sm_count * device.clock_mhz * 1e6);
  const double x_per_exponential = eff.attention_softmax_cost * flops_per_clock / products;
  const double x = x_per_exponential / exponentials;
  const double x_measured = x_per_exponential / kMeasuredExponentialsPerClockPerSm;
  return (head_dim / (head_dim + x)) / (reference / (reference + x_measured));
}

// One GEMM of a grouped GEMM (shape {m, n, k, groups}: each group's own {m, n, k}, the FLOPs and bytes of
// all groups): Transformer Engine's GroupedLinear issues one cuBLAS GEMM per local expert
// (transformer_engine/common/gemm/cublaslt_gemm.cu, nvte_multi_stream_cublas_gemm), so each expert's GEMM
// pays its own launch and its own tile waves over the SMs, which a few hundred or thousand tokens per expert
// fill poorly. nullopt for any other kernel.
std::optional<trace::ComputeSpec> one_group_of_grouped_gemm(const trace::ComputeSpec& kernel) {
  if (kernel.kind != trace::ComputeKind::Gemm || kernel.shape.size() != 4 || kernel.shape[3] < 1)
    return std::nullopt;
  const double groups = static_cast<double>(kernel.shape[3]);
  trace::ComputeSpec one = kernel;
  one.shape.pop_back();
  one.flops /= groups;
  one.bytes /= groups;
  return one;
}

}  // namespace

ComputeCostModel::ComputeCostModel(const calibration::CalibrationProfile& profile)
    : profile_(profile), measured_(profile) {}

double ComputeCostModel::effective_peak_flops(DType dtype) const {
  double peak = profile_.peak_flops(dtype);
  if (peak <= 0 && dtype == DType::TF32) peak = profile_.peak_flops(DType::FP32);
  return peak;
}

double ComputeCostModel::roofline_s(const trace::ComputeSpec& kernel) const {
  const auto& eff = profile_.efficiencies;
  double compute_s = 0;
  if (kernel.flops > 0) {
    double peak = effective_peak_flops(kernel.dtype);
    if (peak <= 0)
      throw Error(profile_.device.name + " has no " + std::string(to_string(kernel.dtype)) +
                  " support (kernel " + std::string(trace::to_string(kernel.kind)) + ")");
    // tf32 on a GPU without TF32 units runs as fp32 (effective_peak_flops fell back to fp32's peak).
    bool simt = kernel.dtype == DType::FP32 || profile_.peak_flops(kernel.dtype) <= 0;
    bool tf32 = kernel.dtype == DType::TF32 && !simt;
    double efficiency = eff.memory_bound;
    switch (kernel.kind) {
      case trace::ComputeKind::Gemm:
        efficiency = simt   ? eff.gemm_fp32
                     : tf32 ? eff.gemm_tf32
                            : tensor_core_gemm_efficiency(eff, profile_.device, kernel.dtype, peak) *
                                  misaligned_fraction(eff, kernel);
        efficiency *=
            wave_fraction(eff, profile_.device.sm_count, kernel) * split_accumulator_fraction(eff, kernel);
        break;
      case trace::ComputeKind::Conv:
        efficiency = simt ? eff.conv_fp32 : tf32 ? eff.conv_tf32 : eff.conv;
        break;
      case trace::ComputeKind::Attention:
        efficiency = attention_kernel_efficiency(eff, kernel) * short_sequence_fraction(eff, kernel) *
                     softmax_fraction(eff, profile_.device, kernel, peak);
        break;
      default:
        // Memory-bound kernels do their few FLOPs on the vector units, never on tensor cores.
        peak = profile_.peak_flops(DType::FP32);
        break;
    }
    compute_s = kernel.flops / (peak * efficiency);
  }
  // PyTorch's unvectorized elementwise path and its multi_tensor_apply optimizer kernels have their own
  // fractions of the bandwidth where the profile knows them.
  double memory_efficiency = eff.memory_bound;
  if (kernel.unvectorized && eff.memory_bound_unvectorized > 0)
    memory_efficiency = eff.memory_bound_unvectorized;
  else if (kernel.kind == trace::ComputeKind::Optimizer && eff.memory_bound_multi_tensor > 0)
    memory_efficiency = eff.memory_bound_multi_tensor;
  double memory_s = kernel.bytes / (profile_.device.memory_bandwidth_Bps * memory_efficiency);
  // A GEMM's tiles stream their operands and store their outputs beside their math only in part
  // (compute_cost.h).
  if (kernel.kind == trace::ComputeKind::Gemm) return std::hypot(compute_s, memory_s) + eff.kernel_launch_s;
  return std::max(compute_s, memory_s) + eff.kernel_launch_s;
}

ComputeCost ComputeCostModel::table_or_roofline(const trace::ComputeSpec& kernel) const {
  // Frameworks run activations as their own elementwise kernels, not through cuDNN, whose activation rows
  // the tool records (on an H200 cuDNN's fp16 ReLU moved 1.8 TB/s where PyTorch's moved 4.2): the roofline
  // at the measured copy bandwidth stands for them.
  const bool framework_kernel = kernel.kind == trace::ComputeKind::Activation;
  if (!measured_.empty() && !framework_kernel) {
    const std::string op = measured_op_name(kernel);
    if (auto t = measured_.exact_s(op, kernel.dtype, kernel.shape)) return {*t, CostSource::Measured};
    const int alignment = kernel.kind == trace::ComputeKind::Gemm
                              ? trace::gemm_alignment_bytes(kernel.dtype, kernel.pass, kernel.shape)
                              : 0;
    if (auto t = measured_.interpolated_s(op, kernel.dtype, kernel.shape, alignment)) {
      // Interpolation scales time with FLOPs; a shape that moves more bytes per FLOP than its measured
      // neighbours (a thin GEMM) is held to the time its bytes take.
      const double memory_s =
          kernel.bytes / (profile_.device.memory_bandwidth_Bps * profile_.efficiencies.memory_bound);
      return {std::max(*t, memory_s), CostSource::Interpolated};
    }
  }
  return {roofline_s(kernel), CostSource::Roofline};
}

ComputeCost ComputeCostModel::cost(const trace::ComputeSpec& kernel) const {
  if (kernel.duration_s >= 0) return {kernel.duration_s, CostSource::Trace};
  // A copy engine moves a host copy's bytes over the host link at the profile's rate per direction (measured
  // by the calibration tool; a spec profile's is the link's nominal rate, which the H200's measured copies
  // reach 86% of).
  if (kernel.host_copy) {
    if (!(profile_.device.pcie_bandwidth_Bps > 0))
      throw Error(profile_.device.name + ": the profile has no host link bandwidth for a host copy");
    return {kernel.bytes / profile_.device.pcie_bandwidth_Bps + profile_.efficiencies.kernel_launch_s,
            CostSource::Roofline};
  }
  // Host work has no shape to cost: only a recording says how long it took.
  if (kernel.kind == trace::ComputeKind::Host)
    throw Error("a host op (kind \"host\") needs its measured duration_s");
  if (auto group = one_group_of_grouped_gemm(kernel)) {
    const ComputeCost one = table_or_roofline(*group);
    return {one.duration_s * static_cast<double>(kernel.shape[3]), one.source};
  }
  const ComputeCost direct = table_or_roofline(kernel);
  if (auto gemm = pointwise_conv_as_gemm(kernel)) {
    const ComputeCost as_gemm = table_or_roofline(*gemm);
    if (as_gemm.duration_s < direct.duration_s) return as_gemm;
  }
  return direct;
}

ProgramCosts cost_programs(const trace::Trace& trace, const ComputeCostModel& model,
                           const std::string& profile_name) {
  const KernelRescale rescale(trace.metadata.recorded_gpu, model, profile_name);
  ProgramCosts costs;
  if (rescale.active()) costs.rescaled_from = rescale.recorded_gpu();
  costs.duration_s.resize(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p].ops;
    auto& durations = costs.duration_s[p];
    durations.assign(ops.size(), 0.0);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].type != trace::OpType::Compute) continue;
      const ComputeCost c = model.cost(ops[i].compute);
      if (c.source != CostSource::Trace) {
        durations[i] = c.duration_s;
        ++(c.source == CostSource::Measured       ? costs.measured_ops
           : c.source == CostSource::Interpolated ? costs.interpolated_ops
                                                  : costs.roofline_ops);
        continue;
      }
      const RescaledDuration r = rescale.rescale(ops[i].compute);
      durations[i] = r.duration_s;
      ++(r.rule == RescaleRule::ByEstimate    ? costs.rescaled_ops
         : r.rule == RescaleRule::ByBandwidth ? costs.bandwidth_rescaled_ops
                                              : costs.trace_timed_ops);
    }
  }
  return costs;
}

std::string_view to_string(CostSource source) {
  switch (source) {
    case CostSource::Trace:
      return "trace";
    case CostSource::Measured:
      return "measured";
    case CostSource::Interpolated:
      return "interpolated";
    case CostSource::Roofline:
      return "roofline";
  }
  return "roofline";
}

}  // namespace simtrain::cost
