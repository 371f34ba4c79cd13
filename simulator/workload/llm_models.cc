// Llama 2, Llama 3 and 3.1, Mixtral and DeepSeekMoE: RMSNorm, rotary positions, SwiGLU MLPs, no biases,
// untied LM heads; grouped-query attention from Llama-2-70B on; mixture-of-experts MLPs for Mixtral and
// DeepSeekMoE. Shapes are those of the models' Hugging Face config.json files.
#include <string>

#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {
namespace {

TransformerConfig llama(int layers, int hidden, int heads, int kv_heads, int ffn_hidden, int vocab) {
  TransformerConfig t;
  t.layers = layers;
  t.hidden = hidden;
  t.heads = heads;
  t.kv_heads = kv_heads;
  t.ffn_hidden = ffn_hidden;
  t.vocab = vocab;
  t.gated_mlp = true;
  t.rms_norm = true;
  t.bias = false;
  return t;
}

// Rotary positions do not bound the shape; max_seq_len, when set, is the context window the model was
// trained for.
ZooEntry entry(const std::string& key, const std::string& title, const TransformerConfig& config,
               int default_seq_len, int max_seq_len = 0) {
  return {key, default_seq_len, max_seq_len, /*learned_positions=*/false, [=](int seq_len) {
            return decoder({.name = key,
                            .description = title + ", seq " + std::to_string(seq_len),
                            .config = config,
                            .seq_len = seq_len});
          }};
}

// Mixtral-8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): Mistral-7B's attention (32 heads, 8 KV heads)
// with every MLP replaced by 8 SwiGLU experts of 14,336, top-2 routed. No layer is dense; ffn_hidden
// repeats the expert width as Hugging Face's intermediate_size does.
TransformerConfig mixtral_8x7b() {
  TransformerConfig t = llama(32, 4096, 32, 8, 14336, 32000);
  t.experts = 8;
  t.experts_per_token = 2;
  t.moe_ffn_hidden = 14336;
  return t;
}

// DeepSeekMoE 16B (deepseek-ai/deepseek-moe-16b-base config.json; Dai et al. 2024): multi-head attention,
// a dense first layer (ffn 10,944), then 64 fine-grained routed experts of 1,408, top-6, plus 2 shared
// experts of 1,408.
TransformerConfig deepseek_moe_16b() {
  TransformerConfig t = llama(28, 2048, 16, 16, 10944, 102400);
  t.experts = 64;
  t.experts_per_token = 6;
  t.moe_ffn_hidden = 1408;
  t.shared_experts = 2;
  t.first_moe_layer = 1;
  return t;
}

}  // namespace

std::vector<ZooEntry> llm_entries() {
  // Llama 2 (Touvron et al. 2023, 4,096-token context): 13B multi-head; 70B with 8 KV heads.
  const TransformerConfig llama2_13b = llama(40, 5120, 40, 40, 13824, 32000);
  const TransformerConfig llama2_70b = llama(80, 8192, 64, 8, 28672, 32000);
  // Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 3): 8 KV heads, vocabulary 128,256,
  // pre-trained at 8,192 tokens; 3.1 has the same shapes and extends the context window to 128K.
  const TransformerConfig llama3_8b = llama(32, 4096, 32, 8, 14336, 128256);
  const TransformerConfig llama3_70b = llama(80, 8192, 64, 8, 28672, 128256);
  const TransformerConfig llama3_405b = llama(126, 16384, 128, 8, 53248, 128256);
  constexpr int kLlama31Context = 131072;
  return {
      entry("llama2-13b", "Llama-2-13B", llama2_13b, 4096),
      entry("llama2-70b", "Llama-2-70B (GQA)", llama2_70b, 4096),
      entry("llama3-8b", "Llama-3-8B (GQA)", llama3_8b, 8192),
      entry("llama3-70b", "Llama-3-70B (GQA)", llama3_70b, 8192),
      entry("llama3-405b", "Llama-3-405B (GQA)", llama3_405b, 8192),
      entry("llama3.1-8b", "Llama-3.1-8B (GQA)", llama3_8b, 8192, kLlama31Context),
      entry("llama3.1-70b", "Llama-3.1-70B (GQA)", llama3_70b, 8192, kLlama31Context),
      entry("llama3.1-405b", "Llama-3.1-405B (GQA)", llama3_405b, 8192, kLlama31Context),
      entry("mixtral-8x7b", "Mixtral-8x7B (MoE, 8 experts, top-2)", mixtral_8x7b(), 4096),
      entry("deepseek-moe-16b", "DeepSeekMoE 16B (64 routed top-6 + 2 shared experts)", deepseek_moe_16b(),
            4096),
  };
}

}  // namespace simtrain::workload::zoo
