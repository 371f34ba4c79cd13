// Numeric formats a GPU kernel can run in. Peak rates, measured tables and trace ops are all keyed by it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simtrain {

enum class DType { FP32, TF32, FP16, BF16, FP8 };

inline constexpr DType kAllDTypes[] = {DType::FP32, DType::TF32, DType::FP16, DType::BF16, DType::FP8};

// "fp32", "tf32", "fp16", "bf16", "fp8".
std::string_view to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
// Bytes one element occupies in memory (tf32 is stored as fp32).
int bytes_per_element(DType dtype);

}  // namespace simtrain
