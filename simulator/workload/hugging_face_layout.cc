// Implements hugging_face_layout.h.
#include "simulator/workload/hugging_face_layout.h"

#include <string>
#include <utility>

namespace simtrain::workload {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One of the projections a fused Linear splits into: `out` of its output columns, its share of parameters.
Layer projection(const Layer& fused, const std::string& name, std::int64_t out, bool first) {
  Layer layer = fused;
  layer.name = name;
  const std::int64_t in = fused.dims[1];
  const bool bias = fused.dims[3] != 0;
  layer.dims[2] = out;
  layer.parameters =
      static_cast<double>(in) * static_cast<double>(out) + (bias ? static_cast<double>(out) : 0);
  if (!first) {
    layer.saved_activation_elements_per_sample = 0;
    layer.shares_input = true;
  }
  return layer;
}

}  // namespace

Model with_hugging_face_projections(Model model) {
  if (!model.transformer) return model;
  const TransformerConfig& t = *model.transformer;
  // An explicit head size (Qwen3, GPT-OSS) when given; multi-latent attention has no fused QKV to split.
  const std::int64_t head_dim = t.head_dim > 0 ? t.head_dim : t.hidden / t.heads;
  std::vector<Layer> layers;
  layers.reserve(model.layers.size() + 4 * static_cast<std::size_t>(t.layers));
  for (Layer& layer : model.layers) {
    const std::string& name = layer.name;
    if (!t.fused_qkv && layer.type == "linear" && ends_with(name, ".self_attention.linear_qkv")) {
      const std::string prefix = name.substr(0, name.size() - std::string("linear_qkv").size());
      layers.push_back(projection(layer, prefix + "q_proj", std::int64_t{t.heads} * head_dim, true));
      layers.push_back(projection(layer, prefix + "k_proj", std::int64_t{t.kv_heads} * head_dim, false));
      layers.push_back(projection(layer, prefix + "v_proj", std::int64_t{t.kv_heads} * head_dim, false));
    } else if (t.gated_mlp && layer.type == "linear" && ends_with(name, ".mlp.linear_fc1") &&
               layer.dims[2] == 2 * std::int64_t{t.ffn_hidden}) {
      const std::string prefix = name.substr(0, name.size() - std::string("linear_fc1").size());
      layers.push_back(projection(layer, prefix + "gate_proj", t.ffn_hidden, true));
      layers.push_back(projection(layer, prefix + "up_proj", t.ffn_hidden, false));
    } else {
      layers.push_back(std::move(layer));
    }
  }
  model.layers = std::move(layers);
  return model;
}

}  // namespace simtrain::workload
