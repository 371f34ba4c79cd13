// cuDNN handle and descriptor construction.
#include "calibration/tool/cudnn_handles.h"

#include <limits>
#include <string>

#include "calibration/tool/gpu_status.h"

namespace simtrain::calibration::tool {

CudnnHandle make_cudnn_handle(cudaStream_t stream) {
  CudnnHandle handle;
  check_cudnn(cudnnCreate(handle.out()), "cudnnCreate");
  check_cudnn(cudnnSetStream(handle.get(), stream), "cudnnSetStream");
  return handle;
}

cudnnDataType_t cudnn_data_type(DType dtype) {
  switch (dtype) {
    case DType::FP32:
    case DType::TF32:
      return CUDNN_DATA_FLOAT;
    case DType::FP16:
      return CUDNN_DATA_HALF;
    case DType::BF16:
      return CUDNN_DATA_BFLOAT16;
    case DType::FP8:
    case DType::FP4:
      break;
  }
  throw Unsupported("cuDNN's legacy API has no fp8 or fp4 kernels");
}

cudnnTensorFormat_t cudnn_layout(DType dtype) {
  return dtype == DType::FP16 || dtype == DType::BF16 ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
}

TensorDescriptor tensor_descriptor(DType dtype, std::int64_t n, std::int64_t c, std::int64_t h,
                                   std::int64_t w) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (n > kMax || c > kMax || h > kMax || w > kMax || n * c * h * w > kMax)
    throw Unsupported("tensor of " + std::to_string(n * c * h * w) +
                      " elements is beyond cuDNN's 32-bit sizes");
  TensorDescriptor descriptor;
  check_cudnn(cudnnCreateTensorDescriptor(descriptor.out()), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnSetTensor4dDescriptor(descriptor.get(), cudnn_layout(dtype), cudnn_data_type(dtype),
                                         static_cast<int>(n), static_cast<int>(c), static_cast<int>(h),
                                         static_cast<int>(w)),
              "cudnnSetTensor4dDescriptor");
  return descriptor;
}

}  // namespace simtrain::calibration::tool
