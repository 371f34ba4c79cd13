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

// How Transformer Engine quantizes a low-precision GEMM's operands (Megatron's --fp8-recipe, or NVFP4):
// - Delayed: per-tensor FP8 scales from an amax history of earlier steps (TE DelayedScaling); the cast
//   writes the FP8 copy and its transpose in one kernel and records the amax on the way.
// - Tensorwise: per-tensor current scaling (TE Float8CurrentScaling): an amax pass over the tensor first,
//   then the cast and transpose.
// - Blockwise: DeepSeek-V3-style 1x128 (activations, gradients) and 128x128 (weights) scales, computed
//   in both directions (TE Float8BlockScaling), Hopper and later.
// - MXFP8: an e8m0 scale per 32 elements, along rows and along columns, so each operand is quantized twice
//   (TE MXFP8BlockScaling); Blackwell's block-scaled tensor cores.
// - NVFP4: FP4 e2m1 values with an e4m3 scale per 16 elements and a per-tensor fp32 scale (an amax pass
//   first); TE's NVFP4BlockScaling, Blackwell only.
enum class QuantRecipe { Delayed, Tensorwise, Blockwise, MXFP8, NVFP4 };
std::string_view to_string(QuantRecipe recipe);
// Accepts "delayed", "tensorwise", "blockwise", "rowwise" (= blockwise), "mxfp8", "nvfp4".
std::optional<QuantRecipe> parse_quant_recipe(std::string_view text);

std::string_view to_string(Precision precision);
// Accepts "fp32", "tf32", "amp", "amp-fp16", "fp16", "amp-bf16", "bf16".
std::optional<Precision> parse_precision(std::string_view text);

DType matmul_dtype(Precision precision);               // GEMMs and convolutions
DType activation_dtype(Precision precision);           // stored activations and memory-bound kernels
inline constexpr DType kParameterDType = DType::FP32;  // parameters, gradients, optimizer states

}  // namespace simtrain::workload
