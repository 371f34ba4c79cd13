// Names and memory of the loss implementations (cross_entropy_fusion.h).
#include "simulator/workload/cross_entropy_fusion.h"

namespace simtrain::workload {

std::string_view to_string(CrossEntropyFusion fusion) {
  switch (fusion) {
    case CrossEntropyFusion::Unfused:
      return "unfused";
    case CrossEntropyFusion::Native:
      return "native";
    case CrossEntropyFusion::TransformerEngine:
      return "te";
    case CrossEntropyFusion::PyTorch:
      return "pytorch";
  }
  return "unfused";
}

std::optional<CrossEntropyFusion> parse_cross_entropy_fusion_impl(std::string_view text) {
  if (text == "native") return CrossEntropyFusion::Native;
  if (text == "te") return CrossEntropyFusion::TransformerEngine;
  return std::nullopt;
}

LossMemory loss_memory(CrossEntropyFusion fusion, double logit_bytes) {
  constexpr double kFp32 = 4;
  switch (fusion) {
    case CrossEntropyFusion::TransformerEngine:
      return {logit_bytes, logit_bytes};
    case CrossEntropyFusion::PyTorch:
      return {kFp32, 3 * kFp32};
    case CrossEntropyFusion::Unfused:
    case CrossEntropyFusion::Native:
      break;
  }
  return {kFp32, kFp32 + (logit_bytes < kFp32 ? logit_bytes : 0)};
}

}  // namespace simtrain::workload
