// Specification of workload_shapes.h inside the project: --model generates any zoo model's step with the
// simulator's generator, --trace reads a recorded trace, and the built-in copies the standalone tool keeps
// (model_shapes.h) list what the generator runs.
#include "calibration/tool/workload_shapes.h"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

#include "calibration/tool/model_shapes.h"
#include "common/error.h"

using namespace simtrain::calibration::tool;

namespace {

template <typename T>
bool contains_all(const std::vector<T>& set, const std::vector<T>& subset) {
  return std::all_of(subset.begin(), subset.end(),
                     [&](const T& x) { return std::find(set.begin(), set.end(), x) != set.end(); });
}

}  // namespace

TEST_CASE("inside the project every zoo model has its shapes, not only the built-in ones") {
  REQUIRE(workload_shapes_available());
  const ShapeSet vit = shapes_of_model("vit-b16", 64);
  CHECK(vit.attentions == std::vector<AttentionShape>{{64, 12, 197, 64}});
  CHECK(vit.convs == std::vector<ConvShape>{{64, 3, 224, 224, 768, 16, 16, 16, 0}});  // patch embedding
  CHECK(std::count(vit.gemms.begin(), vit.gemms.end(), GemmShape{64 * 197, 3072, 768, false, true}) == 1);
  const ShapeSet densenet = shapes_of_model("densenet121", 32);
  CHECK(densenet.convs.size() > 50);  // 120 convolutions, 66 of them distinct
  CHECK(!densenet.batch_norms.empty());
  CHECK(default_batch_of_model("densenet121") == 32);
  CHECK(default_batch_of_model("llama3-8b") == 1);
  CHECK_THROWS_WITH_AS(shapes_of_model("alexnet", 1), doctest::Contains("--model: unknown model 'alexnet'"),
                       simtrain::Error);
}

TEST_CASE("the standalone tool's built-in ResNet-50 runs the convolutions the generator runs") {
  const ShapeSet generated = shapes_of_model("resnet50", 32);
  const ShapeSet builtin = model_shapes("resnet50", 32);
  CHECK(generated.convs == builtin.convs);
  CHECK(generated.softmaxes == builtin.softmaxes);
  // A tensor of as many elements may stand for the pooling's input too (256 x 56 x 56 = 64 x 112 x 112):
  // measured once more, never missed.
  CHECK(contains_all(generated.pools, builtin.pools));
  CHECK(contains_all(generated.gemms, builtin.gemms));
  CHECK(contains_all(generated.batch_norms, builtin.batch_norms));
}

TEST_CASE("the built-in transformers' GEMMs, attention and loss are the generator's") {
  for (const char* model : {"bert-large", "gpt2-xl", "llama2-7b"}) {
    CAPTURE(model);
    const ShapeSet generated = shapes_of_model(model, 2);
    const ShapeSet builtin = model_shapes(model, 2);
    CHECK(generated.attentions == builtin.attentions);
    CHECK(contains_all(generated.softmaxes, builtin.softmaxes));
    CHECK(contains_all(generated.gemms, builtin.gemms));
  }
}

TEST_CASE("a trace's shapes: the recorded Llama step's GEMMs, LM head included") {
  const ShapeSet llama = shapes_of_trace(std::string(SIMTRAIN_SOURCE_DIR) +
                                         "/traces/pytorch/llama2-7b_2_layers_seq4096_b1_bf16_adamw.json.gz");
  CHECK(llama.gemms.size() > 5);
  CHECK(std::any_of(llama.gemms.begin(), llama.gemms.end(),
                    [](const GemmShape& g) { return g.m == 32000 || g.n == 32000 || g.k == 32000; }));
  CHECK_THROWS_AS(shapes_of_trace("/nonexistent/trace.json"), simtrain::Error);
}
