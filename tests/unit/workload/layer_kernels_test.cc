// Specification of kernels_for (model_zoo.h): which kernels each layer launches, in which dtype, with what
// FLOPs, HBM bytes and shape.
#include <doctest/doctest.h>

#include <set>

#include "common/error.h"
#include "simulator/workload/model_zoo.h"

using namespace simtrain;
using namespace simtrain::workload;
using trace::ComputeKind;
using trace::Pass;

namespace {

const Layer& layer_named(const Model& model, const std::string& name) {
  for (const Layer& layer : model.layers) {
    if (layer.name == name) return layer;
  }
  FAIL("no layer " << name);
  return model.layers.front();
}

}  // namespace

TEST_CASE("a convolution runs forward, data-gradient and weight-gradient kernels of equal FLOPs") {
  const Model model = build_model("resnet50");
  const LayerKernels k = kernels_for(layer_named(model, "layer3.2.conv2"), model, 32, Precision::AMP_FP16);
  // 256 -> 256 channels, 3x3, stride 1, pad 1, on 14x14.
  const double flops = 2.0 * 32 * 256 * 14 * 14 * 256 * 9;
  const double activations = 2.0 * 32 * 256 * 14 * 14;  // input + output elements
  const double weights = 256.0 * 256 * 9;
  REQUIRE(k.forward.size() == 1);
  CHECK(k.forward[0].kind == ComputeKind::Conv);
  CHECK(k.forward[0].pass == Pass::Forward);
  CHECK(k.forward[0].dtype == DType::FP16);
  CHECK(k.forward[0].flops == flops);
  CHECK(k.forward[0].bytes == activations * 2 + weights * 2);
  CHECK(k.forward[0].shape == std::vector<std::int64_t>{32, 256, 14, 14, 256, 3, 3, 1, 1});
  REQUIRE(k.backward.size() == 2);
  CHECK(k.backward[0].pass == Pass::BackwardData);
  CHECK(k.backward[0].flops == flops);
  CHECK(k.backward[1].pass == Pass::BackwardWeight);
  CHECK(k.backward[1].flops == flops);
  // The weight gradient is written in fp32.
  CHECK(k.backward[1].bytes == activations * 2 + weights * 4);
}

TEST_CASE("the first layer has no data-gradient kernel") {
  const Model model = build_model("resnet50");
  const LayerKernels k = kernels_for(model.layers.front(), model, 8, Precision::AMP_FP16);
  REQUIRE(k.backward.size() == 1);
  CHECK(k.backward[0].pass == Pass::BackwardWeight);
}

TEST_CASE("BatchNorm reads x twice forward and x and dy twice backward") {
  const Model model = build_model("resnet50");
  const LayerKernels k = kernels_for(layer_named(model, "bn1"), model, 32, Precision::FP32);
  const double elements = 32.0 * 64 * 112 * 112;
  REQUIRE(k.forward.size() == 1);
  CHECK(k.forward[0].kind == ComputeKind::BatchNorm);
  CHECK(k.forward[0].bytes == 3 * elements * 4);
  REQUIRE(k.backward.size() == 1);
  CHECK(k.backward[0].bytes == 5 * elements * 4);
}

TEST_CASE("ReLU reads x and writes y forward; reads y and dy and writes dx backward") {
  const Model model = build_model("resnet50");
  const LayerKernels k = kernels_for(layer_named(model, "relu"), model, 32, Precision::AMP_BF16);
  const double elements = 32.0 * 64 * 112 * 112;
  CHECK(k.forward[0].kind == ComputeKind::Activation);
  CHECK(k.forward[0].dtype == DType::BF16);
  CHECK(k.forward[0].bytes == 2 * elements * 2);
  CHECK(k.backward[0].bytes == 3 * elements * 2);
}

