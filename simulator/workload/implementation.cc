// Implements implementation.h.
#include "simulator/workload/implementation.h"

#include "common/error.h"

namespace simtrain::workload {
namespace {

constexpr Implementation kAll[] = {Implementation::Torchvision, Implementation::HuggingFace,
                                   Implementation::Megatron};

std::string names(const std::vector<Implementation>& list) {
  std::string text;
  for (Implementation i : list) text += (text.empty() ? "" : ", ") + std::string(to_string(i));
  return text;
}

}  // namespace

std::string_view to_string(Implementation implementation) {
  switch (implementation) {
    case Implementation::Torchvision:
      return "torchvision";
    case Implementation::HuggingFace:
      return "hf";
    case Implementation::Megatron:
      return "megatron";
  }
  return "unknown";
}

std::vector<Implementation> implementations_for(const Model& model) {
  const bool language = model.transformer && model.transformer->vocab > 0;
  if (!language) return {Implementation::Torchvision};
  if (!model.transformer->causal) return {Implementation::HuggingFace};
  return {Implementation::HuggingFace, Implementation::Megatron};
}

Implementation parse_implementation(std::string_view text, const Model& model) {
  const std::vector<Implementation> available = implementations_for(model);
  for (Implementation candidate : kAll) {
    if (text != to_string(candidate)) continue;
    for (Implementation i : available)
      if (i == candidate) return candidate;
    throw Error("--impl: " + std::string(text) + " is not available for " + model.name +
                " (available: " + names(available) + ")");
  }
  throw Error("--impl: unknown implementation '" + std::string(text) + "' (torchvision, hf, megatron)");
}

}  // namespace simtrain::workload
