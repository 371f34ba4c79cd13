// Owning wrappers for the cuDNN handle and the legacy-API descriptors the benches use, and the cuDNN data
// type and layout each dtype is measured in.
#pragma once

#include <cstdint>

#include <cudnn.h>

#include "common/dtype.h"

namespace simtrain::calibration::tool {

// Destroys a cuDNN object with its destroy function when it goes out of scope.
template <typename Handle, cudnnStatus_t (*Destroy)(Handle)>
class CudnnObject {
 public:
  CudnnObject() = default;
  explicit CudnnObject(Handle handle) : handle_(handle) {}
  ~CudnnObject() {
    if (handle_ != nullptr) Destroy(handle_);
  }
  CudnnObject(CudnnObject&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  CudnnObject& operator=(CudnnObject&&) = delete;
  CudnnObject(const CudnnObject&) = delete;
  CudnnObject& operator=(const CudnnObject&) = delete;
  Handle get() const { return handle_; }
  Handle* out() { return &handle_; }

 private:
  Handle handle_ = nullptr;
};

using CudnnHandle = CudnnObject<cudnnHandle_t, cudnnDestroy>;
using TensorDescriptor = CudnnObject<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>;
using FilterDescriptor = CudnnObject<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = CudnnObject<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>;
using PoolingDescriptor = CudnnObject<cudnnPoolingDescriptor_t, cudnnDestroyPoolingDescriptor>;
using ActivationDescriptor = CudnnObject<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>;

// A cuDNN handle on `stream`.
CudnnHandle make_cudnn_handle(cudaStream_t stream);

// fp32 and tf32 tensors are float, fp16 half, bf16 bfloat16; fp8 has no legacy-API kernels (Unsupported).
cudnnDataType_t cudnn_data_type(DType dtype);
// 16-bit tensors in NHWC (channels_last: the layout tensor-core convolutions run in without transposes),
// 32-bit ones in NCHW (PyTorch's default).
cudnnTensorFormat_t cudnn_layout(DType dtype);

// A 4-D tensor descriptor in the dtype's type and layout.
TensorDescriptor tensor_descriptor(DType dtype, std::int64_t n, std::int64_t c, std::int64_t h,
                                   std::int64_t w);

}  // namespace simtrain::calibration::tool
