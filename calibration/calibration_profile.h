// The calibration profile: everything the simulator knows about one GPU model and its software stack.
// It is either measured on real GPUs (simtrain-calibrate, nccl-tests import) or built from datasheet figures
// (a spec profile); results computed from it say which.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/dtype.h"

namespace simtrain::calibration {

inline constexpr int kProfileSchemaVersion = 1;

enum class ProfileKind { Spec, Measured };

// Hardware facts of one GPU, as on its datasheet or as read from the device.
struct DeviceFacts {
  std::string name;  // e.g. "A100-SXM4-80GB"
  int sm_count = 0;
  double clock_mhz = 0;  // boost clock
  double memory_bytes = 0;
  double memory_bandwidth_Bps = 0;           // HBM, bytes per second
  std::map<DType, double> peak_flops_per_s;  // dense, without sparsity; absent = unsupported
  double nvlink_bandwidth_Bps = 0;           // per GPU, per direction; 0 = no NVLink
  double pcie_bandwidth_Bps = 0;             // per GPU, per direction
  // The board power the GPU is held to (its TDP, or a platform's cap), in watts; 0 = unknown, and then no
  // power limit is applied (Efficiencies' *_flops_per_joule).
  double power_limit_w = 0;
  // Exponentials (MUFU.EX2) the special-function units do per clock per SM; 0 = unknown, read as 16, the rate
  // of every generation from Volta to Blackwell. Blackwell Ultra (B300, GB300) doubles it to 32. An attention
  // kernel's softmax runs on them (Efficiencies::attention_softmax_cost).
  double exponentials_per_clock_per_sm = 0;

  bool operator==(const DeviceFacts&) const = default;
};

// Where and how a measured profile was made; for spec profiles, where the figures came from.
struct MeasurementEnvironment {
  std::string driver;
  std::string cuda;
  std::string cublas;
  std::string cudnn;
  std::string nccl;
  std::string date;     // ISO 8601
  std::string command;  // the exact command line
  std::string source;   // provenance of datasheet figures or imported logs

