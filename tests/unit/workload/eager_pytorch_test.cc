// Specification of with_eager_pytorch_passes (eager_pytorch.h): the casts and unfused passes PyTorch's eager
// mode adds under autocast, counted in bytes of the tensors they read and write.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include "tests/support/approx.h"

#include "simulator/workload/attention_work.h"
#include "simulator/workload/eager_pytorch.h"

using namespace simtrain;
using namespace simtrain::workload;
using trace::ComputeKind;
using trace::Pass;

namespace {

const Layer& layer_named(const Model& model, const std::string& name) {
  for (const Layer& layer : model.layers)
    if (layer.name == name) return layer;
  FAIL("no layer " << name);
  return model.layers.front();
}

bool is_workspace_memset(const trace::ComputeSpec& k) { return k.kind == ComputeKind::Gemm && k.flops == 0; }

LayerKernels with_memsets(const Model& model, const std::string& layer, int batch, Precision precision) {
  const Layer& l = layer_named(model, layer);
  return with_eager_pytorch_passes(kernels_for(l, model, batch, precision), l, model, batch, precision);
}

// The eager passes without cuBLASLt's workspace memsets (their own test case below).
LayerKernels eager(const Model& model, const std::string& layer, int batch, Precision precision) {
  LayerKernels k = with_memsets(model, layer, batch, precision);
  std::erase_if(k.forward, is_workspace_memset);
  std::erase_if(k.backward, is_workspace_memset);
  return k;
}

double total_bytes(const std::vector<trace::ComputeSpec>& kernels) {
  double bytes = 0;
  for (const auto& k : kernels) bytes += k.bytes;
  return bytes;
}

}  // namespace

TEST_CASE("autocast casts a weight to 16 bits before its GEMM and the weight gradient back to fp32 after") {
  const Model model = build_model("llama2-7b");
  const std::string qkv = "model.layers.0.self_attn.q_proj";
  const double parameters = layer_named(model, qkv).parameters;  // 4096 x 4096, no bias
  CHECK(parameters == 4096.0 * 4096);
  const LayerKernels fused = kernels_for(layer_named(model, qkv), model, 1, Precision::AMP_BF16);
  const LayerKernels k = eager(model, qkv, 1, Precision::AMP_BF16);
  REQUIRE(k.forward.size() == fused.forward.size() + 1);
  CHECK(k.forward.front().kind == ComputeKind::Elementwise);
  CHECK(k.forward.front().bytes == parameters * (4 + 2));  // read fp32, write bf16
  CHECK(k.forward.back() == fused.forward.back());         // then the GEMM as before
  REQUIRE(k.backward.size() == fused.backward.size() + 1);
  CHECK(k.backward.back().pass == Pass::BackwardWeight);
  CHECK(k.backward.back().bytes == parameters * (2 + 4));

  // Without autocast the weights are used as they are.
  CHECK(eager(model, qkv, 1, Precision::FP32).forward.size() == fused.forward.size());
  CHECK(eager(model, qkv, 1, Precision::TF32).backward.size() == fused.backward.size());

  // Nor when FSDP's mixed precision has gathered them in 16 bits already.
  const Layer& layer = layer_named(model, qkv);
  LayerKernels gathered = with_eager_pytorch_passes(kernels_for(layer, model, 1, Precision::AMP_BF16), layer,
                                                    model, 1, Precision::AMP_BF16, true);
  std::erase_if(gathered.forward, is_workspace_memset);
  std::erase_if(gathered.backward, is_workspace_memset);
  CHECK(gathered.forward.size() == fused.forward.size());
  CHECK(gathered.backward.size() == fused.backward.size());
}

