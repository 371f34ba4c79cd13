// How the loss over the (vocabulary-parallel) logits runs, as Megatron's --cross-entropy-loss-fusion and
// --cross-entropy-fusion-impl choose it, or as torchtitan writes it:
// - Unfused: Megatron's VocabParallelCrossEntropy as separate PyTorch passes in fp32 (an fp32 copy of the
//   logits, max, subtract, exp, sum, the softmax kept for backward; backward scales it and casts it back);
// - Native: the same arithmetic under Megatron's jit_fuser (core/fusions/fused_cross_entropy.py): the fp32
//   copy with the max, the exponentials with their sum, the division into the softmax kept for backward;
//   backward one fused pass that scales it and casts it to 16 bits;
// - TransformerEngine: Transformer Engine's Triton kernels (pytorch/triton/cross_entropy.py, 2.5 to 2.17,
//   the versions Megatron-Bridge's releases pin): an online softmax reading the 16-bit logits once, then a
//   pass reading them again and writing the gradient over them in their own dtype; backward scales that
//   gradient in place by each token's loss gradient and returns it. Megatron-Bridge's performance recipes
//   run this one. (From 2.18, TransformerEngine#3193, it writes an fp32 gradient instead: not modelled.)
// - PyTorch: torch.nn.functional.cross_entropy over an fp32 copy of the logits (torchtitan's loss, train.py
//   2024-25): the copy, log_softmax keeping its fp32 output, nll_loss; backward nll_loss's dense fp32
//   gradient, log_softmax's backward into another, and the cast back to 16 bits.
#pragma once

#include <optional>
#include <string_view>

namespace simtrain::workload {

enum class CrossEntropyFusion { Unfused, Native, TransformerEngine, PyTorch };

// Megatron's --cross-entropy-fusion-impl names: "native", "te"; "unfused" for Unfused, "pytorch" for PyTorch.
std::string_view to_string(CrossEntropyFusion fusion);
// "native" or "te" (what --cross-entropy-fusion-impl accepts); nullopt otherwise.
std::optional<CrossEntropyFusion> parse_cross_entropy_fusion_impl(std::string_view text);

// What the loss holds on the GPU per logit, in bytes, for logits of `logit_bytes` each (2 in 16-bit
// training, 4 in fp32), read from each implementation's source:
// - saved: what it keeps from its forward to its backward. Unfused and Native the fp32 softmax (4; the
//   16-bit logits die with the forward), TransformerEngine the logits themselves, overwritten by their
//   gradient (logit_bytes), PyTorch log_softmax's fp32 output (4);
// - peak: the most alive at once inside it, the saved bytes included. Unfused and Native 4 + logit_bytes
//   (the 16-bit logits beside their fp32 copy in the forward, the fp32 gradient beside its 16-bit cast in
//   the backward; in fp32 the copy and the cast are no-ops: 4), TransformerEngine logit_bytes (it works in
//   place), PyTorch 12 (the saved log-probabilities, nll_loss's gradient and log_softmax's backward output,
//   all fp32; the forward's 16-bit logits, fp32 copy and log-probabilities are 10 at most).
struct LossMemory {
  double saved_bytes_per_logit = 0;
  double peak_bytes_per_logit = 0;
};
LossMemory loss_memory(CrossEntropyFusion fusion, double logit_bytes);

}  // namespace simtrain::workload
