// Specification of the model zoo: parameter counts and forward work against published figures, and the
// kernels each layer type launches.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <set>

#include "common/error.h"
#include "simulator/workload/model_zoo.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// Published figures are quoted to 2-3 significant digits and papers differ in what they count (biases,
// pooler, heads), so counts are held to 2% unless an exact count from the reference implementation is known.
constexpr double kPublishedTolerance = 0.02;

double macs(const Model& model) { return model.forward_flops_per_sample() / 2; }

}  // namespace

TEST_CASE("the zoo lists its models and builds each with unique layer names") {
  const std::vector<std::string> names = model_names();
  CHECK(names == std::vector<std::string>{"lenet5",
                                          "resnet50",
                                          "densenet121",
                                          "vit-b16",
                                          "bert-large",
                                          "gpt2-xl",
                                          "llama2-7b",
                                          "gpt3-175b",
                                          "megatron-gpt-1.7b",
                                          "megatron-gpt-3.6b",
                                          "megatron-gpt-7.5b",
                                          "megatron-gpt-18b",
                                          "megatron-gpt-39b",
                                          "megatron-gpt-76b",
                                          "megatron-gpt-145b",
                                          "megatron-gpt-310b",
                                          "megatron-gpt-530b",
                                          "megatron-gpt-1t",
                                          "megatron-22b",
                                          "mt-nlg-530b",
                                          "megatron-1t",
                                          "llama2-13b",
                                          "llama2-70b",
                                          "llama3-8b",
                                          "llama3-70b",
                                          "llama3-405b",
                                          "llama3.1-8b",
                                          "llama3.1-70b",
                                          "llama3.1-405b",
                                          "mixtral-8x7b",
                                          "deepseek-moe-16b",
                                          "deepseek-v3",
                                          "kimi-k2",
                                          "qwen3-30b-a3b",
                                          "qwen3-235b-a22b",
                                          "llama4-scout",
                                          "llama4-maverick",
                                          "gpt-oss-120b",
                                          "nemotron-h-8b",
                                          "nemotron-3-nano",
                                          "nemotron-3.5-lightning",
                                          "nemotron-3-super"});
  for (const std::string& name : names) {
    const Model model = build_model(name);
    CHECK(model.name == name);
    std::set<std::string> seen;
    for (const Layer& layer : model.layers) CHECK(seen.insert(layer.name).second);
  }
}

TEST_CASE("LeNet-5 has 61,706 parameters and 0.42 M forward MACs") {
  // LeCun et al. 1998 with full C3 connections (the usual modern rewrite): 156 + 2,416 + 48,120 + 10,164 +
  // 850.
  const Model model = build_model("lenet5");
  CHECK(model.parameters() == 61706);
  // 28*28*6*25 + 10*10*16*150 + 120*400 + 120*84 + 84*10, counted by hand.
  CHECK(macs(model) == 416520);
}

TEST_CASE("ResNet-50 v1.5 has 25.557 M parameters and 4.09 G forward MACs") {
  // torchvision model card (ResNet50_Weights.IMAGENET1K_V1): 25,557,032 parameters, 4.09 GFLOPS (= MACs).
  const Model model = build_model("resnet50");
  CHECK(model.parameters() == 25557032);
  CHECK(macs(model) == simtrain::testing::Approx(4.09e9).epsilon(kPublishedTolerance));
  CHECK(model.sample_unit == "image");
  CHECK(model.seq_len == 0);
}

TEST_CASE("DenseNet-121 has 7.98 M parameters and about 2.85 G forward MACs") {
  // torchvision model card: 7,978,856 parameters, 2.83 GFLOPS; other counters (which add BatchNorm) quote
  // 2.87 G. Both lie within 2% of 2.85 G.
  const Model model = build_model("densenet121");
  CHECK(model.parameters() == 7978856);
  CHECK(macs(model) == simtrain::testing::Approx(2.83e9).epsilon(kPublishedTolerance));
  CHECK(macs(model) == simtrain::testing::Approx(2.87e9).epsilon(kPublishedTolerance));
}

TEST_CASE("ViT-B/16 has 86.57 M parameters and 17.56 G forward MACs") {
  // torchvision model card (ViT_B_16_Weights.IMAGENET1K_V1): 86,567,656 parameters, 17.56 GFLOPS. Its count
  // includes the attention matmuls, as ours does.
  const Model model = build_model("vit-b16");
  CHECK(model.parameters() == 86567656);
  CHECK(macs(model) == simtrain::testing::Approx(17.56e9).epsilon(kPublishedTolerance));
}

TEST_CASE("BERT-Large with pre-training heads has 336 M parameters") {
  // Devlin et al. 2019 quote 340 M; Hugging Face's BertForPreTraining counts 336,226,108 (pooler, MLM
  // transform and decoder bias, NSP head; decoder weight tied to the word embedding).
  const Model model = build_model("bert-large");
  CHECK(model.parameters() == 336226108);
  CHECK(model.parameters() == simtrain::testing::Approx(340e6).epsilon(kPublishedTolerance));
  CHECK(model.seq_len == 128);
}

