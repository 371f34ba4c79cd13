// Specification of model files (model_toml.h): a TOML file builds the same model as the zoo entry of the
// same shapes, and each kind of bad input is reported with file, line and "section.key".
#include "simulator/workload/model_toml.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "common/error.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

const std::string kModelsDir = SIMTRAIN_SOURCE_DIR "/models";

// A valid file; the bad-input tests each change one line of it. Line numbers count from 1.
const std::string kValid = R"([model]
name = "tiny"
layers = 4
hidden = 256
heads = 8
kv_heads = 2
ffn_hidden = 704
vocab = 1000
seq_len = 128
gated_mlp = true
rms_norm = true
bias = false
[moe]
experts = 4
experts_per_token = 2
moe_ffn_hidden = 352
first_moe_layer = 1
)";

std::string with(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::optional<Error> error_of(const std::string& text) {
  try {
    parse_model_toml(text, "bad.toml");
  } catch (const Error& error) {
    return error;
  }
  return std::nullopt;
}

void check_error(const std::string& text, int line, const std::string& field, const std::string& message) {
  const std::optional<Error> error = error_of(text);
  REQUIRE(error.has_value());
  CHECK(error->file() == "bad.toml");
  CHECK(error->line() == line);
  CHECK(error->field() == field);
  CHECK(error->message() == message);
}

}  // namespace

TEST_CASE("models/llama3-8b.toml builds the zoo's llama3-8b") {
  const Model from_file = build_model(kModelsDir + "/llama3-8b.toml");
  const Model zoo = build_model("llama3-8b");
  CHECK(from_file.parameters() == zoo.parameters());
  CHECK(from_file.parameters() == 8030261248.0);
  CHECK(from_file.forward_flops_per_sample() == zoo.forward_flops_per_sample());
  CHECK(from_file.transformer == zoo.transformer);
  CHECK(from_file.layers.size() == zoo.layers.size());
  CHECK(from_file.seq_len == 8192);
  CHECK(from_file.name == "llama3-8b");
  CHECK(from_file.description == "Llama-3-8B from models/llama3-8b.toml, seq 8192");
  CHECK_FALSE(from_file.layers.front().input_needs_grad);
  // --seq-len replaces the file's default.
  CHECK(build_model(kModelsDir + "/llama3-8b.toml", {.seq_len = 2048}).seq_len == 2048);
}

TEST_CASE("models/mixtral-8x7b.toml builds the zoo's mixtral-8x7b, experts included") {
  const Model from_file = build_model(kModelsDir + "/mixtral-8x7b.toml");
  const Model zoo = build_model("mixtral-8x7b");
  CHECK(from_file.transformer == zoo.transformer);
  CHECK(from_file.parameters() == zoo.parameters());
  CHECK(from_file.active_parameters() == zoo.active_parameters());
}

TEST_CASE("the generic decoder reproduces GPT-2 XL and Llama-2-7B from their shapes alone") {
  // The zoo builds these two module by module as Hugging Face does; the same shapes in a file must give the
  // same parameters and forward FLOPs.
  const Model gpt2 = parse_model_toml(R"([model]
name = "gpt2-xl-file"
layers = 48
hidden = 1600
heads = 25
ffn_hidden = 6400
vocab = 50257
seq_len = 1024
tied_embeddings = true
positions = "learned"
dropout = true
)",
                                      "gpt2.toml");
  CHECK(gpt2.parameters() == build_model("gpt2-xl").parameters());
  CHECK(gpt2.forward_flops_per_sample() == build_model("gpt2-xl").forward_flops_per_sample());
  CHECK(gpt2.transformer == build_model("gpt2-xl").transformer);
  CHECK(gpt2.description == "gpt2-xl-file (gpt2.toml), seq 1024");
  CHECK_THROWS_WITH_AS(
      parse_model_toml("[model]\nname = \"g\"\nlayers = 2\nhidden = 64\nheads = 4\n"
                       "ffn_hidden = 256\nvocab = 100\nseq_len = 64\npositions = \"learned\"\n",
                       "g.toml", {.seq_len = 65}),
      "--seq-len: g has learned positions for at most 64 tokens, got 65", Error);

  const Model llama = parse_model_toml(
      "[model]\nname = \"l\"\nlayers = 32\nhidden = 4096\nheads = 32\nffn_hidden = 11008\nvocab = 32000\n"
      "seq_len = 4096\ngated_mlp = true\nrms_norm = true\nbias = false\n",
      "llama.toml");
  CHECK(llama.parameters() == build_model("llama2-7b").parameters());
  CHECK(llama.forward_flops_per_sample() == build_model("llama2-7b").forward_flops_per_sample());
  CHECK(llama.transformer == build_model("llama2-7b").transformer);
}

