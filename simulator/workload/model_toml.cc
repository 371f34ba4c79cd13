// Reads model files (TOML) strictly into the zoo's generic decoder: every mistake becomes an Error naming
// the file, line and "section.key".
#include "simulator/workload/model_toml.h"

#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <string_view>

#include "common/error.h"
#include "common/file_io.h"
#include "common/suggest.h"
#include "common/toml_parse.h"
#include "simulator/workload/moe_layer_pattern.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload {
namespace {

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

// Bounds that keep a typo from building a model too large to lay out (or overflowing a size).
constexpr std::int64_t kMaxLayers = 10'000;
constexpr std::int64_t kMaxSize = 100'000'000;

// One table of the file, with what errors need to say where they are.
class Section {
 public:
  Section(const toml::table& table, std::string file, std::string name)
      : table_(table), file_(std::move(file)), name_(std::move(name)) {}

  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    const toml::node* node = table_.get(key);
    throw Error(file_, node ? line_of(*node) : line_of(table_), name_ + "." + std::string(key), message);
  }

  bool has(std::string_view key) const { return table_.contains(key); }

  // A misspelt key must not be silently ignored.
  void only_keys(std::initializer_list<std::string_view> allowed) const {
    for (auto&& [key, node] : table_) {
      bool known = false;
      for (std::string_view name : allowed) known = known || key.str() == name;
      if (!known) {
        std::string list;
        std::vector<std::string> names;
        for (std::string_view name : allowed) {
          list += (list.empty() ? "" : ", ") + std::string(name);
          names.emplace_back(name);
        }
        throw Error(file_, static_cast<int>(key.source().begin.line), name_ + "." + std::string(key.str()),
                    "unknown key" + did_you_mean(key.str(), names) + " (expected one of: " + list + ")");
      }
    }
  }

  const toml::node& require(std::string_view key) const {
    const toml::node* node = table_.get(key);
    if (node == nullptr)
      throw Error(file_, line_of(table_), name_ + "." + std::string(key), "missing required key");
    return *node;
  }

  std::string string(std::string_view key) const {
    const toml::node& node = require(key);
    if (!node.is_string()) fail(key, "expected a string");
    return node.as_string()->get();
  }

  // An integer from `minimum` (1 or 0) to `maximum`.
  int integer(std::string_view key, std::int64_t minimum = 1, std::int64_t maximum = kMaxSize) const {
    const toml::node& node = require(key);
    if (!node.is_integer()) fail(key, "expected an integer");
    const std::int64_t value = node.as_integer()->get();
    if (value < minimum) {
      fail(key, std::string(minimum == 1 ? "must be positive" : "must not be negative") + ", got " +
                    std::to_string(value));
    }
    if (value > maximum)
      fail(key, "too large: " + std::to_string(value) + " (at most " + std::to_string(maximum) + ")");
    return static_cast<int>(value);
  }

  int integer_or(std::string_view key, int fallback, std::int64_t minimum = 1) const {
    return has(key) ? integer(key, minimum) : fallback;
  }

  bool boolean_or(std::string_view key, bool fallback) const {
    if (!has(key)) return fallback;
    const toml::node& node = require(key);
    if (!node.is_boolean()) fail(key, "expected true or false");
    return node.as_boolean()->get();
  }

 private:
  const toml::table& table_;
  std::string file_;
  std::string name_;
};

// [moe]: every layer from first_moe_layer on (every layer_step-th of them, or those layer_freq names in
// Megatron's syntax) routes each token to experts_per_token of `experts`.
void read_moe(const Section& moe, TransformerConfig& t) {
  moe.only_keys({"experts", "experts_per_token", "moe_ffn_hidden", "shared_experts", "first_moe_layer",
                 "latent", "layer_step", "layer_freq", "clamped_quick_geglu"});
  t.experts = moe.integer("experts");
  t.experts_per_token = moe.integer("experts_per_token");
  if (t.experts_per_token > t.experts) {
    moe.fail("experts_per_token", "must not exceed experts = " + std::to_string(t.experts) + ", got " +
                                      std::to_string(t.experts_per_token));
  }
  t.moe_ffn_hidden = moe.integer("moe_ffn_hidden");
  t.shared_experts = moe.integer_or("shared_experts", 0, 0);
  t.first_moe_layer = moe.integer_or("first_moe_layer", 0, 0);
  t.moe_latent = moe.integer_or("latent", 0, 1);
  t.moe_layer_step = moe.integer_or("layer_step", 1, 1);
  t.clamped_quick_geglu = moe.boolean_or("clamped_quick_geglu", false);
  if (t.first_moe_layer >= t.layers) {
    moe.fail("first_moe_layer", "must be less than layers = " + std::to_string(t.layers) + ", got " +
                                    std::to_string(t.first_moe_layer));
  }
  if (moe.has("layer_freq")) {
    if (moe.has("first_moe_layer") || moe.has("layer_step"))
      moe.fail("layer_freq", "give it or first_moe_layer and layer_step, not both");
    const toml::node& node = moe.require("layer_freq");
    if (!node.is_string() && !node.is_integer()) moe.fail("layer_freq", "expected an integer or a string");
    const std::string text =
        node.is_string() ? node.as_string()->get() : std::to_string(node.as_integer()->get());
    try {
      t.moe_layers = moe_layer_pattern(text, t.layers);
    } catch (const Error& e) {
      moe.fail("layer_freq", e.what());
    }
  }
}

