// GPT-3 175B and the Megatron-LM GPT family: pre-LayerNorm decoders with learned positions, GeLU MLPs four
// times the hidden size, biases, dropout and an LM head tied to the word embedding.
#include <string>

#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {
namespace {

// Megatron-LM pads the GPT-2 BPE vocabulary (50,257 tokens) to a multiple of 128 x tensor-parallel size:
// 51,200, the vocabulary of every row of megatron_a100_selene.csv (Narayanan et al. SC21 Table 1,
// Korthikanti et al. 2022 Table 5).
constexpr int kMegatronVocab = 51200;
constexpr int kSeqLen = 2048;  // the trained context and the size of the learned position table

struct GptShape {
  const char* key;
  const char* title;
  int layers, hidden, heads, ffn_hidden;
};

// From megatron_a100_selene.csv (n_layers, hidden, n_heads, ffn_hidden columns).
constexpr GptShape kMegatronGpt[] = {
    {"megatron-gpt-1.7b", "Megatron-LM GPT-1.7B (SC21 Table 1)", 24, 2304, 24, 9216},
    {"megatron-gpt-3.6b", "Megatron-LM GPT-3.6B (SC21 Table 1)", 30, 3072, 32, 12288},
    {"megatron-gpt-7.5b", "Megatron-LM GPT-7.5B (SC21 Table 1)", 36, 4096, 32, 16384},
    {"megatron-gpt-18b", "Megatron-LM GPT-18B (SC21 Table 1)", 40, 6144, 48, 24576},
    {"megatron-gpt-39b", "Megatron-LM GPT-39B (SC21 Table 1)", 48, 8192, 64, 32768},
    {"megatron-gpt-76b", "Megatron-LM GPT-76B (SC21 Table 1)", 60, 10240, 80, 40960},
    {"megatron-gpt-145b", "Megatron-LM GPT-145B (SC21 Table 1)", 80, 12288, 96, 49152},
    {"megatron-gpt-310b", "Megatron-LM GPT-310B (SC21 Table 1)", 96, 16384, 128, 65536},
    {"megatron-gpt-530b", "Megatron-LM GPT-530B (SC21 Table 1)", 105, 20480, 128, 81920},
    {"megatron-gpt-1t", "Megatron-LM GPT-1T (SC21 Table 1)", 128, 25600, 160, 102400},
    {"megatron-22b", "Megatron 22B (Korthikanti et al. 2022 Table 5)", 48, 6144, 64, 24576},
    {"mt-nlg-530b", "Megatron-Turing NLG 530B (Korthikanti et al. 2022 Table 5)", 105, 20480, 128, 81920},
    {"megatron-1t", "Megatron 1T (Korthikanti et al. 2022 Table 5)", 128, 25600, 160, 102400},
};

TransformerConfig gpt_config(const GptShape& shape) {
  TransformerConfig t;
  t.layers = shape.layers;
  t.hidden = shape.hidden;
  t.heads = shape.heads;
  t.kv_heads = shape.heads;
  t.ffn_hidden = shape.ffn_hidden;
  t.vocab = kMegatronVocab;
  t.tied_embeddings = true;
  return t;
}

ZooEntry gpt_entry(const GptShape& shape) {
  const TransformerConfig config = gpt_config(shape);
  const std::string key = shape.key, title = shape.title;
  return {key, kSeqLen, kSeqLen, /*learned_positions=*/true, [=](int seq_len) {
            return decoder({.name = key,
                            .description = title + ", seq " + std::to_string(seq_len),
                            .config = config,
                            .seq_len = seq_len,
                            .learned_positions = kSeqLen,
                            .dropout = true});
          }};
}

}  // namespace

std::vector<ZooEntry> gpt_entries() {
  // Brown et al. 2020 (GPT-3) Table 2.1: 96 layers, d_model 12,288, 96 heads of 128, context 2,048, FFN
  // 4 x d_model. The vocabulary is Megatron's padded 51,200 (see kMegatronVocab), as the GPT-3 175B rows of
  // megatron_a100_selene.csv use.
  std::vector<ZooEntry> entries = {gpt_entry(
      {"gpt3-175b", "GPT-3 175B (Brown et al. 2020, vocab padded to 51,200)", 96, 12288, 96, 49152})};
  for (const GptShape& shape : kMegatronGpt) entries.push_back(gpt_entry(shape));
  return entries;
}

}  // namespace simtrain::workload::zoo
