// Which real implementation a zoo model's kernels are generated as. A user asking about "GPT-2 XL" trains
// someone's code: torchvision's ResNet, Hugging Face's GPT2LMHeadModel in eager mode, or Megatron-LM with
// Transformer Engine's fused kernels. Each launches a different kernel list (casts, unfused activations,
// fused norms), so the choice is explicit: `--impl`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

enum class Implementation {
  Torchvision,  // torchvision's image models in eager PyTorch (autocast, cuDNN)
  HuggingFace,  // Hugging Face transformers in eager PyTorch with SDPA attention
  Megatron,     // Megatron-LM with Transformer Engine's fused kernels (the model-parallel generator)
};

// "torchvision", "hf", "megatron".
std::string_view to_string(Implementation implementation);

// The implementations available for `model`, the default first: image models torchvision; BERT
// Hugging Face; decoders (GPT, Llama, MoE) Hugging Face or Megatron-LM.
std::vector<Implementation> implementations_for(const Model& model);

// `text` as an implementation available for `model`; throws Error("--impl: ...") naming the choices when
// the name is unknown or the implementation does not exist for the model.
Implementation parse_implementation(std::string_view text, const Model& model);

}  // namespace simtrain::workload
