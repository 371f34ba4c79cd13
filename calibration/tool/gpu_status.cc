// Status-code checks: which codes mean "skip this measurement" and which end the run.
#include "calibration/tool/gpu_status.h"

#include <string>

namespace simtrain::calibration::tool {

void check_cuda(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  const std::string message = std::string(call) + ": " + cudaGetErrorString(status);
  // Allocation failure is not sticky: the context stays usable and the next shape may fit.
  if (status == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw Unsupported(message);
  }
  throw Error(message);
}

void check_cublas(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  const std::string message = std::string(call) + ": " + cublasGetStatusString(status);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_ARCH_MISMATCH ||
      status == CUBLAS_STATUS_ALLOC_FAILED || status == CUBLAS_STATUS_INVALID_VALUE)
    throw Unsupported(message);
  throw Error(message);
}

void check_cudnn(cudnnStatus_t status, const char* call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const std::string message = std::string(call) + ": " + cudnnGetErrorString(status);
  // cuDNN 9 refines NOT_SUPPORTED (3000) and BAD_PARAM (2000) into sub-codes in their thousands.
  const int family = static_cast<int>(status) / 1000 * 1000;
  if (family == CUDNN_STATUS_NOT_SUPPORTED || family == CUDNN_STATUS_BAD_PARAM) throw Unsupported(message);
  throw Error(message);
}

void check_curand(curandStatus_t status, const char* call) {
  if (status == CURAND_STATUS_SUCCESS) return;
  throw Error(std::string(call) + ": cuRAND status " + std::to_string(static_cast<int>(status)));
}

void check_nccl(ncclResult_t status, const char* call) {
  if (status == ncclSuccess) return;
  throw Error(std::string(call) + ": " + ncclGetErrorString(status));
}

}  // namespace simtrain::calibration::tool
