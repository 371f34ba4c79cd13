// Specification of FSDP's units over a zoo model (fsdp_wrap.h): one per repeated block, the rest the root.
#include <doctest/doctest.h>

#include "simulator/workload/fsdp_wrap.h"
#include "simulator/workload/hugging_face_layout.h"

using namespace simtrain::workload;

TEST_CASE("a layer's block is its name up to its first numbered part") {
  CHECK(block_of("model.layers.3.self_attn.q_proj") == "model.layers.3");
  CHECK(block_of("model.layers.12.mlp") == "model.layers.12");
  CHECK(block_of("layer2.1.conv2") == "layer2.1");
  CHECK(block_of("transformer.h.0.attn") == "transformer.h.0");
  CHECK(block_of("model.embed_tokens").empty());
  CHECK(block_of("fc").empty());
  CHECK(block_of("layer3").empty());  // a number inside a part is not a block index
  CHECK(block_of("").empty());
}

TEST_CASE("Llama-2-7B wraps into its 32 decoder layers, the embedding, final norm and LM head the root") {
  const Model model = with_hugging_face_projections(build_model("llama2-7b"));
  const FsdpWrap wrap = wrap_repeated_blocks(model);
  REQUIRE(wrap.units.size() == 32);
  double in_units = 0;
  for (const FsdpUnit& unit : wrap.units) {
    in_units += unit.parameters;
    CHECK(unit.parameters == wrap.units.front().parameters);  // identical blocks
    CHECK(block_of(model.layers[unit.first_layer].name) == block_of(model.layers[unit.end_layer - 1].name));
  }
  // A decoder layer: q, k, v, o (4 x 4096^2), gate, up, down (3 x 4096 x 11008) and two RMSNorm weights.
  CHECK(wrap.units.front().parameters == 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096);
  CHECK(wrap.largest_unit_parameters() == wrap.units.front().parameters);
  CHECK(in_units + wrap.root_parameters == model.parameters());
  // Embedding and LM head (32,000 x 4,096 each, untied) and the final norm.
  CHECK(wrap.root_parameters == 2.0 * 32000 * 4096 + 4096);
  REQUIRE(wrap.unit_of_layer.size() == model.layers.size());
  CHECK(wrap.unit_of_layer.front() == FsdpWrap::kRootUnit);
  CHECK(wrap.unit_of_layer.back() == FsdpWrap::kRootUnit);
  for (std::size_t u = 0; u < wrap.units.size(); ++u)
    for (std::size_t i = wrap.units[u].first_layer; i < wrap.units[u].end_layer; ++i)
      CHECK(wrap.unit_of_layer[i] == static_cast<int>(u));
}

TEST_CASE("ResNet-50 wraps into its 16 bottleneck blocks; the stem and classifier are the root") {
  const Model model = build_model("resnet50");
  const FsdpWrap wrap = wrap_repeated_blocks(model);
  CHECK(wrap.units.size() == 3 + 4 + 6 + 3);
  CHECK(block_of(model.layers[wrap.units.front().first_layer].name) == "layer1.0");
  double in_units = 0;
  for (const FsdpUnit& unit : wrap.units) in_units += unit.parameters;
  CHECK(in_units + wrap.root_parameters == model.parameters());
  CHECK(wrap.root_parameters > 2049000);  // fc's 2,049,000 and the stem's conv1 and bn1
}