TEST_CASE("cuBLASLt zeroes a workspace before large 16-bit forward and input-gradient GEMMs") {
  const auto memsets_before_gemms = [](const std::vector<trace::ComputeSpec>& kernels) {
    std::vector<Pass> passes;
    for (std::size_t i = 0; i + 1 < kernels.size(); ++i) {
      if (!is_workspace_memset(kernels[i])) continue;
      CHECK(kernels[i + 1].kind == ComputeKind::Gemm);  // right before its GEMM, of no work but 4 bytes
      CHECK(kernels[i + 1].pass == kernels[i].pass);
      CHECK(kernels[i].bytes == 4);
      passes.push_back(kernels[i].pass);
    }
    return passes;
  };
  // GPT-2 XL at 2,048 tokens: c_fc (1,600 -> 6,400) gets one forward, c_proj (6,400 -> 1,600) one before
  // its input gradient (6,400 columns), as the H200 trace shows; neither before a weight gradient.
  const Model gpt2 = build_model("gpt2-xl", {.seq_len = 512});
  const LayerKernels fc = with_memsets(gpt2, "transformer.h.0.mlp.c_fc", 4, Precision::AMP_BF16);
  CHECK(memsets_before_gemms(fc.forward) == std::vector<Pass>{Pass::Forward});
  CHECK(memsets_before_gemms(fc.backward).empty());
  const LayerKernels proj = with_memsets(gpt2, "transformer.h.0.mlp.c_proj", 4, Precision::AMP_BF16);
  CHECK(memsets_before_gemms(proj.forward).empty());
  CHECK(memsets_before_gemms(proj.backward) == std::vector<Pass>{Pass::BackwardData});
  // Not in fp32, nor for GPT-2's 50,257-wide head (misaligned: cuBLAS's fallback kernels), nor for 32 rows.
  CHECK(memsets_before_gemms(with_memsets(gpt2, "transformer.h.0.mlp.c_fc", 4, Precision::FP32).forward)
            .empty());
  CHECK(memsets_before_gemms(with_memsets(gpt2, "lm_head", 4, Precision::AMP_BF16).forward).empty());
  // An odd token count (2,555 rows) leads no dimension: the memset stays.
  const Model odd = build_model("gpt2-xl", {.seq_len = 511});
  CHECK(memsets_before_gemms(with_memsets(odd, "transformer.h.0.mlp.c_fc", 5, Precision::AMP_BF16).forward) ==
        std::vector<Pass>{Pass::Forward});
  const Model resnet = build_model("resnet50");
  CHECK(memsets_before_gemms(with_memsets(resnet, "fc", 32, Precision::AMP_FP16).backward).empty());
}

TEST_CASE("a transformer's norms and residual adds move the fp32 stream under autocast") {
  const Model gpt2 = build_model("gpt2-xl");
  const double tokens = 1024.0 * 1600;  // one sequence of 1024 tokens x hidden 1600
  const std::string norm = "transformer.h.0.ln_1";
  const LayerKernels fused = kernels_for(layer_named(gpt2, norm), gpt2, 1, Precision::AMP_BF16);
  const LayerKernels k = eager(gpt2, norm, 1, Precision::AMP_BF16);
  // The norm itself at 4 bytes per element instead of 2, then its output cast to bf16 for the QKV GEMM.
  REQUIRE(k.forward.size() == 2);
  CHECK(k.forward[0].bytes == 2 * fused.forward[0].bytes);
  CHECK(k.forward[1].bytes == tokens * (4 + 2));
  CHECK(k.backward.front().bytes == tokens * (2 + 4));  // the gradient cast back first
  CHECK(total_bytes(k.backward) == tokens * 6 + 2 * total_bytes(fused.backward));

  const Model model = build_model("llama2-7b");
  const double elements = 4096.0 * 4096;  // one sequence of 4096 tokens x hidden 4096
  const LayerKernels add = eager(model, "model.layers.0.add_1", 1, Precision::AMP_BF16);
  REQUIRE(add.forward.size() == 1);
  CHECK(add.forward[0].bytes == elements * (4 + 2 + 4));  // fp32 stream + bf16 branch -> fp32
  CHECK(add.backward[0].bytes == elements * 12);

  // A CNN has no fp32 stream: batch norm stays in fp16 (cuDNN's statistics kernel follows it).
  const Model resnet = build_model("resnet50");
  const Layer& bn = layer_named(resnet, "bn1");
  CHECK(eager(resnet, "bn1", 32, Precision::AMP_FP16).forward.front() ==
        kernels_for(bn, resnet, 32, Precision::AMP_FP16).forward.front());
}

