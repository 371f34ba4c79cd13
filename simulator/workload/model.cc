// Model-level facts (parameter count, forward FLOPs) and the zoo's catalogue: the one place that maps a
// model name and its options to an architecture.
#include <algorithm>
#include <set>

#include "common/error.h"
#include "common/suggest.h"
#include "simulator/workload/attention_shape.h"
#include "simulator/workload/model_toml.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/ssd_kernels.h"
#include "simulator/workload/transformer_kernels.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload {
namespace {

using zoo::ZooEntry;

// The catalogue in listing order: the image and early transformer models, then the large language models.
// Built once; the entries are immutable.
const std::vector<ZooEntry>& catalogue() {
  static const std::vector<ZooEntry> entries = [] {
    // Llama 2 was trained at 4,096 tokens but rotary positions do not bound the shape.
    std::vector<ZooEntry> all = {
        {"lenet5", 0, 0, false, [](int) { return zoo::lenet5(); }},
        {"resnet50", 0, 0, false, [](int) { return zoo::resnet50(); }},
        {"densenet121", 0, 0, false, [](int) { return zoo::densenet121(); }},
        {"vit-b16", 0, 0, false, [](int) { return zoo::vit_b16(); }},
        {"bert-large", 128, 512, true, zoo::bert_large},
        {"gpt2-xl", 1024, 1024, true, zoo::gpt2_xl},
        {"llama2-7b", 4096, 0, false, zoo::llama2_7b},
    };
    for (std::vector<ZooEntry> family : {zoo::gpt_entries(), zoo::llm_entries()}) {
      for (ZooEntry& entry : family) all.push_back(std::move(entry));
    }
    return all;
  }();
  return entries;
}

bool is_toml_path(const std::string& name) {
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0;
}

Model build_from_catalogue(const std::string& name, const ModelOptions& options) {
  const ZooEntry* entry = nullptr;
  for (const ZooEntry& candidate : catalogue()) {
    if (name == candidate.name) entry = &candidate;
  }
  if (entry == nullptr) {
    std::string known;
    std::vector<std::string> names;
    for (const ZooEntry& candidate : catalogue()) {
      known += (known.empty() ? "" : ", ") + candidate.name;
      names.push_back(candidate.name);
    }
    throw Error("unknown model '" + name + "'" + did_you_mean(name, names) + " (known: " + known +
                "; or a path to a .toml model file)");
  }
  if (options.seq_len > 0 && entry->default_seq_len == 0) {
    throw Error("--seq-len: " + name + " takes images, not sequences");
  }
  if (entry->max_seq_len > 0 && options.seq_len > entry->max_seq_len) {
    throw Error("--seq-len: " + name +
                (entry->learned_positions ? " has learned positions for at most "
                                          : " has a context window of at most ") +
                std::to_string(entry->max_seq_len) + " tokens, got " + std::to_string(options.seq_len));
  }
  return entry->build(options.seq_len > 0 ? options.seq_len : entry->default_seq_len);
}

}  // namespace

double Model::parameters() const {
  double total = 0;
  for (const Layer& layer : layers) total += layer.parameters;
  return total;
}

double Model::active_parameters() const {
  if (!transformer || transformer->experts == 0) return parameters();
  // Every MoE layer holds experts - experts_per_token routed experts a token does not use, each two (or,
  // gated, three) matrices hidden (a latent MoE's latent) x moe_ffn_hidden plus their biases.
  const TransformerConfig& t = *transformer;
  const double h = routed_expert_width(t), ffn = t.moe_ffn_hidden;
  const double matrices = t.gated_mlp ? 3 : 2;
  const double biases = t.bias ? (t.gated_mlp ? 2 : 1) * ffn + h : 0;
  const double idle_experts = t.experts - t.experts_per_token;
  // Multi-token-prediction layers are MoE layers too when the model's last layer is; a hybrid model's MoE
  // layers are its 'E' blocks.
  int moe_layers = mtp_modules_held(t);
  for (int i = 0; i < t.layers; ++i) moe_layers += is_moe_layer(t, i) ? 1 : 0;
  return parameters() - moe_layers * idle_experts * (matrices * h * ffn + biases);
}

double Model::forward_flops_per_sample() const {
  double total = 0;
  for (const Layer& layer : layers) {
    if (layer.type == "attention") {
      // The whole score square, causal or not, as Megatron-LM's MFU counts it (the kernels skip the tiles a
      // causal mask empties: attention_work.h). dims: {seq, heads, head_dim, causal, kv_heads, v_head_dim,
      // window, chunk}; a sliding window or chunks bound the keys per query (attention_shape.h).
      const auto& d = layer.dims;
      const double seq = static_cast<double>(d.at(0)), qk = static_cast<double>(d.at(2));
      const double v = d.size() > 5 ? static_cast<double>(d[5]) : qk;
      const double keys = attended_keys(seq, d.size() > 6 ? static_cast<double>(d[6]) : 0,
                                        d.size() > 7 ? static_cast<double>(d[7]) : 0);
      total += 2.0 * static_cast<double>(d.at(1)) * seq * keys * (qk + v);
      continue;
    }
    if (layer.type == "mamba_ssm") {
      // A Mamba-2 mixer's conv1d and SSD scan: dims {tokens, heads, head_dim, state, groups, conv_kernel}.
      const auto dim = [&](std::size_t i) { return static_cast<double>(layer.dims.at(i)); };
      total += ssd_model_flops({dim(0), dim(1), dim(2), dim(4), dim(3), dim(5)});
      continue;
    }
    for (const trace::ComputeSpec& kernel : kernels_for(layer, *this, 1, Precision::FP32).forward) {
      if (kernel.kind == trace::ComputeKind::Gemm || kernel.kind == trace::ComputeKind::Conv)
        total += kernel.flops;
    }
  }
  return total;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& entry : catalogue()) names.push_back(entry.name);
  return names;
}

Model build_decoder(const DecoderShape& shape, int seq_len) {
  if (seq_len < 1) throw Error("--seq-length: must be positive");
  if (shape.learned_positions > 0 && seq_len > shape.learned_positions)
    throw Error("--seq-length " + std::to_string(seq_len) + ": longer than the " +
                std::to_string(shape.learned_positions) + " learned positions (--max-position-embeddings)");
  Model model = zoo::decoder({.name = shape.name,
                              .description = shape.name + ", seq " + std::to_string(seq_len),
                              .config = shape.config,
                              .seq_len = seq_len,
                              .learned_positions = shape.learned_positions,
                              .dropout = shape.dropout});
  model.layers.front().input_needs_grad = false;
  return model;
}

Model build_model(const std::string& name_or_path, const ModelOptions& options) {
  const std::string& name = name_or_path;
  if (options.seq_len < 0) throw Error("--seq-len: must not be negative");
  Model model = is_toml_path(name) ? read_model_toml(name, options) : build_from_catalogue(name, options);
  // Nothing upstream of the first layer needs a gradient.
  model.layers.front().input_needs_grad = false;

  std::set<std::string> seen;
  for (const Layer& layer : model.layers) {
    if (!seen.insert(layer.name).second) throw Error("model " + name + " has two layers named " + layer.name);
  }
  return model;
}

}  // namespace simtrain::workload
