// Turning CUDA, cuBLAS, cuDNN, cuRAND and NCCL status codes into Errors that name the failed call, with a
// separate type for "this GPU or library cannot run this measurement", which skips one measurement rather
// than ending the run.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <curand.h>
#include <nccl.h>

#include "common/error.h"

namespace simtrain::calibration::tool {

// A measurement this GPU, library version or shape cannot run (an unsupported dtype or layout, no algorithm,
// not enough memory): the bench warns and moves on.
class Unsupported : public Error {
 public:
  using Error::Error;
};

void check_cuda(cudaError_t status, const char* call);
void check_cublas(cublasStatus_t status, const char* call);
void check_cudnn(cudnnStatus_t status, const char* call);
void check_curand(curandStatus_t status, const char* call);
void check_nccl(ncclResult_t status, const char* call);

}  // namespace simtrain::calibration::tool
