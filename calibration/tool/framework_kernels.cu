// Implements framework_kernels.h. Launch geometry as PyTorch's: 128-thread blocks of 4 elements a thread for
// the elementwise paths (512 elements a block), 512-thread blocks over 65,536-element chunks for
// multi_tensor_apply, with its instruction-level parallelism of 4.
#include <cuda_fp16.h>

#include <algorithm>

#include "calibration/tool/framework_kernels.h"
#include "common/multi_tensor_apply.h"

namespace simtrain::calibration::tool {
namespace {

constexpr int kElementwiseThreads = 128;
constexpr int kElementsPerThread = 4;
constexpr std::int64_t kElementsPerBlock = kElementwiseThreads * kElementsPerThread;

constexpr int kChunkThreads = 512;
constexpr int kIlp = 4;
constexpr int kAdamLists = 4;             // p, g, m, v
constexpr int kMaxTensorsPerLaunch = 36;  // multi_tensor_max_tensors(kAdamLists)

unsigned blocks_for(std::int64_t elements) {
  return static_cast<unsigned>((elements + kElementsPerBlock - 1) / kElementsPerBlock);
}

struct alignas(16) Half8 {
  __half2 h[4];
};

__global__ void vectorized_add_kernel(const Half8* a, const Half8* b, Half8* c, std::int64_t vectors) {
  // Each thread loads and stores one 16-byte vector per step, as vectorized_elementwise_kernel<8> does.
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * kElementwiseThreads + threadIdx.x);
  for (std::int64_t i = first; i < vectors; i += static_cast<std::int64_t>(gridDim.x) * kElementwiseThreads) {
    const Half8 x = a[i], y = b[i];
    Half8 z;
#pragma unroll
    for (int j = 0; j < 4; ++j) z.h[j] = __hadd2(x.h[j], y.h[j]);
    c[i] = z;
  }
}

__global__ void unrolled_mixed_add_kernel(const __half* a, const float* b, float* out, std::int64_t n) {
  // Loads first, then math, then stores, each thread's elements a block stride apart (coalesced across the
  // warp): the structure of unrolled_elementwise_kernel.
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kElementsPerBlock + threadIdx.x;
  float x[kElementsPerThread], y[kElementsPerThread];
#pragma unroll
  for (int j = 0; j < kElementsPerThread; ++j) {
    const std::int64_t i = base + j * kElementwiseThreads;
    if (i < n) {
      x[j] = __half2float(a[i]);
      y[j] = b[i];
    }
  }
#pragma unroll
  for (int j = 0; j < kElementsPerThread; ++j) {
    const std::int64_t i = base + j * kElementwiseThreads;
    if (i < n) out[i] = x[j] + y[j];
  }
}

// Division by a divisor fixed for the whole launch as a multiply-high and a shift (Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994), which is how PyTorch's offset calculators
// divide 32-bit indices. Valid for dividends below 2^31.
struct FastDivider {
  unsigned divisor = 1, magic = 0, shift = 0;
  explicit FastDivider(unsigned d) : divisor(d) {
    while ((1u << shift) < d) ++shift;
    const unsigned long long one = 1;
    magic = static_cast<unsigned>(((one << 32) * ((one << shift) - d)) / d + 1);
  }
  __device__ unsigned quotient(unsigned n) const { return (__umulhi(n, magic) + n) >> shift; }
};

__global__ void strided_copy_kernel(const __half* in, __half* out, unsigned n, FastDivider rows,
                                    unsigned cols) {
  // Output index -> (row, column) of the transposed input through the divider, as an offset calculator does.
  const unsigned base = blockIdx.x * static_cast<unsigned>(kElementsPerBlock) + threadIdx.x;
  __half v[kElementsPerThread];
#pragma unroll
  for (int j = 0; j < kElementsPerThread; ++j) {
    const unsigned i = base + j * kElementwiseThreads;
    if (i < n) {
      const unsigned c = rows.quotient(i), r = i - c * rows.divisor;  // out is [cols, rows]
      v[j] = in[static_cast<std::size_t>(r) * cols + c];
    }
  }
#pragma unroll
  for (int j = 0; j < kElementsPerThread; ++j) {
    const unsigned i = base + j * kElementwiseThreads;
    if (i < n) out[i] = v[j];
  }
}

// The argument block of one multi_tensor_apply launch: the tensors' addresses and sizes, and which tensor and
// chunk each block takes.
struct ChunkList {
  float* p[kMaxTensorsPerLaunch];
  const float* g[kMaxTensorsPerLaunch];
  float* m[kMaxTensorsPerLaunch];
  float* v[kMaxTensorsPerLaunch];
  std::int64_t n[kMaxTensorsPerLaunch];
  unsigned char tensor_of_block[kMultiTensorMaxBlocks];
  int chunk_of_block[kMultiTensorMaxBlocks];
};

__global__ void __launch_bounds__(kChunkThreads) multi_tensor_adamw_kernel(ChunkList list) {
  const int t = list.tensor_of_block[blockIdx.x];
  const std::int64_t start =
      static_cast<std::int64_t>(list.chunk_of_block[blockIdx.x]) * kMultiTensorChunkElements;
  const std::int64_t end = min(list.n[t], start + kMultiTensorChunkElements);
  float* p = list.p[t];
  const float* g = list.g[t];
  float* m = list.m[t];
  float* v = list.v[t];
  // Hyperparameters as a training step would have them; the values do not change the traffic.
  const float lr = 1e-4f, beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f, decay = 0.01f;
  const float bias1 = 1.0f - beta1, bias2 = 1.0f - beta2;
  for (std::int64_t i0 = start + threadIdx.x * kIlp; i0 < end; i0 += kChunkThreads * kIlp) {
    if (i0 + kIlp <= end) {
      // Aligned 16-byte loads of four elements per list, as PyTorch's load_store on aligned chunks.
      float4 pp = *reinterpret_cast<const float4*>(p + i0), gg = *reinterpret_cast<const float4*>(g + i0);
      float4 mm = *reinterpret_cast<const float4*>(m + i0), vv = *reinterpret_cast<const float4*>(v + i0);
      float* pe = &pp.x;
      const float* ge = &gg.x;
      float* me = &mm.x;
      float* ve = &vv.x;
#pragma unroll
      for (int j = 0; j < kIlp; ++j) {
        me[j] = beta1 * me[j] + (1 - beta1) * ge[j];
        ve[j] = beta2 * ve[j] + (1 - beta2) * ge[j] * ge[j];
        pe[j] -= lr * (me[j] / bias1 / (sqrtf(ve[j] / bias2) + eps) + decay * pe[j]);
      }
      *reinterpret_cast<float4*>(p + i0) = pp;
      *reinterpret_cast<float4*>(m + i0) = mm;
      *reinterpret_cast<float4*>(v + i0) = vv;
    } else {
      for (std::int64_t i = i0; i < end; ++i) {
        m[i] = beta1 * m[i] + (1 - beta1) * g[i];
        v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
        p[i] -= lr * (m[i] / bias1 / (sqrtf(v[i] / bias2) + eps) + decay * p[i]);
      }
    }
  }
}

}  // namespace

