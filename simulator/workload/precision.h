// Training precision as frameworks name it, and the kernel dtypes it implies.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/dtype.h"

namespace simtrain::workload {

// fp32: plain fp32 everywhere. tf32: fp32 storage, TF32 tensor-core math in GEMMs and convolutions.
// amp (= amp-fp16) / amp-bf16: autocast mixed precision: GEMMs, convolutions and activations in 16 bits,
// fp32 parameters, gradients and optimizer states.
enum class Precision { FP32, TF32, AMP_FP16, AMP_BF16 };

std::string_view to_string(Precision precision);
// Accepts "fp32", "tf32", "amp", "amp-fp16", "fp16", "amp-bf16", "bf16".
std::optional<Precision> parse_precision(std::string_view text);

DType matmul_dtype(Precision precision);               // GEMMs and convolutions
DType activation_dtype(Precision precision);           // stored activations and memory-bound kernels
inline constexpr DType kParameterDType = DType::FP32;  // parameters, gradients, optimizer states

}  // namespace simtrain::workload