TEST_CASE("rotary embeddings run as rotate_half, in fp32 against fp32 cos and sin, on queries and keys") {
  const Model model = build_model("llama2-7b");
  const double elements = 4096.0 * (32 + 32) * 128;  // queries and keys of 4096 tokens
  const LayerKernels k = eager(model, "model.layers.0.self_attn.rotary_emb", 1, Precision::AMP_BF16);
  // Per tensor: * cos, neg, cat, * sin, +, the cast for SDPA; backward 7 kernels, and for rotate_half's two
  // halves a zero fill and a strided copy each and their sum (the trace's 12 per tensor with SDPA's upcast).
  REQUIRE(k.forward.size() == 12);
  REQUIRE(k.backward.size() == 24);
  int strided_backward = 0;
  for (const auto& kernel : k.backward) strided_backward += kernel.unvectorized ? 1 : 0;
  CHECK(strided_backward == 2 * (1 + 2));  // per tensor: the upcast and the two half copies
  // Bytes per element: * cos 2 + 4 -> 4, neg 1 -> 1, cat 2 -> 2, * sin 2 + 4 -> 4, + 8 -> 4, cast 4 -> 2.
  CHECK(total_bytes(k.forward) == simtrain::testing::Approx(elements * (10 + 2 + 4 + 10 + 12 + 6)));
  // Without autocast nothing is cast.
  const LayerKernels fp32 = eager(model, "model.layers.0.self_attn.rotary_emb", 1, Precision::FP32);
  CHECK(fp32.forward.size() == 10);
  CHECK(fp32.backward.size() == 18);
}

TEST_CASE("the loss casts the logits to fp32 and the gradient back") {
  const Model model = build_model("llama2-7b");
  const double logits = 4096.0 * 32000;
  const LayerKernels k = eager(model, "loss", 1, Precision::AMP_BF16);
  CHECK(k.forward.front().bytes == logits * (2 + 4));
  CHECK(k.backward.back().bytes == logits * (4 + 2));
  // nll_loss's backward first zeroes the fp32 gradient of the log-probabilities (the traces' fill_).
  CHECK(k.backward.front().bytes == logits * 4);
  CHECK(eager(model, "loss", 1, Precision::FP32).backward.front().bytes == logits * 4);
}

TEST_CASE(
    "each of Hugging Face's separate projections casts the shared fp32 input; backward adds the gradients") {
  // Llama-2-7B on one sequence of 4,096 tokens: the H200 trace shows q, k and v each casting the norm's fp32
  // output (3 casts, not 1), and backward 3 upcasts of their input gradients and 2 fp32 adds.
  const Model model = build_model("llama2-7b");
  const double input = 4096.0 * 4096;
  const auto extra = [&](const std::string& name, Precision precision) {
    const LayerKernels fused = kernels_for(layer_named(model, name), model, 1, precision);
    const LayerKernels k = eager(model, name, 1, precision);
    return std::pair{k.forward.size() - fused.forward.size(), k.backward.size() - fused.backward.size()};
  };
  CHECK(extra("model.layers.0.self_attn.q_proj", Precision::AMP_BF16) ==
        std::pair<std::size_t, std::size_t>{1, 1});
  CHECK(extra("model.layers.0.self_attn.k_proj", Precision::AMP_BF16) ==
        std::pair<std::size_t, std::size_t>{2, 3});
  CHECK(extra("model.layers.0.mlp.up_proj", Precision::AMP_BF16) ==
        std::pair<std::size_t, std::size_t>{2, 3});
  const LayerKernels v = eager(model, "model.layers.0.self_attn.v_proj", 1, Precision::AMP_BF16);
  CHECK(v.forward[1].bytes == input * (4 + 2));  // after the weight's cast, the input's
  CHECK(v.backward[v.backward.size() - 3].bytes == input * (2 + 4));
  CHECK(v.backward[v.backward.size() - 3].unvectorized);
  CHECK(v.backward[v.backward.size() - 2].bytes == input * (4 + 4 + 4));
  // Without autocast nothing is cast; the gradients are still summed.
  CHECK(extra("model.layers.0.self_attn.k_proj", Precision::FP32) ==
        std::pair<std::size_t, std::size_t>{0, 1});
  CHECK(eager(model, "model.layers.0.self_attn.k_proj", 1, Precision::FP32).backward.back().bytes ==
        input * (4 + 4 + 4));
  // BERT's query, key and value read its LayerNorm's output the same way.
  const Model bert = build_model("bert-large");
  CHECK(layer_named(bert, "encoder.layer.0.attention.self.value").shares_input);
  CHECK_FALSE(layer_named(bert, "encoder.layer.0.attention.self.query").shares_input);
}

