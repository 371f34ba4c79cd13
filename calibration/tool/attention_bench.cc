// Attention measured as what it decomposes into without a fused kernel: forward S = Q K^T, P = softmax(S /
// sqrt(d)), O = P V; backward dV = P^T dO, dP = dO V^T, dS = softmax'(P, dP), dQ = dS K, dK = dS^T Q, as
// cuBLAS strided-batched GEMMs and cuDNN softmax over (batch x heads) matrices.
//
// Why not cuDNN's fused SDPA: it exists only in cuDNN's graph API, whose C backend needs a few hundred lines
// of descriptor plumbing (cudnn-frontend, the C++ wrapper that makes it short, is not on the GPU machine).
// The decomposed form writes the seq x seq scores to memory, so it is slower than flash attention, which
// the simulator's "attention_*" rows stand for. The rows are therefore recorded as
// "attention_unfused_forward" and "attention_unfused_backward_data": the simulator does not mistake them for
// the fused kernel, and they still document how attention's GEMMs and softmax perform on this GPU.
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/cudnn_handles.h"
#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"

namespace simtrain::calibration::tool {
namespace {

cudaDataType_t cuda_type(DType dtype) {
  return dtype == DType::FP16 ? CUDA_R_16F : dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

// Row-major C[m, n] = op(A) op(B) for `batch` contiguous matrices, through cuBLAS's column-major call.
struct BatchedGemm {
  cublasHandle_t handle;
  DType dtype;
  std::int64_t batch;
  void operator()(bool trans_a, bool trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const void* a,
                  const void* b, void* c, float alpha = 1) const {
    const float beta = 0;
    const int ld_a = static_cast<int>(trans_a ? m : k), ld_b = static_cast<int>(trans_b ? k : n);
    const cudaDataType_t type = cuda_type(dtype);
    const cublasComputeType_t compute =
        dtype == DType::TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    check_cublas(cublasGemmStridedBatchedEx(handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                            trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
                                            static_cast<int>(m), static_cast<int>(k), &alpha, b, type, ld_b,
                                            k * n, a, type, ld_a, m * k, &beta, c, type, static_cast<int>(n),
                                            m * n, static_cast<int>(batch), compute, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmStridedBatchedEx");
  }
};

std::pair<double, double> attention(const BenchContext& ctx, cublasHandle_t blas, cudnnHandle_t dnn,
                                    const AttentionShape& a, DType dtype) {
  const std::int64_t bh = a.batch * a.heads, s = a.seq, d = a.head_dim;
  const std::size_t e = static_cast<std::size_t>(bytes_per_element(dtype));
  const std::size_t qkv = aligned(bh * s * d * e), scores = aligned(bh * s * s * e);
  // Q K V O dO dQ dK dV, and the scores S, P, dP, dS. Together they far exceed L2: no rotation.
  if (8.0 * qkv + 4.0 * scores > ctx.budget_bytes) throw Unsupported("operands exceed the memory budget");
  const DeviceBuffer memory(8 * qkv + 4 * scores);
  ctx.random.fill(memory, dtype == DType::TF32 ? DType::FP32 : dtype);
  auto tensor = [&](int i) { return memory.at(qkv * i); };
  void* scores_s = memory.at(8 * qkv);
  void* p = memory.at(8 * qkv + scores);
  void* dp = memory.at(8 * qkv + 2 * scores);
  void* ds = memory.at(8 * qkv + 3 * scores);
  void *q = tensor(0), *k = tensor(1), *v = tensor(2), *o = tensor(3), *d_o = tensor(4);
  void *dq = tensor(5), *dk = tensor(6), *dv = tensor(7);

  TensorDescriptor rows;
  check_cudnn(cudnnCreateTensorDescriptor(rows.out()), "cudnnCreateTensorDescriptor");
  if (bh * s > std::numeric_limits<int>::max()) throw Unsupported("beyond cuDNN's 32-bit sizes");
  check_cudnn(cudnnSetTensor4dDescriptor(rows.get(), CUDNN_TENSOR_NCHW, cudnn_data_type(dtype),
                                         static_cast<int>(bh * s), static_cast<int>(s), 1, 1),
              "cudnnSetTensor4dDescriptor");
  const BatchedGemm gemm{blas, dtype, bh};
  // The 1/sqrt(d) scale rides on the first GEMM's alpha, as in PyTorch's math fallback.
  const float scale = static_cast<float>(1 / std::sqrt(static_cast<double>(d))), one = 1, zero = 0;
  const double forward =
      time_launches(ctx.stream, ctx.plan, [&](int) {
        gemm(false, true, s, s, d, q, k, scores_s, scale);
        check_cudnn(cudnnSoftmaxForward(dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                        rows.get(), scores_s, &zero, rows.get(), p),
                    "cudnnSoftmaxForward");
        gemm(false, false, s, d, s, p, v, o);
      }).median_s;
  const double backward =
      time_launches(ctx.stream, ctx.plan, [&](int) {
        gemm(true, false, s, d, s, p, d_o, dv);
        gemm(false, true, s, s, d, d_o, v, dp);
        check_cudnn(cudnnSoftmaxBackward(dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one,
                                         rows.get(), p, rows.get(), dp, &zero, rows.get(), ds),
                    "cudnnSoftmaxBackward");
        gemm(false, false, s, d, s, ds, k, dq, scale);
        gemm(true, false, s, d, s, ds, q, dk, scale);
      }).median_s;
  return {forward, backward};
}

}  // namespace

void measure_attention(const BenchContext& ctx, const std::vector<AttentionShape>& shapes,
                       CalibrationProfile& profile) {
  cublasHandle_t blas = nullptr;
  check_cublas(cublasCreate(&blas), "cublasCreate");
  const std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> owner(blas, cublasDestroy);
  check_cublas(cublasSetStream(blas, ctx.stream), "cublasSetStream");
  const CudnnHandle dnn = make_cudnn_handle(ctx.stream);
  std::vector<DType> dtypes;
  for (DType dtype : ctx.dtypes)
    if (dtype != DType::FP8) dtypes.push_back(dtype);
  ctx.progress.begin("attention", static_cast<int>(shapes.size() * dtypes.size()));
  for (DType dtype : dtypes) {
    for (const AttentionShape& a : shapes) {
      std::string what = std::string(to_string(dtype)) + " attention b" + std::to_string(a.batch) + " h" +
                         std::to_string(a.heads) + " s" + std::to_string(a.seq) + " d" +
                         std::to_string(a.head_dim);
      try {
        const auto [forward_s, backward_s] = attention(ctx, blas, dnn.get(), a, dtype);
        profile.kernels.push_back({"attention_unfused_forward", a.key(), dtype, forward_s});
        profile.kernels.push_back({"attention_unfused_backward_data", a.key(), dtype, backward_s});
        char times[64];
        std::snprintf(times, sizeof times, ": %.4g / %.4g ms", forward_s * 1e3, backward_s * 1e3);
        ctx.progress.step(what + times);
      } catch (const Unsupported& skip) {
        ctx.progress.step(what + ": skipped (" + skip.message() + ")");
      }
    }
  }
}

}  // namespace simtrain::calibration::tool
