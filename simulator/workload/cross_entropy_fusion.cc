// Names of the loss implementations (cross_entropy_fusion.h).
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
  }
  return "unfused";
}

std::optional<CrossEntropyFusion> parse_cross_entropy_fusion_impl(std::string_view text) {
  if (text == "native") return CrossEntropyFusion::Native;
  if (text == "te") return CrossEntropyFusion::TransformerEngine;
  return std::nullopt;
}

}  // namespace simtrain::workload
