// Names of training precisions and the kernel dtypes each one implies, so that every generator maps a
// framework's precision setting to the same cost-model dtypes.
#include "simulator/workload/precision.h"

namespace simtrain::workload {

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::FP32:
      return "fp32";
    case Precision::TF32:
      return "tf32";
    case Precision::AMP_FP16:
      return "amp-fp16";
    case Precision::AMP_BF16:
      return "amp-bf16";
  }
  return "unknown";
}

std::string_view to_string(QuantRecipe recipe) {
  switch (recipe) {
    case QuantRecipe::Delayed:
      return "delayed";
    case QuantRecipe::Tensorwise:
      return "tensorwise";
    case QuantRecipe::Blockwise:
      return "blockwise";
    case QuantRecipe::MXFP8:
      return "mxfp8";
    case QuantRecipe::NVFP4:
      return "nvfp4";
  }
  return "delayed";
}

std::optional<QuantRecipe> parse_quant_recipe(std::string_view text) {
  if (text == "delayed") return QuantRecipe::Delayed;
  if (text == "tensorwise") return QuantRecipe::Tensorwise;
  if (text == "blockwise" || text == "rowwise") return QuantRecipe::Blockwise;
  if (text == "mxfp8") return QuantRecipe::MXFP8;
  if (text == "nvfp4") return QuantRecipe::NVFP4;
  return std::nullopt;
}

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::FP32;
  if (text == "tf32") return Precision::TF32;
  if (text == "amp" || text == "amp-fp16" || text == "fp16") return Precision::AMP_FP16;
  if (text == "amp-bf16" || text == "bf16") return Precision::AMP_BF16;
  return std::nullopt;
}

DType matmul_dtype(Precision precision) {
  switch (precision) {
    case Precision::FP32:
      return DType::FP32;
    case Precision::TF32:
      return DType::TF32;
    case Precision::AMP_FP16:
      return DType::FP16;
    case Precision::AMP_BF16:
      return DType::BF16;
  }
  return DType::FP32;
}

// TF32 only changes the math inside tensor cores: tensors stay fp32 in memory.
DType activation_dtype(Precision precision) {
  switch (precision) {
    case Precision::FP32:
    case Precision::TF32:
      return DType::FP32;
    case Precision::AMP_FP16:
      return DType::FP16;
    case Precision::AMP_BF16:
      return DType::BF16;
  }
  return DType::FP32;
}

}  // namespace simtrain::workload
