// The measurements simtrain-calibrate makes, one function per kernel family, each appending its rows to the
// profile. What they share travels in a BenchContext.
#pragma once

#include <vector>

#include <cuda_runtime.h>

#include "calibration/calibration_profile.h"
#include "calibration/tool/device_memory.h"
#include "calibration/tool/gpu_device.h"
#include "calibration/tool/progress.h"
#include "calibration/tool/shape_set.h"
#include "calibration/tool/timing_stats.h"

namespace simtrain::calibration::tool {

struct BenchContext {
  const DeviceInfo& device;
  cudaStream_t stream;
  TimingPlan plan;
  Progress& progress;
  RandomSource& random;
  std::vector<DType> dtypes;  // matmul dtypes; memory-bound kernels use the activation dtypes they imply
  double budget_bytes;        // device memory one measurement may take
  bool quick;
};

// cuBLASLt matmuls of `shapes` in every dtype, with the heuristic's first algorithm (what PyTorch runs).
void measure_gemm(const BenchContext& ctx, const std::vector<GemmShape>& shapes, CalibrationProfile& profile);

// cuDNN convolutions, forward, backward-data and backward-filter, with the algorithm cudnnFind*Ex picks (as
// PyTorch's cudnn.benchmark does).
void measure_conv(const BenchContext& ctx, const std::vector<ConvShape>& shapes, CalibrationProfile& profile);

// cuDNN batch norm (training), max pooling, ReLU and log-softmax, forward and backward.
void measure_cudnn_ops(const BenchContext& ctx, const ShapeSet& shapes, CalibrationProfile& profile);

// Attention as the batched GEMMs and softmax it decomposes into (see attention_bench.cc).
void measure_attention(const BenchContext& ctx, const std::vector<AttentionShape>& shapes,
                       CalibrationProfile& profile);

// Device copy, elementwise, reduction and host<->device bandwidth over buffer sizes.
void measure_memory(const BenchContext& ctx, CalibrationProfile& profile);
// PyTorch's memory-bound kernel paths (framework_kernels.h): vectorized, unrolled mixed-dtype and strided
// elementwise kernels and the fused AdamW's multi_tensor_apply, at buffers past the L2 cache.
void measure_framework_kernels(const BenchContext& ctx, CalibrationProfile& profile);
// The best device-to-device copy bandwidth (bytes read + written per second) of a 1 GiB buffer.
double measure_copy_bandwidth(const BenchContext& ctx);

// NCCL collectives over all visible GPUs of this process, one communicator per GPU (ncclCommInitAll).
void measure_nccl(const BenchContext& ctx, CalibrationProfile& profile);

// The dtype memory-bound kernels run in when matmuls run in `matmul` (tf32 keeps tensors in fp32), as
// simulator/workload/precision.cc maps it; nothing for fp8 (no zoo precision keeps activations in fp8).
std::vector<DType> activation_dtypes(const std::vector<DType>& matmul);

}  // namespace simtrain::calibration::tool