TEST_CASE(
    "a Hugging Face decoder copies its keys and values into a DynamicCache and transposes their gradients") {
  // GPT-2 XL (bf16 keys): the two cache copies forward; the key and value gradients' transposes backward,
  // then their concatenation with the query's for the fused c_attn.
  const Model gpt2 = build_model("gpt2-xl");
  const Layer& g = layer_named(gpt2, "transformer.h.0.attn.sdpa");
  const LayerKernels g_fused = kernels_for(g, gpt2, 4, Precision::AMP_BF16);
  const LayerKernels g_eager = eager(gpt2, g.name, 4, Precision::AMP_BF16);
  const double x = 4.0 * 1024 * 1600;  // 4 sequences of 1,024 tokens, 25 heads of 64
  REQUIRE(g_eager.forward.size() == g_fused.forward.size() + 1 + 2);
  CHECK(g_eager.forward[0].bytes == x * (2 + 2));
  CHECK(g_eager.forward[0].unvectorized);
  REQUIRE(g_eager.backward.size() == g_fused.backward.size() + 3 + 2 + 1);
  CHECK(g_eager.backward[g_eager.backward.size() - 2].bytes == x * (2 + 2));
  CHECK(g_eager.backward[g_eager.backward.size() - 2].unvectorized);
  CHECK(g_eager.backward.back().bytes == 3 * x * (2 + 2));
  CHECK_FALSE(g_eager.backward.back().unvectorized);
  // Llama-2-7B: its rotated keys are fp32, so the cache promotes the values to fp32 and SDPA casts them back;
  // backward casts the value gradient through that and transposes the query's gradient too.
  const Model llama = build_model("llama2-7b");
  const Layer& l = layer_named(llama, "model.layers.0.self_attn.sdpa");
  const LayerKernels l_fused = kernels_for(l, llama, 1, Precision::AMP_BF16);
  const LayerKernels l_eager = eager(llama, l.name, 1, Precision::AMP_BF16);
  const double y = 4096.0 * 4096;
  REQUIRE(l_eager.forward.size() == l_fused.forward.size() + 1 + 3);
  CHECK(l_eager.forward[0].bytes == y * (4 + 4));  // keys
  CHECK(l_eager.forward[1].bytes == y * (2 + 4));  // values, promoted
  CHECK(l_eager.forward[2].bytes == y * (4 + 2));  // the values' cast for SDPA
  CHECK(l_eager.backward.size() == l_fused.backward.size() + 3 + 2 + 3);
  // An encoder keeps no cache.
  const Model bert = build_model("bert-large");
  const Layer& b = layer_named(bert, "encoder.layer.0.attention.self.sdpa");
  CHECK(eager(bert, b.name, 1, Precision::AMP_BF16).backward.size() ==
        kernels_for(b, bert, 1, Precision::AMP_BF16).backward.size() + 3);
}

TEST_CASE("a causal flash kernel visits the tiles on and below the diagonal") {
  CHECK(flash_attention_tile_fraction(4096, false) == 1.0);
  CHECK(flash_attention_tile_fraction(4096, true) == 33.0 / 64);  // 32 x 32 tiles: 528 of 1024
  CHECK(flash_attention_tile_fraction(128, true) == 1.0);         // one tile: nothing to skip
  CHECK(flash_attention_tile_fraction(200, true) == 3.0 / 4);     // 2 x 2 tiles, the upper one skipped
  // The model's FLOPs (for MFU) still count the whole square.
  const Model model = build_model("llama2-7b");
  const Layer& attention = layer_named(model, "model.layers.0.self_attn.sdpa");
  const double full = 4.0 * 32 * 4096 * 4096 * 128;
  CHECK(kernels_for(attention, model, 1, Precision::AMP_BF16).forward[0].flops == full * 33 / 64);
  // Each query tile visits 16.5 of the 32 key tiles on average; a short unmasked sequence, all of its few.
  const LayerKernels k = kernels_for(attention, model, 1, Precision::AMP_BF16);
  CHECK(k.forward[0].kv_tiles == 16.5);
  CHECK(k.backward[0].kv_tiles == 16.5);
  CHECK(flash_attention_kv_tiles(197, flash_attention_tile_fraction(197, false)) == 2);
  CHECK(flash_attention_kv_tiles(64, 1.0) == 1);  // never less than one tile
}

