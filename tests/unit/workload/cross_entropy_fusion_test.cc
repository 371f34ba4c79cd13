// Specification of the loss implementations' names and of what each holds per logit (cross_entropy_fusion.h).
#include <doctest/doctest.h>

#include "simulator/workload/cross_entropy_fusion.h"

using namespace simtrain::workload;

TEST_CASE("Megatron's --cross-entropy-fusion-impl names read back; the others are not options") {
  for (CrossEntropyFusion fusion : {CrossEntropyFusion::Native, CrossEntropyFusion::TransformerEngine})
    CHECK(parse_cross_entropy_fusion_impl(to_string(fusion)) == fusion);
  CHECK(to_string(CrossEntropyFusion::PyTorch) == "pytorch");
  CHECK_FALSE(parse_cross_entropy_fusion_impl("pytorch"));
  CHECK_FALSE(parse_cross_entropy_fusion_impl("unfused"));
}

TEST_CASE("bytes per logit each loss keeps for backward and holds at its peak") {
  // 16-bit logits: Megatron's two fp32 softmaxes beside the logits or their gradient's cast.
  for (CrossEntropyFusion fusion : {CrossEntropyFusion::Unfused, CrossEntropyFusion::Native}) {
    CHECK(loss_memory(fusion, 2).saved_bytes_per_logit == 4);
    CHECK(loss_memory(fusion, 2).peak_bytes_per_logit == 6);
    // fp32 logits need no copy and no cast.
    CHECK(loss_memory(fusion, 4).peak_bytes_per_logit == 4);
  }
  // Transformer Engine overwrites the logits with their gradient.
  CHECK(loss_memory(CrossEntropyFusion::TransformerEngine, 2).saved_bytes_per_logit == 2);
  CHECK(loss_memory(CrossEntropyFusion::TransformerEngine, 2).peak_bytes_per_logit == 2);
  // PyTorch keeps the fp32 log-probabilities; its backward holds them with two fp32 gradients.
  CHECK(loss_memory(CrossEntropyFusion::PyTorch, 2).saved_bytes_per_logit == 4);
  CHECK(loss_memory(CrossEntropyFusion::PyTorch, 2).peak_bytes_per_logit == 12);
}