TEST_CASE("kv_heads defaults to heads, and the flags to a causal LayerNorm decoder with biases") {
  const Model model = parse_model_toml(
      "[model]\nname = \"m\"\nlayers = 2\nhidden = 64\nheads = 4\nffn_hidden = 256\nvocab = 100\nseq_len = "
      "32\n",
      "m.toml");
  CHECK(model.transformer ==
        TransformerConfig{
            .layers = 2, .hidden = 64, .heads = 4, .kv_heads = 4, .ffn_hidden = 256, .vocab = 100});
  CHECK(model.sample_unit == "sequence");
}

TEST_CASE("qk_norm gives Qwen3's per-head query and key norms; off by default") {
  CHECK_FALSE(parse_model_toml(kValid, "tiny.toml").transformer->qk_norm);
  CHECK(parse_model_toml(with("rms_norm = true\n", "rms_norm = true\nqk_norm = true\n"), "qk.toml")
            .transformer->qk_norm);
}

TEST_CASE("fused_qkv keeps MPT's one QKV projection in the eager layout; off by default") {
  CHECK_FALSE(parse_model_toml(kValid, "tiny.toml").transformer->fused_qkv);
  CHECK(parse_model_toml(with("rms_norm = true\n", "rms_norm = true\nfused_qkv = true\n"), "fused.toml")
            .transformer->fused_qkv);
}

TEST_CASE("a file's [moe] table sets the experts; an all-MoE model needs no ffn_hidden") {
  const Model model = parse_model_toml(kValid, "tiny.toml");
  CHECK(model.transformer == TransformerConfig{.layers = 4,
                                               .hidden = 256,
                                               .heads = 8,
                                               .kv_heads = 2,
                                               .ffn_hidden = 704,
                                               .vocab = 1000,
                                               .gated_mlp = true,
                                               .rms_norm = true,
                                               .bias = false,
                                               .experts = 4,
                                               .experts_per_token = 2,
                                               .moe_ffn_hidden = 352,
                                               .first_moe_layer = 1});
  // Three MoE layers each leave two experts of 3 x 256 x 352 idle per token.
  CHECK(model.parameters() - model.active_parameters() == 3 * 2 * 3 * 256.0 * 352);
  std::string text = with("ffn_hidden = 704\n", "");
  text.replace(text.find("first_moe_layer = 1"), 19, "first_moe_layer = 0");
  const Model all_moe = parse_model_toml(text, "all.toml");
  CHECK(all_moe.transformer->ffn_hidden == 352);
}

TEST_CASE("[moe] layer_freq names the MoE layers as Megatron's --moe-layer-freq does") {
  const Model every_other = parse_model_toml(with("first_moe_layer = 1", "layer_freq = 2"), "every.toml");
  CHECK(every_other.transformer->moe_layers == std::vector<std::uint8_t>{1, 0, 1, 0});
  const Model listed =
      parse_model_toml(with("first_moe_layer = 1", "layer_freq = \"[0]*1+[1]*2+[0]\""), "listed.toml");
  CHECK(listed.transformer->moe_layers == std::vector<std::uint8_t>{0, 1, 1, 0});
  // Two MoE layers each leave two experts of 3 x 256 x 352 idle per token.
  CHECK(listed.parameters() - listed.active_parameters() == 2 * 2 * 3 * 256.0 * 352);
  check_error(with("first_moe_layer = 1", "layer_freq = \"[1]*3\""), 17, "moe.layer_freq",
              "3 layers where the model has 4");
  check_error(with("first_moe_layer = 1", "layer_freq = \"[0]*4\""), 17, "moe.layer_freq",
              "makes no layer a MoE layer");
  check_error(with("first_moe_layer = 1", "first_moe_layer = 1\nlayer_freq = 2"), 18, "moe.layer_freq",
              "give it or first_moe_layer and layer_step, not both");
}