TEST_CASE(
    "a biased Linear under autocast casts weight and bias, and reduces the bias gradient over the rows") {
  const Model model = build_model("gpt2-xl", {.seq_len = 512});
  const std::string fc = "transformer.h.0.mlp.c_fc";  // 1600 -> 6400 with bias
  const LayerKernels fused = kernels_for(layer_named(model, fc), model, 4, Precision::AMP_BF16);
  const LayerKernels k = eager(model, fc, 4, Precision::AMP_BF16);
  REQUIRE(k.forward.size() == fused.forward.size() + 2);
  CHECK(k.forward[0].bytes == 1600.0 * 6400 * (4 + 2));  // the weight, then the bias
  CHECK(k.forward[1].bytes == 6400.0 * (4 + 2));
  // Backward: the GEMMs, the bias-gradient reduction (2048 rows: an initialisation kernel first), then
  // both gradients cast back to fp32.
  REQUIRE(k.backward.size() == fused.backward.size() + 4);
  CHECK(k.backward[fused.backward.size() + 1].bytes == 2048.0 * 6400 * 2 + 6400 * 4);
  // Without autocast the reduction stays, the casts go.
  CHECK(eager(model, fc, 4, Precision::FP32).backward.size() == fused.backward.size() + 2);
}

TEST_CASE("Hugging Face's gelu_new runs as 9 forward and 14 backward kernels under autocast") {
  const Model model = build_model("gpt2-xl", {.seq_len = 512});
  const LayerKernels k = eager(model, "transformer.h.0.mlp.act", 4, Precision::AMP_BF16);
  CHECK(k.forward.size() == 9);
  CHECK(k.backward.size() == 14);
  int tanh = 0;
  for (const auto& kernel : k.forward) tanh += kernel.kind == ComputeKind::Activation;
  CHECK(tanh == 1);
  CHECK(eager(model, "transformer.h.0.mlp.act", 4, Precision::FP32).forward.size() == 8);
}

TEST_CASE("Hugging Face's RMSNorm runs operator by operator: 6 forward and 11 backward kernels, plus casts") {
  const Model model = build_model("llama2-7b");
  const LayerKernels k = eager(model, "model.layers.0.input_layernorm", 1, Precision::AMP_BF16);
  CHECK(k.forward.size() == 6 + 1);
  CHECK(k.backward.size() == 11 + 1);
  for (const auto& kernel : k.forward) CHECK(kernel.kind == ComputeKind::Elementwise);
  CHECK(eager(model, "model.layers.0.input_layernorm", 1, Precision::FP32).forward.size() == 6);
}

TEST_CASE("cuDNN's batch norm and SDPA launch small helper kernels beside their main one") {
  const Model resnet = build_model("resnet50");
  const LayerKernels bn = eager(resnet, "bn1", 32, Precision::AMP_FP16);
  CHECK(bn.forward.size() == 3);  // and num_batches_tracked += 1
  CHECK(bn.backward.size() == 2);
  const Model bert = build_model("bert-large");
  const LayerKernels sdpa = eager(bert, "encoder.layer.0.attention.self.sdpa", 8, Precision::AMP_FP16);
  CHECK(sdpa.forward.size() == 2);
  CHECK(sdpa.backward.size() == 4);
}

TEST_CASE("DenseNet's concatenations accumulate each input's gradient from its other readers") {
  // A block of L layers: the concatenation in layer j reads j tensors, the block's last one L + 1, and
  // every tensor's gradient is summed over its readers: L (L + 1) / 2 accumulations, 21 for L = 6.
  const Model densenet = build_model("densenet121");
  std::size_t accumulations = 0;
  for (const Layer& layer : densenet.layers)
    if (layer.type == "concat" && layer.name.rfind("features.denseblock1.", 0) == 0)
      accumulations += eager(densenet, layer.name, 32, Precision::AMP_FP16).backward.size();
  CHECK(accumulations == 21);
}