TEST_CASE("GPT-2 XL has 1.558 B parameters and the forward FLOPs of Megatron-LM's formula") {
  // Radford et al. 2019 quote 1,542 M; Hugging Face's gpt2-xl counts 1,557,611,200 with tied embeddings.
  const Model model = build_model("gpt2-xl");
  CHECK(model.parameters() == 1557611200);
  CHECK(model.seq_len == 1024);
  // Narayanan et al. 2021 (Megatron-LM), section 5.1: a layer's forward is 24 s h^2 (1 + s / 6h) FLOPs and
  // the logit layer's 2 s h V (their 96 B s l h^2 (...) also counts the recomputed forward and the backward).
  // It ignores biases, 0.1% of the GEMM work here.
  const double s = 1024, l = 48, h = 1600, v = 50257;
  const double megatron = 24 * s * l * h * h * (1 + s / (6 * h)) + 2 * s * h * v;
  CHECK(model.forward_flops_per_sample() == simtrain::testing::Approx(megatron).epsilon(0.001));
}

TEST_CASE("Llama-2-7B has 6.738 B parameters") {
  // Hugging Face meta-llama/Llama-2-7b-hf: 6,738,415,616 parameters (untied LM head).
  const Model model = build_model("llama2-7b");
  CHECK(model.parameters() == 6738415616.0);
  CHECK(model.seq_len == 4096);
}

TEST_CASE("sequence models honour seq_len; image models refuse it") {
  const Model short_bert = build_model("bert-large", {.seq_len = 512});
  CHECK(short_bert.seq_len == 512);
  // Only the tables and the matmuls over tokens grow; parameters do not.
  CHECK(short_bert.parameters() == build_model("bert-large").parameters());
  CHECK(build_model("llama2-7b", {.seq_len = 2048}).seq_len == 2048);
  CHECK_THROWS_WITH_AS(build_model("bert-large", {.seq_len = 1024}),
                       "--seq-len: bert-large has learned positions for at most 512 tokens, got 1024", Error);
  CHECK_THROWS_WITH_AS(build_model("resnet50", {.seq_len = 128}),
                       "--seq-len: resnet50 takes images, not sequences", Error);
  CHECK_THROWS_AS(build_model("gpt2-xl", {.seq_len = -1}), Error);
}

TEST_CASE("an unknown model name is an error listing the known ones") {
  CHECK_THROWS_WITH_AS(
      build_model("resnet18"),
      doctest::Contains(
          "unknown model 'resnet18' (did you mean 'resnet50'?) (known: lenet5, resnet50, densenet121, "
          "vit-b16, bert-large, gpt2-xl, llama2-7b, gpt3-175b,"),
      Error);
  CHECK_THROWS_WITH_AS(
      build_model("resnet18"),
      doctest::Contains(
          "gpt-oss-120b, nemotron-h-8b, nemotron-3-nano, nemotron-3.5-lightning, nemotron-3-super; or a path "
          "to a .toml model file)"),
      Error);
}

TEST_CASE("the transformers carry their hyper-parameters; the CNNs carry none") {
  for (const char* name : {"lenet5", "resnet50", "densenet121"}) CHECK_FALSE(build_model(name).transformer);
  CHECK(build_model("vit-b16").transformer == TransformerConfig{.layers = 12,
                                                                .hidden = 768,
                                                                .heads = 12,
                                                                .kv_heads = 12,
                                                                .ffn_hidden = 3072,
                                                                .vocab = 0,
                                                                .causal = false});
  CHECK(build_model("bert-large").transformer == TransformerConfig{.layers = 24,
                                                                   .hidden = 1024,
                                                                   .heads = 16,
                                                                   .kv_heads = 16,
                                                                   .ffn_hidden = 4096,
                                                                   .vocab = 30522,
                                                                   .causal = false,
                                                                   .tied_embeddings = true,
                                                                   .dropout = true});
  CHECK(build_model("gpt2-xl").transformer == TransformerConfig{.layers = 48,
                                                                .hidden = 1600,
                                                                .heads = 25,
                                                                .kv_heads = 25,
                                                                .ffn_hidden = 6400,
                                                                .vocab = 50257,
                                                                .tied_embeddings = true,
                                                                .dropout = true});
  CHECK(build_model("llama2-7b").transformer == TransformerConfig{.layers = 32,
                                                                  .hidden = 4096,
                                                                  .heads = 32,
                                                                  .kv_heads = 32,
                                                                  .ffn_hidden = 11008,
                                                                  .vocab = 32000,
                                                                  .gated_mlp = true,
                                                                  .rms_norm = true,
                                                                  .bias = false});
}