TEST_CASE("bad model files are errors naming file, line and section.key") {
  check_error(
      with("bias = false", "bais = false"), 12, "model.bais",
      "unknown key (did you mean 'bias'?) (expected one of: name, description, layers, hidden, "
      "heads, kv_heads, ffn_hidden, "
      "vocab, seq_len, gated_mlp, causal, tied_embeddings, rms_norm, bias, positions, dropout, head_dim, "
      "window_size, window_skip_freq, yarn_scaling_factor, mtp_layers, hybrid_pattern, attention_chunk, "
      "chunk_skip_freq, qk_norm, fused_qkv, mtp_repeated_layer, mtp_bf16)");
  check_error(with("first_moe_layer = 1", "first_layer = 1"), 17, "moe.first_layer",
              "unknown key (expected one of: experts, experts_per_token, moe_ffn_hidden, shared_experts, "
              "first_moe_layer, latent, layer_step, layer_freq, clamped_quick_geglu)");
  check_error(kValid + "[optimizer]\nlr = 1\n", 18, "optimizer",
              "unknown key (expected the tables [model] and, for a mixture of experts, [moe]; for "
              "multi-latent attention, [mla]; for a hybrid model, [mamba])");
  check_error("[moe]\nexperts = 2\n", 0, "model", "missing the [model] table");
  check_error("model = 3\n", 1, "model", "expected a table [model]");
  check_error(with("layers = 4", "layers = \"4\""), 3, "model.layers", "expected an integer");
  check_error(with("gated_mlp = true", "gated_mlp = 1"), 10, "model.gated_mlp", "expected true or false");
  check_error(with("name = \"tiny\"", "name = 7"), 2, "model.name", "expected a string");
  check_error(with("name = \"tiny\"", "name = \"\""), 2, "model.name", "must not be empty");
  check_error(with("hidden = 256", "hidden = 0"), 4, "model.hidden", "must be positive, got 0");
  check_error(with("layers = 4", "layers = -2"), 3, "model.layers", "must be positive, got -2");
  check_error(with("layers = 4", "layers = 100000"), 3, "model.layers", "too large: 100000 (at most 10000)");
  check_error(with("vocab = 1000\n", ""), 1, "model.vocab", "missing required key");
  check_error(with("heads = 8", "heads = 12"), 5, "model.heads",
              "must divide hidden = 256 (or give head_dim), got 12");
  check_error(with("kv_heads = 2", "kv_heads = 3"), 6, "model.kv_heads", "must divide heads = 8, got 3");
  check_error(with("bias = false", "positions = \"alibi\""), 12, "model.positions",
              "unknown value \"alibi\" (expected rope | learned)");
  check_error(with("experts_per_token = 2", "experts_per_token = 5"), 15, "moe.experts_per_token",
              "must not exceed experts = 4, got 5");
  check_error(with("experts = 4", "experts = 0"), 14, "moe.experts", "must be positive, got 0");
  check_error(with("first_moe_layer = 1", "first_moe_layer = 4"), 17, "moe.first_moe_layer",
              "must be less than layers = 4, got 4");
  check_error(with("first_moe_layer = 1", "shared_experts = -1"), 17, "moe.shared_experts",
              "must not be negative, got -1");
  check_error(with("first_moe_layer = 1", "latent = 0"), 17, "moe.latent", "must be positive, got 0");
  check_error(with("moe_ffn_hidden = 352\n", ""), 13, "moe.moe_ffn_hidden", "missing required key");
  // A dense layer needs its width.
  check_error(with("ffn_hidden = 704\n", ""), 1, "model.ffn_hidden", "missing required key");

  const std::optional<Error> syntax = error_of(with("layers = 4", "layers = = 4"));
  REQUIRE(syntax.has_value());
  CHECK(syntax->line() == 3);
  CHECK(syntax->field().empty());
  CHECK(syntax->message().rfind("TOML syntax: ", 0) == 0);
}

TEST_CASE("a missing model file is an error naming it") {
  CHECK_THROWS_WITH_AS(build_model("no/such/model.toml"),
                       "no/such/model.toml: cannot read: No such file or directory", Error);
}

TEST_CASE(
    "models/deepseek-v3, gpt-oss-120b, llama4-maverick, nemotron-h-8b, nemotron-3-super and "
    "nemotron-3.5-lightning.toml build the zoo's models") {
  for (const char* name : {"deepseek-v3", "gpt-oss-120b", "llama4-maverick", "nemotron-h-8b",
                           "nemotron-3-super", "nemotron-3.5-lightning"}) {
    const Model from_file = build_model(kModelsDir + "/" + name + ".toml");
    const Model zoo = build_model(name);
    CHECK(from_file.parameters() == zoo.parameters());
    CHECK(from_file.active_parameters() == zoo.active_parameters());
    CHECK(from_file.forward_flops_per_sample() == zoo.forward_flops_per_sample());
    CHECK(*from_file.transformer == *zoo.transformer);
  }
}

TEST_CASE("bad head sizes, windows and latent ranks name file, line and field") {
  check_error(with("kv_heads = 2\n", "kv_heads = 2\nhead_dim = 0\n"), 7, "model.head_dim",
              "must be positive, got 0");
  check_error(with("kv_heads = 2\n", "kv_heads = 2\nwindow_skip_freq = 2\n"), 7, "model.window_skip_freq",
              "needs window_size");
  check_error(with("kv_heads = 2\n", "kv_heads = 2\nchunk_skip_freq = 4\n"), 7, "model.chunk_skip_freq",
              "needs attention_chunk");
  check_error(with("kv_heads = 2\n", "kv_heads = 2\nmtp_repeated_layer = true\n"), 7,
              "model.mtp_repeated_layer", "needs mtp_layers > 0");
  check_error(with("kv_heads = 2\n", "kv_heads = 2\nwindow_size = 128\nattention_chunk = 64\n"), 8,
              "model.attention_chunk", "a model attends through a window or in chunks, not both");
  check_error(kValid + "[mla]\nkv_lora_rank = 64\nqk_nope_head_dim = 32\n", 18, "mla.qk_rope_head_dim",
              "missing required key");
  check_error(with("heads = 8\n", "heads = 7\n"), 5, "model.heads",
              "must divide hidden = 256 (or give head_dim), got 7");
}
