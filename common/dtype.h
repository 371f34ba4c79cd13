// Numeric formats a GPU kernel can run in. Peak rates, measured tables and trace ops are all keyed by it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace simtrain {

// FP4 is NVFP4 (e2m1 with an e4m3 scale per 16 elements), Blackwell's block-scaled 4-bit tensor-core format.
enum class DType { FP32, TF32, FP16, BF16, FP8, FP4 };

inline constexpr DType kAllDTypes[] = {DType::FP32, DType::TF32, DType::FP16,
                                       DType::BF16, DType::FP8,  DType::FP4};

// "fp32", "tf32", "fp16", "bf16", "fp8", "fp4".
std::string_view to_string(DType dtype);
std::optional<DType> parse_dtype(std::string_view text);
// Bytes one element occupies in memory (tf32 is stored as fp32; fp4 packs two to a byte and is rounded up
// to 1 here: storage_bytes_per_element gives the exact 0.5).
int bytes_per_element(DType dtype);
double storage_bytes_per_element(DType dtype);

}  // namespace simtrain
