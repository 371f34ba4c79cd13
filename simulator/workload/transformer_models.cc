// The zoo's transformers, module by module as torchvision (ViT-B/16) and Hugging Face (BERT, GPT-2, Llama 2)
// define them, with attention as one fused (flash/SDPA) kernel per layer.
#include <string>

#include "simulator/workload/zoo_builders.h"

namespace simtrain::workload::zoo {

Model vit_b16() {
  constexpr std::int64_t kHidden = 768, kHeads = 12, kMlp = 3072, kLayers = 12;
  constexpr std::int64_t kPatches = (224 / 16) * (224 / 16);
  constexpr std::int64_t kTokens = kPatches + 1;  // plus the class token
  Model model;
  model.name = "vit-b16";
  model.description = "ViT-B/16, ImageNet 224x224, 1000 classes";
  model.sample_unit = "image";
  // No token vocabulary: the patch projection and the 1,000-class head take its place.
  model.transformer = TransformerConfig{.layers = kLayers,
                                        .hidden = kHidden,
                                        .heads = kHeads,
                                        .kv_heads = kHeads,
                                        .ffn_hidden = kMlp,
                                        .vocab = 0,
                                        .causal = false};
  auto& layers = model.layers;
  layers.push_back(conv("conv_proj", 3, 224, 224, kHidden, 16, 16, 16, 0, true));
  layers.push_back(class_token("class_token", kPatches, kHidden));
  layers.push_back(param_add("encoder.pos_embedding", kTokens * kHidden, kTokens * kHidden));
  for (int i = 0; i < kLayers; ++i) {
    const std::string prefix = "encoder.layers.encoder_layer_" + std::to_string(i) + ".";
    layers.push_back(layernorm(prefix + "ln_1", kTokens, kHidden));
    layers.push_back(linear(prefix + "self_attention.in_proj", kTokens, kHidden, 3 * kHidden, true));
    layers.push_back(attention(prefix + "self_attention.sdpa", kTokens, kHeads, kHidden / kHeads, false));
    layers.push_back(
        input_already_saved(linear(prefix + "self_attention.out_proj", kTokens, kHidden, kHidden, true)));
    layers.push_back(add(prefix + "add_1", kTokens * kHidden, 2, true));
    layers.push_back(layernorm(prefix + "ln_2", kTokens, kHidden));
    layers.push_back(linear(prefix + "mlp.0", kTokens, kHidden, kMlp, true));
    layers.push_back(activation(prefix + "mlp.1", "gelu", kTokens * kMlp));
    layers.push_back(linear(prefix + "mlp.3", kTokens, kMlp, kHidden, true));
    layers.push_back(add(prefix + "add_2", kTokens * kHidden, 2, true));
  }
  layers.push_back(layernorm("encoder.ln", kTokens, kHidden));
  // The head sees only the class token.
  layers.push_back(linear("heads.head", 1, kHidden, 1000, true));
  layers.push_back(cross_entropy("loss", 1, 1000));
  return model;
}

// BertForPreTraining: post-LayerNorm encoder, pooler + next-sentence head, and the masked-LM head whose
// decoder shares the word-embedding matrix (only its bias is a parameter of its own). The MLM head runs on
// every position, as Hugging Face does.
Model bert_large(int seq_len) {
  constexpr std::int64_t kHidden = 1024, kHeads = 16, kFfn = 4096, kLayers = 24, kVocab = 30522;
  const std::int64_t s = seq_len;
  Model model;
  model.name = "bert-large";
  model.description = "BERT-Large pre-training (MLM + NSP), seq " + std::to_string(seq_len);
  model.sample_unit = "sequence";
  model.seq_len = seq_len;
  model.transformer = TransformerConfig{.layers = kLayers,
                                        .hidden = kHidden,
                                        .heads = kHeads,
                                        .kv_heads = kHeads,
                                        .ffn_hidden = kFfn,
                                        .vocab = kVocab,
                                        .causal = false,
                                        .tied_embeddings = true,
                                        .dropout = true};
  auto& layers = model.layers;
  layers.push_back(embedding("embeddings.word_embeddings", s, kVocab, kHidden));
  layers.push_back(embedding("embeddings.position_embeddings", s, 512, kHidden));
  layers.push_back(embedding("embeddings.token_type_embeddings", s, 2, kHidden));
  layers.push_back(add("embeddings.add", s * kHidden, 3, false));
  layers.push_back(layernorm("embeddings.LayerNorm", s, kHidden));
  layers.push_back(dropout("embeddings.dropout", s * kHidden));
  for (int i = 0; i < kLayers; ++i) {
    const std::string prefix = "encoder.layer." + std::to_string(i) + ".";
    layers.push_back(linear(prefix + "attention.self.query", s, kHidden, kHidden, true));
    layers.push_back(
        shares_input_of_previous(linear(prefix + "attention.self.key", s, kHidden, kHidden, true)));
    layers.push_back(
        shares_input_of_previous(linear(prefix + "attention.self.value", s, kHidden, kHidden, true)));
    layers.push_back(attention(prefix + "attention.self.sdpa", s, kHeads, kHidden / kHeads, false));
    layers.push_back(
        input_already_saved(linear(prefix + "attention.output.dense", s, kHidden, kHidden, true)));
    layers.push_back(dropout(prefix + "attention.output.dropout", s * kHidden));
    layers.push_back(add(prefix + "attention.output.add", s * kHidden, 2, true));
    layers.push_back(layernorm(prefix + "attention.output.LayerNorm", s, kHidden));
    layers.push_back(linear(prefix + "intermediate.dense", s, kHidden, kFfn, true));
    layers.push_back(activation(prefix + "intermediate.gelu", "gelu", s * kFfn));
    layers.push_back(linear(prefix + "output.dense", s, kFfn, kHidden, true));
    layers.push_back(dropout(prefix + "output.dropout", s * kHidden));
    layers.push_back(add(prefix + "output.add", s * kHidden, 2, true));
    layers.push_back(layernorm(prefix + "output.LayerNorm", s, kHidden));
  }
  // The pooler reads the [CLS] row of the encoder output, which the MLM transform saves.
  layers.push_back(input_already_saved(linear("pooler.dense", 1, kHidden, kHidden, true)));
  layers.push_back(activation("pooler.activation", "tanh", kHidden));
  layers.push_back(linear("cls.predictions.transform.dense", s, kHidden, kHidden, true));
  layers.push_back(activation("cls.predictions.transform.gelu", "gelu", s * kHidden));
  layers.push_back(layernorm("cls.predictions.transform.LayerNorm", s, kHidden));
  layers.push_back(linear("cls.predictions.decoder", s, kHidden, kVocab, true, /*tied=*/true));
  layers.push_back(input_already_saved(linear("cls.seq_relationship", 1, kHidden, 2, true)));
  layers.push_back(cross_entropy("loss.mlm", s, kVocab));
  layers.push_back(cross_entropy("loss.nsp", 1, 2));
  return model;
}

// GPT2LMHeadModel: pre-LayerNorm decoder with learned positions; the LM head is the word embedding.
Model gpt2_xl(int seq_len) {
  constexpr std::int64_t kHidden = 1600, kHeads = 25, kLayers = 48, kVocab = 50257;
  const std::int64_t s = seq_len;
  Model model;
  model.name = "gpt2-xl";
  model.description = "GPT-2 XL (1.5B), seq " + std::to_string(seq_len);
  model.sample_unit = "sequence";
  model.seq_len = seq_len;
  model.transformer = TransformerConfig{.layers = kLayers,
                                        .hidden = kHidden,
                                        .heads = kHeads,
                                        .kv_heads = kHeads,
                                        .ffn_hidden = 4 * kHidden,
                                        .vocab = kVocab,
                                        .tied_embeddings = true,
                                        .dropout = true};
  auto& layers = model.layers;
  layers.push_back(embedding("transformer.wte", s, kVocab, kHidden));
  layers.push_back(embedding("transformer.wpe", s, 1024, kHidden));
  layers.push_back(add("transformer.add", s * kHidden, 2, false));
  layers.push_back(dropout("transformer.drop", s * kHidden));
  for (int i = 0; i < kLayers; ++i) {
    const std::string prefix = "transformer.h." + std::to_string(i) + ".";
    layers.push_back(layernorm(prefix + "ln_1", s, kHidden));
    layers.push_back(linear(prefix + "attn.c_attn", s, kHidden, 3 * kHidden, true));
    layers.push_back(attention(prefix + "attn.sdpa", s, kHeads, kHidden / kHeads, true));
    layers.push_back(input_already_saved(linear(prefix + "attn.c_proj", s, kHidden, kHidden, true)));
    layers.push_back(dropout(prefix + "attn.resid_dropout", s * kHidden));
    layers.push_back(add(prefix + "add_1", s * kHidden, 2, true));
    layers.push_back(layernorm(prefix + "ln_2", s, kHidden));
    layers.push_back(linear(prefix + "mlp.c_fc", s, kHidden, 4 * kHidden, true));
    // Hugging Face's "gelu_new": the tanh approximation written as separate operators (eager_pytorch.h).
    layers.push_back(activation(prefix + "mlp.act", "gelu_new", s * 4 * kHidden));
    layers.push_back(linear(prefix + "mlp.c_proj", s, 4 * kHidden, kHidden, true));
    layers.push_back(dropout(prefix + "mlp.dropout", s * kHidden));
    layers.push_back(add(prefix + "add_2", s * kHidden, 2, true));
  }
  layers.push_back(layernorm("transformer.ln_f", s, kHidden));
  layers.push_back(linear("lm_head", s, kHidden, kVocab, false, /*tied=*/true));
  layers.push_back(cross_entropy("loss", s, kVocab));
  return model;
}

// LlamaForCausalLM (Llama-2-7B): RMSNorm, rotary positions, SwiGLU MLP, no biases, untied LM head.
Model llama2_7b(int seq_len) {
  constexpr std::int64_t kHidden = 4096, kHeads = 32, kFfn = 11008, kLayers = 32, kVocab = 32000;
  const std::int64_t s = seq_len;
  Model model;
  model.name = "llama2-7b";
  model.description = "Llama-2-7B, seq " + std::to_string(seq_len);
  model.sample_unit = "sequence";
  model.seq_len = seq_len;
  model.transformer = TransformerConfig{.layers = kLayers,
                                        .hidden = kHidden,
                                        .heads = kHeads,
                                        .kv_heads = kHeads,
                                        .ffn_hidden = kFfn,
                                        .vocab = kVocab,
                                        .gated_mlp = true,
                                        .rms_norm = true,
                                        .bias = false};
  auto& layers = model.layers;
  layers.push_back(embedding("model.embed_tokens", s, kVocab, kHidden));
  for (int i = 0; i < kLayers; ++i) {
    const std::string prefix = "model.layers." + std::to_string(i) + ".";
    layers.push_back(rmsnorm(prefix + "input_layernorm", s, kHidden));
    layers.push_back(linear(prefix + "self_attn.q_proj", s, kHidden, kHidden, false));
    layers.push_back(
        shares_input_of_previous(linear(prefix + "self_attn.k_proj", s, kHidden, kHidden, false)));
    layers.push_back(
        shares_input_of_previous(linear(prefix + "self_attn.v_proj", s, kHidden, kHidden, false)));
    layers.push_back(rope(prefix + "self_attn.rotary_emb", s, 2 * kHidden));
    layers.push_back(attention(prefix + "self_attn.sdpa", s, kHeads, kHidden / kHeads, true));
    layers.push_back(input_already_saved(linear(prefix + "self_attn.o_proj", s, kHidden, kHidden, false)));
    layers.push_back(add(prefix + "add_1", s * kHidden, 2, true));
    layers.push_back(rmsnorm(prefix + "post_attention_layernorm", s, kHidden));
    layers.push_back(linear(prefix + "mlp.gate_proj", s, kHidden, kFfn, false));
    layers.push_back(shares_input_of_previous(linear(prefix + "mlp.up_proj", s, kHidden, kFfn, false)));
    layers.push_back(swiglu(prefix + "mlp.act", s, kFfn));
    layers.push_back(linear(prefix + "mlp.down_proj", s, kFfn, kHidden, false));
    layers.push_back(add(prefix + "add_2", s * kHidden, 2, true));
  }
  layers.push_back(rmsnorm("model.norm", s, kHidden));
  layers.push_back(linear("lm_head", s, kHidden, kVocab, false));
  layers.push_back(cross_entropy("loss", s, kVocab));
  return model;
}

}  // namespace simtrain::workload::zoo