cudaError_t launch_vectorized_add(const void* a, const void* b, void* c, std::int64_t n,
                                  cudaStream_t stream) {
  const std::int64_t vectors = n / 8;  // whole 16-byte vectors; callers pass multiples of 8
  const unsigned blocks = static_cast<unsigned>(
      std::min<std::int64_t>((vectors + kElementwiseThreads - 1) / kElementwiseThreads, 1 << 20));
  vectorized_add_kernel<<<blocks, kElementwiseThreads, 0, stream>>>(
      static_cast<const Half8*>(a), static_cast<const Half8*>(b), static_cast<Half8*>(c), vectors);
  return cudaGetLastError();
}

cudaError_t launch_unrolled_mixed_add(const void* a, const float* b, float* out, std::int64_t n,
                                      cudaStream_t stream) {
  unrolled_mixed_add_kernel<<<blocks_for(n), kElementwiseThreads, 0, stream>>>(static_cast<const __half*>(a),
                                                                               b, out, n);
  return cudaGetLastError();
}

cudaError_t launch_strided_copy(const void* in, void* out, std::int64_t rows, std::int64_t cols,
                                cudaStream_t stream) {
  if (rows < 1 || cols < 1 || rows * cols >= (std::int64_t{1} << 31)) return cudaErrorInvalidValue;
  strided_copy_kernel<<<blocks_for(rows * cols), kElementwiseThreads, 0, stream>>>(
      static_cast<const __half*>(in), static_cast<__half*>(out), static_cast<unsigned>(rows * cols),
      FastDivider(static_cast<unsigned>(rows)), static_cast<unsigned>(cols));
  return cudaGetLastError();
}

cudaError_t launch_multi_tensor_adamw(const std::vector<AdamTensor>& tensors, cudaStream_t stream) {
  std::vector<std::int64_t> elements;
  for (const AdamTensor& tensor : tensors) elements.push_back(tensor.n);
  cudaError_t status = cudaSuccess;
  for (const MultiTensorLaunch& launch : plan_multi_tensor_launches(elements, kAdamLists)) {
    ChunkList list{};
    for (std::size_t i = 0; i < launch.tensors.size(); ++i) {
      const AdamTensor& tensor = tensors[launch.tensors[i]];
      list.p[i] = tensor.p;
      list.g[i] = tensor.g;
      list.m[i] = tensor.m;
      list.v[i] = tensor.v;
      list.n[i] = tensor.n;
    }
    for (std::size_t b = 0; b < launch.blocks.size(); ++b) {
      list.tensor_of_block[b] = static_cast<unsigned char>(launch.blocks[b].tensor);
      list.chunk_of_block[b] = static_cast<int>(launch.blocks[b].chunk);
    }
    multi_tensor_adamw_kernel<<<static_cast<unsigned>(launch.blocks.size()), kChunkThreads, 0, stream>>>(
        list);
    if (status == cudaSuccess) status = cudaGetLastError();
  }
  return status;
}

}  // namespace simtrain::calibration::tool
