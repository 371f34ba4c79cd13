// Specification of with_hugging_face_projections (hugging_face_layout.h).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/workload/hugging_face_layout.h"

using namespace simtrain;
using namespace simtrain::workload;

TEST_CASE("a Megatron-layout decoder gets Hugging Face's separate q, k, v and gate, up projections") {
  const Model megatron = build_model("llama3-8b");  // grouped-query attention: 8 of 32 heads for k and v
  const Model hf = with_hugging_face_projections(megatron);
  CHECK(hf.parameters() == megatron.parameters());
  CHECK(hf.forward_flops_per_sample() == simtrain::testing::Approx(megatron.forward_flops_per_sample()));
  CHECK(hf.layers.size() == megatron.layers.size() + 3 * 32);
  double saved_megatron = 0, saved_hf = 0;
  for (const Layer& l : megatron.layers) saved_megatron += l.saved_activation_elements_per_sample;
  for (const Layer& l : hf.layers) saved_hf += l.saved_activation_elements_per_sample;
  CHECK(saved_hf == saved_megatron);
  int k_proj = 0;
  for (const Layer& l : hf.layers)
    if (l.name == "decoder.layers.0.self_attention.k_proj") k_proj = static_cast<int>(l.dims[2]);
  CHECK(k_proj == 8 * 128);
  // A model without fused projections is unchanged.
  CHECK(with_hugging_face_projections(build_model("gpt2-xl")).layers.size() ==
        build_model("gpt2-xl").layers.size());
}

TEST_CASE(
    "a model whose own code fuses q, k and v (MPT's Wqkv) keeps one projection; gate and up still split") {
  Model fused = build_model("llama3-8b");
  fused.transformer->fused_qkv = true;
  const Model hf = with_hugging_face_projections(fused);
  CHECK(hf.layers.size() == fused.layers.size() + 32);  // gate and up only
  int qkv = 0, q_proj = 0;
  for (const Layer& l : hf.layers) {
    qkv += l.name.ends_with(".self_attention.linear_qkv");
    q_proj += l.name.ends_with(".q_proj");
  }
  CHECK(qkv == 32);
  CHECK(q_proj == 0);
  CHECK(hf.parameters() == fused.parameters());
}
