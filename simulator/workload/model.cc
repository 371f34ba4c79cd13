// Model-level facts (parameter count, forward FLOPs) and the zoo's catalogue: the one place that maps a
// model name and its options to an architecture.
#include <set>

#include "common/error.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload {
namespace {

struct ZooEntry {
  const char* name;
  int default_seq_len;  // 0 for image models
  int max_seq_len;      // learned position tables bound it; 0 = no bound
};

// Llama 2 was trained at 4,096 tokens but rotary positions do not bound the shape.
constexpr ZooEntry kZoo[] = {
    {"lenet5", 0, 0},         {"resnet50", 0, 0},      {"densenet121", 0, 0},  {"vit-b16", 0, 0},
    {"bert-large", 128, 512}, {"gpt2-xl", 1024, 1024}, {"llama2-7b", 4096, 0},
};

Model build_by_name(const std::string& name, int seq_len) {
  if (name == "lenet5") return zoo::lenet5();
  if (name == "resnet50") return zoo::resnet50();
  if (name == "densenet121") return zoo::densenet121();
  if (name == "vit-b16") return zoo::vit_b16();
  if (name == "bert-large") return zoo::bert_large(seq_len);
  if (name == "gpt2-xl") return zoo::gpt2_xl(seq_len);
  return zoo::llama2_7b(seq_len);
}

}  // namespace

double Model::parameters() const {
  double total = 0;
  for (const Layer& layer : layers) total += layer.parameters;
  return total;
}

double Model::forward_flops_per_sample() const {
  double total = 0;
  for (const Layer& layer : layers) {
    for (const trace::ComputeSpec& kernel : kernels_for(layer, *this, 1, Precision::FP32).forward) {
      if (kernel.kind == trace::ComputeKind::Gemm || kernel.kind == trace::ComputeKind::Conv ||
          kernel.kind == trace::ComputeKind::Attention) {
        total += kernel.flops;
      }
    }
  }
  return total;
}

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& entry : kZoo) names.emplace_back(entry.name);
  return names;
}

Model build_model(const std::string& name, const ModelOptions& options) {
  const ZooEntry* entry = nullptr;
  for (const ZooEntry& candidate : kZoo) {
    if (name == candidate.name) entry = &candidate;
  }
  if (entry == nullptr) {
    std::string known;
    for (const ZooEntry& candidate : kZoo) known += std::string(known.empty() ? "" : ", ") + candidate.name;
    throw Error("unknown model '" + name + "' (known: " + known + ")");
  }
  if (options.seq_len < 0) throw Error("--seq-len: must not be negative");
  if (options.seq_len > 0 && entry->default_seq_len == 0) {
    throw Error("--seq-len: " + name + " takes images, not sequences");
  }
  if (entry->max_seq_len > 0 && options.seq_len > entry->max_seq_len) {
    throw Error("--seq-len: " + name + " has learned positions for at most " +
                std::to_string(entry->max_seq_len) + " tokens, got " + std::to_string(options.seq_len));
  }
  Model model = build_by_name(name, options.seq_len > 0 ? options.seq_len : entry->default_seq_len);
  // Nothing upstream of the first layer needs a gradient.
  model.layers.front().input_needs_grad = false;

  std::set<std::string> seen;
  for (const Layer& layer : model.layers) {
    if (!seen.insert(layer.name).second) throw Error("model " + name + " has two layers named " + layer.name);
  }
  return model;
}

}  // namespace simtrain::workload