// [mamba]: the Mamba-2 mixers of a hybrid model (model.hybrid_pattern's 'M' layers).
void read_mamba(const Section& mamba, TransformerConfig& t) {
  mamba.only_keys({"heads", "head_dim", "state", "groups", "conv_kernel"});
  t.mamba_heads = mamba.integer("heads");
  t.mamba_head_dim = mamba.integer("head_dim");
  t.mamba_state = mamba.integer("state");
  t.mamba_groups = mamba.integer("groups");
  if (t.mamba_heads % t.mamba_groups != 0)
    mamba.fail("groups", "must divide heads = " + std::to_string(t.mamba_heads) + ", got " +
                             std::to_string(t.mamba_groups));
  t.mamba_conv_kernel = mamba.integer_or("conv_kernel", 4);
}

// [mla]: multi-latent attention (DeepSeek-V3); q_lora_rank 0 = a plain query projection.
void read_mla(const Section& mla, TransformerConfig& t) {
  mla.only_keys({"q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"});
  t.q_lora_rank = mla.integer_or("q_lora_rank", 0, 0);
  t.kv_lora_rank = mla.integer("kv_lora_rank");
  t.qk_nope_head_dim = mla.integer("qk_nope_head_dim");
  t.qk_rope_head_dim = mla.integer("qk_rope_head_dim");
  t.v_head_dim = mla.integer("v_head_dim");
}

}  // namespace