TEST_CASE("an upcast to fp32 runs on PyTorch's unvectorized path; a downcast to 16 bits does not") {
  // The H200 traces: every fp16 -> fp32 copy is an unrolled_elementwise_kernel, fp32 -> fp16 casts run
  // vectorized, and an fp32 + fp16 residual add runs unrolled.
  const Model model = build_model("llama2-7b");
  const LayerKernels k = eager(model, "model.layers.0.self_attn.q_proj", 1, Precision::AMP_BF16);
  CHECK_FALSE(k.forward.front().unvectorized);  // the weight cast to bf16
  CHECK(k.backward.back().unvectorized);        // its gradient cast back to fp32
  for (const auto& gemm : k.forward)
    if (gemm.kind == ComputeKind::Gemm) CHECK_FALSE(gemm.unvectorized);
  const Model gpt2 = build_model("gpt2-xl");
  const LayerKernels add = eager(gpt2, "transformer.h.0.add_1", 1, Precision::AMP_BF16);
  REQUIRE(add.forward.size() == 1);
  CHECK(add.forward[0].unvectorized);         // fp32 + bf16 -> fp32
  CHECK_FALSE(add.backward[0].unvectorized);  // fp32 gradients
  // cuDNN's SDPA helpers, right after its backward kernel, are cuDNN's own kernels.
  const Layer& sdpa = layer_named(gpt2, "transformer.h.0.attn.sdpa");
  const std::size_t own = kernels_for(sdpa, gpt2, 1, Precision::AMP_BF16).backward.size();
  const LayerKernels attention = eager(gpt2, sdpa.name, 1, Precision::AMP_BF16);
  REQUIRE(attention.backward.size() >= own + 3);
  for (std::size_t i = own; i < own + 3; ++i) CHECK_FALSE(attention.backward[i].unvectorized);
}

TEST_CASE(
    "torchvision's MultiheadAttention copies its transposed tensors: 3 forward and 11 backward kernels") {
  // ViT-B/16 on 64 images: per layer the H200 trace shows the input's reshape copy, the in-projection's
  // strided bias add and the packed q, k, v made contiguous forward; unbind's gradient (3 fills, 3 copies,
  // 2 adds), the packed and input gradients' reshape copies and one copy of the stream's gradient backward.
  const Model vit = build_model("vit-b16");
  const std::string sdpa = "encoder.layers.encoder_layer_0.self_attention.sdpa";
  const Layer& layer = layer_named(vit, sdpa);
  const LayerKernels fused = kernels_for(layer, vit, 64, Precision::AMP_FP16);
  const LayerKernels k = eager(vit, sdpa, 64, Precision::AMP_FP16);
  const double x = 64.0 * 197 * 768;
  // cuDNN's helpers (1 forward, 3 backward) come first; torchvision's copies on top of them.
  REQUIRE(k.forward.size() == fused.forward.size() + 1 + 3);
  REQUIRE(k.backward.size() == fused.backward.size() + 3 + 11);
  int strided = 0;
  for (const auto& kernel : k.forward) strided += kernel.unvectorized ? 1 : 0;
  CHECK(strided == 3);
  CHECK(k.forward[0].bytes == x * (2 + 2));       // the reshape copy of the fp16 input
  CHECK(k.forward[2].bytes == 3 * x * (2 + 2));   // q, k, v made contiguous
  CHECK(k.backward.back().bytes == x * (4 + 4));  // the fp32 stream's gradient
  CHECK(k.backward.back().unvectorized);
  // Hugging Face's attention (BERT) has no such copies.
  const Model bert = build_model("bert-large");
  const Layer& bert_sdpa = layer_named(bert, "encoder.layer.0.attention.self.sdpa");
  CHECK(eager(bert, bert_sdpa.name, 1, Precision::AMP_FP16).forward.size() ==
        kernels_for(bert_sdpa, bert, 1, Precision::AMP_FP16).forward.size() + 1);
}

TEST_CASE("torchvision's residual adds read a strided operand and copy the fp32 stream contiguous") {
  const Model vit = build_model("vit-b16");
  const LayerKernels k = eager(vit, "encoder.layers.encoder_layer_0.add_1", 64, Precision::AMP_FP16);
  const double x = 64.0 * 197 * 768;
  REQUIRE(k.forward.size() == 2);
  CHECK(k.forward[0].bytes == x * (4 + 2 + 4));
  CHECK(k.forward[0].unvectorized);
  CHECK(k.forward[1].bytes == x * (4 + 4));
  CHECK(k.forward[1].unvectorized);
  REQUIRE(k.backward.size() == 2);
  CHECK_FALSE(k.backward[0].unvectorized);
  CHECK(k.backward[1].unvectorized);
}
