// How the loss over the (vocabulary-parallel) logits runs, as Megatron's --cross-entropy-loss-fusion and
// --cross-entropy-fusion-impl choose it:
// - Unfused: Megatron's VocabParallelCrossEntropy as separate PyTorch passes in fp32 (an fp32 copy of the
//   logits, max, subtract, exp, sum, the softmax kept for backward; backward scales it and casts it back);
// - Native: the same arithmetic under Megatron's jit_fuser (core/fusions/fused_cross_entropy.py): the fp32
//   copy with the max, the exponentials with their sum, the division into the softmax kept for backward;
//   backward one fused pass that scales it and casts it to 16 bits;
// - TransformerEngine: Transformer Engine's Triton kernels (pytorch/triton/cross_entropy.py): an online
//   softmax reading the 16-bit logits once, then a pass reading them again and writing the gradient in fp32;
//   backward scales that gradient in place by each token's loss gradient and autograd casts it to the
//   logits' 16 bits. Megatron-Bridge's performance recipes run this one.
#pragma once

#include <optional>
#include <string_view>

namespace simtrain::workload {

enum class CrossEntropyFusion { Unfused, Native, TransformerEngine };

// Megatron's --cross-entropy-fusion-impl names: "native", "te"; "unfused" for Unfused.
std::string_view to_string(CrossEntropyFusion fusion);
// "native" or "te" (what --cross-entropy-fusion-impl accepts); nullopt otherwise.
std::optional<CrossEntropyFusion> parse_cross_entropy_fusion_impl(std::string_view text);

}  // namespace simtrain::workload
