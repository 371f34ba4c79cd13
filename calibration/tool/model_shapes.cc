// Layer shapes copied as data from simulator/workload (cnn_models.cc, transformer_models.cc): a change of
// the zoo's architectures must be repeated here, or calibrated through `--shapes FILE` instead.
#include "calibration/tool/model_shapes.h"

#include <cstdint>

#include "common/error.h"

namespace simtrain::calibration::tool {
namespace {

// ResNet-50 v1.5 at 224x224: stem, four stages of bottlenecks (stride in the 3x3), pooling and the
// classifier.
ShapeSet resnet50(std::int64_t n) {
  ShapeSet set;
  set.convs.push_back({n, 3, 224, 224, 64, 7, 7, 2, 3});
  set.batch_norms.push_back({n, 64, 112, 112});
  set.activations.push_back(n * 64 * 112 * 112);
  set.pools.push_back({{n, 64, 112, 112}, 3, 2, 1});
  struct Stage {
    int blocks;
    std::int64_t width, stride;
  };
  std::int64_t channels = 64, size = 56;
  for (const Stage stage : {Stage{3, 64, 1}, Stage{4, 128, 2}, Stage{6, 256, 2}, Stage{3, 512, 2}}) {
    for (int b = 0; b < stage.blocks; ++b) {
      const std::int64_t width = stage.width, out_channels = 4 * width;
      const std::int64_t stride = b == 0 ? stage.stride : 1;
      const std::int64_t out_size = (size + 2 - 3) / stride + 1;
      set.convs.push_back({n, channels, size, size, width, 1, 1, 1, 0});
      set.batch_norms.push_back({n, width, size, size});
      set.activations.push_back(n * width * size * size);
      set.convs.push_back({n, width, size, size, width, 3, 3, stride, 1});
      set.batch_norms.push_back({n, width, out_size, out_size});
      set.activations.push_back(n * width * out_size * out_size);
      set.convs.push_back({n, width, out_size, out_size, out_channels, 1, 1, 1, 0});
      set.batch_norms.push_back({n, out_channels, out_size, out_size});
      if (b == 0) set.convs.push_back({n, channels, size, size, out_channels, 1, 1, stride, 0});
      set.activations.push_back(n * out_channels * out_size * out_size);
      channels = out_channels;
      size = out_size;
    }
  }
  add_linear(set, n, 2048, 1000);
  set.softmaxes.push_back({n, 1000});
  return set;
}

// A transformer stack's distinct shapes: its linear layers (tokens per sample, in, out), attention, the
// activation of its MLP and the loss over the vocabulary. Layer norms have no cuDNN kernel outside the
// graph API and are left to the roofline.
struct Transformer {
  std::int64_t seq, hidden, heads, ffn, vocab;
  std::vector<std::vector<std::int64_t>> linears;  // {tokens per sample, in, out}
  std::int64_t activation_per_sample;              // 0: not a plain activation (SwiGLU reads two tensors)
};

ShapeSet transformer(const Transformer& t, std::int64_t n) {
  ShapeSet set;
  for (const auto& linear : t.linears) add_linear(set, n * linear[0], linear[1], linear[2]);
  set.attentions.push_back({n, t.heads, t.seq, t.hidden / t.heads});
  if (t.activation_per_sample > 0) set.activations.push_back(n * t.activation_per_sample);
  set.softmaxes.push_back({n * t.seq, t.vocab});
  return set;
}

// BERT-Large, seq 128: Q, K, V and output projections, the MLP, the pooler and the MLM head.
Transformer bert_large() {
  const std::int64_t s = 128;
  return {
      s,
      1024,
      16,
      4096,
      30522,
      {{s, 1024, 1024}, {s, 1024, 4096}, {s, 4096, 1024}, {1, 1024, 1024}, {s, 1024, 30522}, {1, 1024, 2}},
      s * 4096};
}

// GPT-2 XL, seq 1024: fused QKV, projections, MLP and the tied LM head.
Transformer gpt2_xl() {
  const std::int64_t s = 1024;
  return {s,       1600,
          25,      6400,
          50257,   {{s, 1600, 4800}, {s, 1600, 1600}, {s, 1600, 6400}, {s, 6400, 1600}, {s, 1600, 50257}},
          s * 6400};
}

// Llama-2-7B, seq 4096: Q, K, V, O projections, the SwiGLU MLP and the untied LM head.
Transformer llama2_7b() {
  const std::int64_t s = 4096;
  return {s, 4096, 32, 11008, 32000, {{s, 4096, 4096}, {s, 4096, 11008}, {s, 11008, 4096}, {s, 4096, 32000}},
          0};
}

}  // namespace

std::vector<std::string> builtin_model_names() { return {"resnet50", "bert-large", "gpt2-xl", "llama2-7b"}; }

int default_batch(const std::string& model) {
  if (model == "resnet50") return 128;
  if (model == "bert-large") return 32;
  if (model == "gpt2-xl") return 4;
  if (model == "llama2-7b") return 1;
  return 1;
}

ShapeSet model_shapes(const std::string& model, int batch) {
  if (batch < 1) throw Error("--batch: must be at least 1, got " + std::to_string(batch));
  ShapeSet set;
  if (model == "resnet50") {
    set = resnet50(batch);
  } else if (model == "bert-large") {
    set = transformer(bert_large(), batch);
  } else if (model == "gpt2-xl") {
    set = transformer(gpt2_xl(), batch);
  } else if (model == "llama2-7b") {
    set = transformer(llama2_7b(), batch);
  } else {
    std::string known;
    for (const std::string& name : builtin_model_names()) known += (known.empty() ? "" : ", ") + name;
    throw Error("--model: unknown model '" + model + "' (built in: " + known +
                "; other models: `simtrain trace shapes --model NAME -o FILE` where simtrain is built, then "
                "--shapes FILE)");
  }
  set.deduplicate();
  return set;
}

}  // namespace simtrain::calibration::tool