TEST_CASE("attention is one fused kernel per pass moving only Q, K, V, O and their gradients") {
  const Model model = build_model("bert-large");
  const LayerKernels k =
      kernels_for(layer_named(model, "encoder.layer.0.attention.self.sdpa"), model, 8, Precision::AMP_BF16);
  const double b = 8, h = 16, s = 128, d = 64;
  REQUIRE(k.forward.size() == 1);
  CHECK(k.forward[0].kind == ComputeKind::Attention);
  CHECK(k.forward[0].dtype == DType::BF16);
  CHECK(k.forward[0].shape == std::vector<std::int64_t>{8, 16, 128, 64});
  CHECK(k.forward[0].flops == 4 * b * h * s * s * d);
  CHECK(k.forward[0].bytes == 4 * b * s * h * d * 2);
  REQUIRE(k.backward.size() == 1);
  CHECK(k.backward[0].flops == 2.5 * k.forward[0].flops);
  CHECK(k.backward[0].bytes == 8 * b * s * h * d * 2);
}

TEST_CASE("a linear layer is three GEMMs whose shapes follow the chain rule") {
  const Model model = build_model("gpt2-xl");
  const LayerKernels k =
      kernels_for(layer_named(model, "transformer.h.0.mlp.c_fc"), model, 4, Precision::AMP_FP16);
  // 4 sequences x 1,024 tokens = 4,096 rows; 1,600 -> 6,400 features.
  CHECK(k.forward[0].kind == ComputeKind::Gemm);
  CHECK(k.forward[0].shape == std::vector<std::int64_t>{4096, 6400, 1600});
  CHECK(k.backward[0].shape == std::vector<std::int64_t>{4096, 1600, 6400});
  CHECK(k.backward[1].shape == std::vector<std::int64_t>{6400, 1600, 4096});
  for (const auto& kernel : {k.forward[0], k.backward[0], k.backward[1]}) {
    CHECK(kernel.flops == 2.0 * 4096 * 1600 * 6400);
  }
}

TEST_CASE("a tied LM head owns no parameters but still computes the embedding's weight gradient") {
  const Model model = build_model("gpt2-xl");
  const Layer& head = layer_named(model, "lm_head");
  CHECK(head.parameters == 0);
  const LayerKernels k = kernels_for(head, model, 1, Precision::AMP_FP16);
  REQUIRE(k.backward.size() == 2);
  CHECK(k.backward[1].pass == Pass::BackwardWeight);
}

TEST_CASE("tf32 runs GEMMs in tf32 but memory-bound kernels in fp32") {
  const Model model = build_model("vit-b16");
  CHECK(kernels_for(layer_named(model, "encoder.layers.encoder_layer_0.mlp.0"), model, 2, Precision::TF32)
            .forward[0]
            .dtype == DType::TF32);
  CHECK(kernels_for(layer_named(model, "encoder.layers.encoder_layer_0.mlp.1"), model, 2, Precision::TF32)
            .forward[0]
            .dtype == DType::FP32);
}

TEST_CASE("every layer of every model launches well-formed kernels, at most one per pass") {
  for (const std::string& name : model_names()) {
    const Model model = build_model(name);
    for (const Layer& layer : model.layers) {
      CAPTURE(name);
      CAPTURE(layer.name);
      const LayerKernels k = kernels_for(layer, model, 2, Precision::AMP_FP16);
      REQUIRE(k.forward.size() == 1);
      CHECK(k.forward[0].pass == Pass::Forward);
      std::set<Pass> passes;
      for (const auto& kernel : k.backward) {
        CHECK((kernel.pass == Pass::BackwardData || kernel.pass == Pass::BackwardWeight));
        CHECK(passes.insert(kernel.pass).second);
      }
      for (const auto& kernel : k.forward) CHECK(kernel.bytes > 0);
      for (const auto& kernel : k.backward) CHECK(kernel.bytes > 0);
      // Every layer with parameters produces their gradient.
      if (layer.parameters > 0) CHECK_FALSE(k.backward.empty());
    }
  }
}

TEST_CASE("a micro-batch below one sample is an error") {
  const Model model = build_model("lenet5");
  CHECK_THROWS_AS(kernels_for(model.layers.front(), model, 0, Precision::FP32), Error);
}