  bool operator==(const MeasurementEnvironment&) const = default;
};

// Fractions of peak reached by op families that no measured table covers. One set per profile; the cost
// model's roofline multiplies peak rates by these.
struct Efficiencies {
  // GEMMs and convolutions reach different fractions of peak on tensor cores (fp16, bf16, fp8), with TF32
  // tensor-core math, and on the plain fp32 units, so each has its own figure. The defaults are medians of
  // published kernel benchmarks (tools/derive_efficiencies.py over validation/reference/kernels/), never
  // fitted to end-to-end training results.
  double gemm = 0.78;      // of the dtype's peak FLOP/s, tensor cores in 16 bits (DeepBench V100)
  double gemm_fp8 = 0.78;  // of the FP8 peak (FP8 GEMMs reach a smaller fraction of their peak on Hopper)
  double gemm_fp4 = 0.78;  // of the FP4 (NVFP4) peak, Blackwell
  // A power-limited GPU cannot hold its boost clock through long GEMMs: the tensor-core rate it sustains is
  // its power limit times the FLOPs one joule buys at that width, when that is below the fraction above.
  // One figure per generation and width, from sustained (long warm-up) GEMM sweeps; 0 = not power-limited.
  double gemm_flops_per_joule = 0;      // 16-bit
  double gemm_fp8_flops_per_joule = 0;  // FP8
  double gemm_fp4_flops_per_joule = 0;  // FP4 (NVFP4)
  // Hopper's FP8 tensor cores accumulate in a narrower format than fp32, so a GEMM that must sum long rows
  // exactly promotes its partial sums to fp32 registers on the CUDA cores as it goes (cuBLASLt's FAST_ACCUM
  // off; trace::ComputeSpec::split_accumulator). It keeps this fraction of the FP8 rate above (gemm_fp8, or
  // the power limit's). 0 = no such mode (Blackwell accumulates in fp32) or not known: the FP8 rate.
  double gemm_fp8_split_accumulator = 0;
  // Wave quantization: a GEMM's output is cut into gemm_tile_m x gemm_tile_n tiles run one per SM, in
  // waves; a last wave that fills few SMs, and GEMMs with fewer tiles than SMs, reach less. 0 = not modelled
  // (the efficiency then already stands for a mix of shapes, as DeepBench's median does).
  int gemm_tile_m = 0;
  int gemm_tile_n = 0;
  // cuBLAS runs its fast tensor-core kernels only when every dimension of a GEMM is a multiple of 16 bytes
  // (an odd vocabulary is not); otherwise older kernels that load 4 or 2 bytes at a time, at these fractions
  // of the aligned rate: a 16-bit GEMM aligned to 4 or 8 bytes at the first, to 2 bytes at the second.
  // 0 = not known: such GEMMs run at the aligned rate. (Profiles with measured tables interpolate within
  // the alignment class instead: cost/measured_tables.h.)
  double gemm_misaligned_4_byte = 0;
  double gemm_misaligned_2_byte = 0;
  double conv = 0.27;       // DeepBench V100 image-model layers, fp16 tensor cores, cuDNN 7.6
  double gemm_tf32 = 0.78;  // no published TF32 kernel data: the tensor-core figures
  double conv_tf32 = 0.27;
  double gemm_fp32 = 0.835;  // fp32 without tensor cores (and tf32 on GPUs without TF32 units)
  double conv_fp32 = 0.60;
  // The frameworks' fused attention. 0.45, between FlashAttention-2's forward on A100 (0.575) and on H100
  // and H200 (0.33), is Volta's; Ampere, Hopper and Blackwell have their own (spec_profiles.cc).
  double attention = 0.45;
  // The key tiles of 128 per query tile of the kernels `attention` was measured on: 64 for a non-causal
  // benchmark at 8,192 tokens; 16 for the measured H200 profile, fitted on a step at 16.5. `attention`
  // holds from there on.
  double attention_reference_kv_tiles = 16;
  // A flash-attention kernel's CTA pays, per query tile, a fixed cost worth this many key tiles (loading Q,
  // writing O and its softmax statistics), so a kernel visiting fewer key tiles than the reference runs
  // slower (trace::ComputeSpec::kv_tiles). 0 = not known.
  double attention_fixed_tiles = 0;
  // Head sizes below the one `attention` was measured at (attention_head_dim) run slower: per score element
  // a kernel's matrix products shrink with the head size d while its softmax does not (one exponential each,
  // at 16 per clock per SM on every generation from Volta to Blackwell, against tensor cores that doubled
  // twice). A pass doing m d FLOPs of products per element (m = 4 forward, 10 backward) then runs at
  // [d / (d + x)] / [attention_head_dim / (attention_head_dim + x_16)] of `attention`, x =
  // attention_softmax_cost x (tensor-core FLOPs per clock per SM) / (e m) with e the GPU's exponentials per
  // clock per SM (DeviceFacts; x_16 at e = 16, the rate `attention` was measured at): attention_softmax_cost
  // is the softmax's unhidden work per element in exponential-unit slots. Larger head sizes keep the rate of
  // attention_head_dim. 0 = not modelled.
  int attention_head_dim = 0;
  double attention_softmax_cost = 0;
  // FlashAttention-2's kernels (the flash-attn package, PyTorch SDPA's flash backend), which some stacks
  // outside Transformer Engine run: where they reach less than `attention` (cuDNN's fused attention,
  // FlashAttention-3-class on Hopper), the fraction trace::AttentionKernel::FlashAttention2 kernels run at
  // (and the Triton port's kernels at their shares of it, cost/compute_cost.cc). 0 = the same as `attention`.
  double attention_flash2 = 0;
  double memory_bound = 0.835;  // of HBM bandwidth (STREAM copy), for elementwise, norms, pooling, optimizer
  // PyTorch's unvectorized elementwise path (unrolled_elementwise_kernel for operands of different dtypes,
  // elementwise_kernel with offset calculators for strided or broadcast ones) moves fewer bytes per second
  // than its vectorized kernels. 0 = not known for this GPU: such kernels run at memory_bound.
  double memory_bound_unvectorized = 0;
  // Optimizer steps run as PyTorch's multi_tensor_apply kernels (fused AdamW, foreach SGD, GradScaler's
  // unscale): a block per 64Ki-element chunk and at most 320 chunks a launch, which reach less of the
  // bandwidth than an elementwise kernel over one large tensor. 0 = not known: they run at memory_bound.
  double memory_bound_multi_tensor = 0;
  double kernel_launch_s = 4e-6;      // fixed cost added to every kernel
  double nccl_intra_node = 0.80;      // achieved bus bandwidth / NVLink (or PCIe) bandwidth inside a node
  double nccl_inter_node = 0.90;      // achieved bus bandwidth / NIC bandwidth across nodes
  double nccl_step_latency_s = 5e-6;  // software latency of one algorithm step, on top of the wire's
  // Megatron's flex token dispatcher (DeepEP's and HybridEP's kernels, not NCCL's) moves a MoE layer's
  // tokens between the GPUs of a node with its own kernels: what their dispatch and combine reach of the
  // NVLink line there, called as Megatron calls them. 0 = not known: nccl_intra_node, as NCCL's all-to-all.
  double moe_flex_dispatch_intra_node = 0;
  // What those kernels spend on each token row they move across NVLink beyond its bytes (routing it, its
  // address and completion flags): HybridEP's FP8 dispatch moves half the bytes of its BF16 one but is only a
  // third faster, so a row of a small hidden size costs more than its bytes say. 0 = not known: bytes only.
  double moe_flex_dispatch_row_s = 0;

