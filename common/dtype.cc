// Implements dtype.h: dtype names and element sizes.
#include "common/dtype.h"

namespace simtrain {

std::string_view to_string(DType dtype) {
  switch (dtype) {
    case DType::FP32:
      return "fp32";
    case DType::TF32:
      return "tf32";
    case DType::FP16:
      return "fp16";
    case DType::BF16:
      return "bf16";
    case DType::FP8:
      return "fp8";
    case DType::FP4:
      return "fp4";
  }
  return "fp32";
}

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType dtype : kAllDTypes)
    if (to_string(dtype) == text) return dtype;
  return std::nullopt;
}

int bytes_per_element(DType dtype) {
  switch (dtype) {
    case DType::FP32:
    case DType::TF32:
      return 4;
    case DType::FP16:
    case DType::BF16:
      return 2;
    case DType::FP8:
    case DType::FP4:
      return 1;
  }
  return 4;
}

double storage_bytes_per_element(DType dtype) {
  return dtype == DType::FP4 ? 0.5 : static_cast<double>(bytes_per_element(dtype));
}

}  // namespace simtrain