Model parse_model_toml(const std::string& toml_text, const std::string& origin, const ModelOptions& options) {
  const toml::table document = parse_toml(toml_text, origin);
  for (auto&& [key, node] : document) {
    if (key.str() != "model" && key.str() != "moe" && key.str() != "mla" && key.str() != "mamba") {
      throw Error(origin, static_cast<int>(key.source().begin.line), std::string(key.str()),
                  "unknown key (expected the tables [model] and, for a mixture of experts, [moe]; for "
                  "multi-latent attention, [mla]; for a hybrid model, [mamba])");
    }
    if (!node.is_table()) {
      throw Error(origin, line_of(node), std::string(key.str()),
                  "expected a table [" + std::string(key.str()) + "]");
    }
  }
  if (!document.contains("model")) throw Error(origin, 0, "model", "missing the [model] table");

  const Section model(*document["model"].as_table(), origin, "model");
  model.only_keys({"name",
                   "description",
                   "layers",
                   "hidden",
                   "heads",
                   "kv_heads",
                   "ffn_hidden",
                   "vocab",
                   "seq_len",
                   "gated_mlp",
                   "causal",
                   "tied_embeddings",
                   "rms_norm",
                   "bias",
                   "positions",
                   "dropout",
                   "head_dim",
                   "window_size",
                   "window_skip_freq",
                   "yarn_scaling_factor",
                   "mtp_layers",
                   "hybrid_pattern",
                   "attention_chunk",
                   "chunk_skip_freq",
                   "qk_norm",
                   "fused_qkv",
                   "mtp_repeated_layer",
                   "mtp_bf16"});
  zoo::DecoderSpec spec;
  spec.name = model.string("name");
  if (spec.name.empty()) model.fail("name", "must not be empty");
  TransformerConfig& t = spec.config;
  t.layers = model.integer("layers", 1, kMaxLayers);
  t.hidden = model.integer("hidden");
  t.heads = model.integer("heads");
  t.head_dim = model.integer_or("head_dim", 0);
  if (t.head_dim == 0 && !document.contains("mla") && t.hidden % t.heads != 0) {
    model.fail("heads", "must divide hidden = " + std::to_string(t.hidden) + " (or give head_dim), got " +
                            std::to_string(t.heads));
  }
  t.kv_heads = model.integer_or("kv_heads", t.heads);
  if (t.heads % t.kv_heads != 0) {
    model.fail("kv_heads",
               "must divide heads = " + std::to_string(t.heads) + ", got " + std::to_string(t.kv_heads));
  }
  t.vocab = model.integer("vocab");
  const int file_seq_len = model.integer("seq_len");
  t.gated_mlp = model.boolean_or("gated_mlp", t.gated_mlp);
  t.causal = model.boolean_or("causal", t.causal);
  t.tied_embeddings = model.boolean_or("tied_embeddings", t.tied_embeddings);
  t.rms_norm = model.boolean_or("rms_norm", t.rms_norm);
  t.qk_norm = model.boolean_or("qk_norm", t.qk_norm);
  t.fused_qkv = model.boolean_or("fused_qkv", t.fused_qkv);
  t.bias = model.boolean_or("bias", t.bias);
  spec.dropout = model.boolean_or("dropout", false);
  const std::string positions = model.has("positions") ? model.string("positions") : "rope";
  if (positions != "rope" && positions != "learned") {
    model.fail("positions", "unknown value \"" + positions + "\" (expected rope | learned)");
  }
  if (document.contains("moe")) read_moe(Section(*document["moe"].as_table(), origin, "moe"), t);
  if (document.contains("mla")) read_mla(Section(*document["mla"].as_table(), origin, "mla"), t);
  t.window_size = model.integer_or("window_size", 0);
  t.window_skip_freq = model.integer_or("window_skip_freq", 0);
  t.yarn_scaling_factor = model.integer_or("yarn_scaling_factor", 0, 0);
  if (t.window_skip_freq > 0 && t.window_size == 0) model.fail("window_skip_freq", "needs window_size");
  t.attention_chunk = model.integer_or("attention_chunk", 0);
  t.chunk_skip_freq = model.integer_or("chunk_skip_freq", 0);
  if (t.chunk_skip_freq > 0 && t.attention_chunk == 0) model.fail("chunk_skip_freq", "needs attention_chunk");
  if (t.attention_chunk > 0 && t.window_size > 0)
    model.fail("attention_chunk", "a model attends through a window or in chunks, not both");
  t.mtp_layers = model.integer_or("mtp_layers", 0, 0);
  t.mtp_repeated_layer = model.boolean_or("mtp_repeated_layer", false);
  t.mtp_bf16 = model.boolean_or("mtp_bf16", false);
  if ((t.mtp_repeated_layer || t.mtp_bf16) && t.mtp_layers == 0)
    model.fail(t.mtp_repeated_layer ? "mtp_repeated_layer" : "mtp_bf16", "needs mtp_layers > 0");
  if (model.has("hybrid_pattern")) {
    t.hybrid_pattern = model.string("hybrid_pattern");
    if (static_cast<int>(t.hybrid_pattern.size()) != t.layers ||
        t.hybrid_pattern.find_first_not_of("M*-E") != std::string::npos)
      model.fail("hybrid_pattern", "expected one of M, *, - or E per layer (" + std::to_string(t.layers) +
                                       "), got \"" + t.hybrid_pattern + "\"");
    if (t.hybrid_pattern.find('M') != std::string::npos && !document.contains("mamba"))
      model.fail("hybrid_pattern", "Mamba layers (M) need a [mamba] table");
    if (t.hybrid_pattern.find('E') != std::string::npos && !document.contains("moe"))
      model.fail("hybrid_pattern", "MoE layers (E) need a [moe] table");
    if (!t.moe_layers.empty())
      model.fail("hybrid_pattern", "its E blocks say which layers are MoE: give it or [moe] layer_freq");
  }
  if (document.contains("mamba")) read_mamba(Section(*document["mamba"].as_table(), origin, "mamba"), t);
  // A model whose every layer is MoE needs no dense width: it defaults to the experts' width.
  const bool has_dense_layer = t.experts == 0 || t.first_moe_layer > 0 || t.moe_layer_step > 1 ||
                               std::find(t.moe_layers.begin(), t.moe_layers.end(), 0) != t.moe_layers.end();
  t.ffn_hidden = has_dense_layer || model.has("ffn_hidden") ? model.integer("ffn_hidden") : t.moe_ffn_hidden;

  spec.seq_len = options.seq_len > 0 ? options.seq_len : file_seq_len;
  if (positions == "learned") {
    // The file's seq_len sizes the position table.
    spec.learned_positions = file_seq_len;
    if (spec.seq_len > file_seq_len) {
      throw Error("--seq-len: " + spec.name + " has learned positions for at most " +
                  std::to_string(file_seq_len) + " tokens, got " + std::to_string(spec.seq_len));
    }
  }
  spec.description =
      (model.has("description") ? model.string("description") : spec.name + " (" + origin + ")") + ", seq " +
      std::to_string(spec.seq_len);
  return zoo::decoder(spec);
}

Model read_model_toml(const std::string& path, const ModelOptions& options) {
  return parse_model_toml(read_file(path), path, options);
}

}  // namespace simtrain::workload