  bool operator==(const Efficiencies&) const = default;
};

struct GemmMeasurement {
  std::int64_t m = 0, n = 0, k = 0;
  DType dtype = DType::FP32;
  bool trans_a = false, trans_b = false;
  double time_s = 0;

  bool operator==(const GemmMeasurement&) const = default;
};

// A cuDNN (or other library) kernel measured at one shape. `op` is "<kind>_<pass>" in the trace's names
// (e.g. "conv_forward", "conv_backward_data", "batch_norm_forward"); `shape` is the trace op's shape.
struct KernelMeasurement {
  std::string op;
  std::vector<std::int64_t> shape;
  DType dtype = DType::FP32;
  double time_s = 0;

  bool operator==(const KernelMeasurement&) const = default;
};

struct MemoryBandwidthMeasurement {
  // "device_copy", "elementwise", "reduction", "h2d", "d2h"; PyTorch's kernel paths as simtrain-calibrate
  // imitates them (calibration/tool/framework_kernels.h): "elementwise_vectorized", "elementwise_unrolled",
  // "elementwise_strided", "multi_tensor"
  std::string op;
  double bytes = 0;
  double bandwidth_Bps = 0;

  bool operator==(const MemoryBandwidthMeasurement&) const = default;
};

// One point of a collective benchmark; bus bandwidth as nccl-tests defines it.
struct CollectiveMeasurement {
  std::string op;  // "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send_recv"
  double bytes = 0;
  int ranks = 0;
  int nodes = 1;
  std::string algorithm;  // when known
  double time_s = 0;
  double bus_bandwidth_Bps = 0;

  bool operator==(const CollectiveMeasurement&) const = default;
};

struct CalibrationProfile {
  ProfileKind kind = ProfileKind::Spec;
  DeviceFacts device;
  MeasurementEnvironment environment;
  Efficiencies efficiencies;
  std::vector<GemmMeasurement> gemm;
  std::vector<KernelMeasurement> kernels;
  std::vector<MemoryBandwidthMeasurement> memory;
  std::vector<CollectiveMeasurement> collectives;

  // Peak FLOP/s for `dtype`, or 0 when the GPU does not support it.
  double peak_flops(DType dtype) const;

  // Field-by-field equality; a JSON round trip must give back an equal profile.
  bool operator==(const CalibrationProfile&) const = default;
};

// "spec" or "measured", as in the profile's "kind" field.
std::string_view to_string(ProfileKind kind);
std::optional<ProfileKind> parse_profile_kind(std::string_view text);

}  // namespace simtrain::calibration
