// CUDA kernels that move memory the way PyTorch's own elementwise and optimizer kernels do, so that a
// calibration measures the rates of the paths frameworks take rather than of cudaMemcpy alone. The simulator
// costs such kernels at fractions of the memory bandwidth (calibration_profile.h, Efficiencies'
// memory_bound_unvectorized and memory_bound_multi_tensor); framework_kernels_bench.cc times these kernels
// and efficiency_fit.cc turns the rates into those fractions.
//
// Each imitates the launch geometry and memory access of the PyTorch kernel named (PyTorch 2.x,
// aten/src/ATen/native/cuda/CUDALoops.cuh and MultiTensorApply.cuh), not its code. Each launcher returns the
// launch's status (cudaGetLastError). The header is plain C++17, for nvcc and the host compiler alike.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

namespace simtrain::calibration::tool {

// c = a + b over n fp16 elements with 16-byte vector loads and stores: vectorized_elementwise_kernel<8>,
// PyTorch's path for contiguous operands of one dtype. 6 bytes per element.
cudaError_t launch_vectorized_add(const void* a, const void* b, void* c, std::int64_t n, cudaStream_t stream);

// out = float(a) + b over n elements, a fp16, b and out fp32: unrolled_elementwise_kernel, PyTorch's path for
// operands of different dtypes (an fp32 + fp16 residual add): 128 threads a block, 4 elements a thread, each
// operand element its own scalar load. 10 bytes per element.
cudaError_t launch_unrolled_mixed_add(const void* a, const float* b, float* out, std::int64_t n,
                                      cudaStream_t stream);

// out = in transposed, fp16, in [rows, cols] row-major, out [cols, rows] contiguous: elementwise_kernel<128,
// 4> with an offset calculator, PyTorch's path for a strided operand (a transposed view made contiguous).
// Each output element's input offset takes an integer division, by multiply-high and shift on 32-bit indices
// as PyTorch's does: fewer than 2^31 elements (cudaErrorInvalidValue otherwise). 4 bytes per element.
cudaError_t launch_strided_copy(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                                cudaStream_t stream);

// One parameter tensor of an AdamW step: fp32 parameter, gradient and the two moments, n elements each.
struct AdamTensor {
  float* p = nullptr;
  const float* g = nullptr;
  float* m = nullptr;
  float* v = nullptr;
  std::int64_t n = 0;
};

// An AdamW step over `tensors` as PyTorch's fused AdamW runs it through multi_tensor_apply: chunks of 65,536
// elements, one 512-thread block per chunk, a launch per 320 chunks or 36 tensors, whichever fills first.
// Every element reads p, g, m, v and writes p, m, v: 28 bytes.
cudaError_t launch_multi_tensor_adamw(const std::vector<AdamTensor>& tensors, cudaStream_t stream);

}  // namespace simtrain::calibration::tool
