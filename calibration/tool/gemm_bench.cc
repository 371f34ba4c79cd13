// GEMM times with cuBLASLt, row-major shapes as PyTorch issues them mapped onto cuBLAS's column-major
// convention (C^T = op(B)^T op(A)^T), fp32 accumulation for every dtype, 32 MiB of workspace.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"

namespace simtrain::calibration::tool {
namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;

struct LtTypes {
  cudaDataType_t ab;  // A and B
  cudaDataType_t cd;  // C and D
  cublasComputeType_t compute;
};

// fp8 takes E4M3 inputs and writes bf16, as Transformer Engine's forward GEMMs do.
LtTypes lt_types(DType dtype) {
  switch (dtype) {
    case DType::FP32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
    case DType::TF32:
      return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
    case DType::FP16:
      return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case DType::BF16:
      return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    case DType::FP8:
    case DType::FP4:  // never requested: supports() says no
      return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  }
  return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F};
}

std::size_t bytes_of(cudaDataType_t type) { return type == CUDA_R_32F ? 4 : type == CUDA_R_8F_E4M3 ? 1 : 2; }

// cuBLASLt descriptors of one row-major GEMM, destroyed with the object.
class LtMatmul {
 public:
  LtMatmul(const GemmShape& g, const LtTypes& t) {
    check_cublas(cublasLtMatmulDescCreate(&op_, t.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
    // Column-major: D^T[n x m] = op(B^T) op(A^T); a row-major [r x c] operand is column-major [c x r].
    const cublasOperation_t op_left = g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_right = g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &op_left, sizeof op_left),
                 "cublasLtMatmulDescSetAttribute");
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &op_right, sizeof op_right),
                 "cublasLtMatmulDescSetAttribute");
    const std::uint64_t left_rows = g.trans_b ? g.k : g.n, left_cols = g.trans_b ? g.n : g.k;
    const std::uint64_t right_rows = g.trans_a ? g.m : g.k, right_cols = g.trans_a ? g.k : g.m;
    check_cublas(cublasLtMatrixLayoutCreate(&left_, t.ab, left_rows, left_cols, left_rows),
                 "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatrixLayoutCreate(&right_, t.ab, right_rows, right_cols, right_rows),
                 "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatrixLayoutCreate(&out_, t.cd, g.n, g.m, g.n), "cublasLtMatrixLayoutCreate");
    check_cublas(cublasLtMatmulPreferenceCreate(&preference_), "cublasLtMatmulPreferenceCreate");
    const std::size_t workspace = kWorkspaceBytes;
    check_cublas(cublasLtMatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace, sizeof workspace),
                 "cublasLtMatmulPreferenceSetAttribute");
  }
  ~LtMatmul() {
    if (preference_ != nullptr) cublasLtMatmulPreferenceDestroy(preference_);
    if (out_ != nullptr) cublasLtMatrixLayoutDestroy(out_);
    if (right_ != nullptr) cublasLtMatrixLayoutDestroy(right_);
    if (left_ != nullptr) cublasLtMatrixLayoutDestroy(left_);
    if (op_ != nullptr) cublasLtMatmulDescDestroy(op_);
  }
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // The heuristic's first choice, or false when cuBLASLt has no kernel for this layout and dtype.
  bool choose_algorithm(cublasLtHandle_t handle) {
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, op_, left_, right_, out_, out_,
                                                                 preference_, 1, &heuristic_, &found);
    return status == CUBLAS_STATUS_SUCCESS && found > 0;
  }

  void run(cublasLtHandle_t handle, const void* a, const void* b, void* c, void* workspace,
           cudaStream_t stream) const {
    const float alpha = 1, beta = 0;
    check_cublas(cublasLtMatmul(handle, op_, &alpha, b, left_, a, right_, &beta, c, out_, c, out_,
                                &heuristic_.algo, workspace, kWorkspaceBytes, stream),
                 "cublasLtMatmul");
  }

 private:
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t left_ = nullptr, right_ = nullptr, out_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

std::string describe(const GemmShape& g, DType dtype) {
  return std::string(to_string(dtype)) + " " + std::to_string(g.m) + "x" + std::to_string(g.n) + "x" +
         std::to_string(g.k) + " " + (g.trans_a ? "t" : "n") + (g.trans_b ? "t" : "n");
}

// Measures one GEMM; returns the shape actually run (fp8 may fall back to the one layout Hopper's fp8
// kernels take, B transposed) and its median time.
std::pair<GemmShape, double> measure_one(const BenchContext& ctx, cublasLtHandle_t handle,
                                         const DeviceBuffer& workspace, GemmShape g, DType dtype) {
  const LtTypes types = lt_types(dtype);
  auto matmul = std::make_unique<LtMatmul>(g, types);
  if (!matmul->choose_algorithm(handle)) {
    if (dtype != DType::FP8 || (!g.trans_a && g.trans_b)) throw Unsupported("cuBLASLt has no kernel");
    g.trans_a = false, g.trans_b = true;
    matmul = std::make_unique<LtMatmul>(g, types);
    if (!matmul->choose_algorithm(handle)) throw Unsupported("cuBLASLt has no kernel");
  }
  const std::size_t a_bytes = aligned(g.m * g.k * bytes_of(types.ab));
  const std::size_t b_bytes = aligned(g.k * g.n * bytes_of(types.ab));
  const std::size_t c_bytes = aligned(g.m * g.n * bytes_of(types.cd));
  const std::size_t set_bytes = a_bytes + b_bytes + c_bytes;
  const int sets = rotation_sets(static_cast<double>(set_bytes), ctx.device.l2_bytes, ctx.budget_bytes);
  if (static_cast<double>(set_bytes) > ctx.budget_bytes)
    throw Unsupported("operands exceed the memory budget");
  const DeviceBuffer inputs((a_bytes + b_bytes) * sets);
  const DeviceBuffer outputs(c_bytes * sets);
  ctx.random.fill(inputs, dtype == DType::TF32 ? DType::FP32 : dtype);
  const TimingSummary t = time_launches(ctx.stream, ctx.plan, [&](int i) {
    const std::size_t set = static_cast<std::size_t>(i % sets);
    const std::uint8_t* a = static_cast<const std::uint8_t*>(inputs.get()) + set * (a_bytes + b_bytes);
    matmul->run(handle, a, a + a_bytes, outputs.at(set * c_bytes), workspace.get(), ctx.stream);
  });
  return {g, t.median_s};
}

}  // namespace

void measure_gemm(const BenchContext& ctx, const std::vector<GemmShape>& shapes,
                  CalibrationProfile& profile) {
  cublasLtHandle_t handle = nullptr;
  check_cublas(cublasLtCreate(&handle), "cublasLtCreate");
  const std::unique_ptr<cublasLtContext, cublasStatus_t (*)(cublasLtHandle_t)> owner(handle, cublasLtDestroy);
  const DeviceBuffer workspace(kWorkspaceBytes);
  ctx.progress.begin("gemm", static_cast<int>(shapes.size() * ctx.dtypes.size()));
  std::map<DType, int> skipped;
  std::set<std::pair<DType, GemmShape>> measured;
  for (DType dtype : ctx.dtypes) {
    for (const GemmShape& shape : shapes) {
      try {
        const auto [run, time_s] = measure_one(ctx, handle, workspace, shape, dtype);
        // An fp8 fallback can land on a layout measured already.
        if (!measured.insert({dtype, run}).second) {
          ctx.progress.step(describe(run, dtype) + ": measured already");
          continue;
        }
        profile.gemm.push_back({run.m, run.n, run.k, dtype, run.trans_a, run.trans_b, time_s});
        char rate[64];
        std::snprintf(rate, sizeof rate, ": %.4g ms, %.4g TFLOP/s", time_s * 1e3,
                      2.0 * run.m * run.n * run.k / time_s / 1e12);
        ctx.progress.step(describe(run, dtype) + rate);
      } catch (const Unsupported& skip) {
        ++skipped[dtype];
        ctx.progress.step(describe(shape, dtype) + ": skipped (" + skip.message() + ")");
      }
    }
  }
  for (const auto& [dtype, count] : skipped)
    ctx.progress.warn("gemm: " + std::to_string(count) + " " + std::string(to_string(dtype)) +
                      " shape(s) skipped (no cuBLASLt kernel or not enough memory)");
}

}  // namespace simtrain::calibration::tool
