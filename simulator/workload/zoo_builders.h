// Internal to the workload part: constructors for the zoo's layer types (each fixes what Layer::dims means
// for its type and what the layer saves for backward) and the builders of the zoo's models.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload::zoo {

// Layer::dims of each type, per sample (kernels_for multiplies by the micro-batch):
//   conv           {c, h, w, k, r, s, stride, pad, bias}        input c x h x w, k filters of r x s
//   linear         {tokens, in, out, bias, tied}                 tied: weight counted at its embedding
//   batchnorm      {c, h, w}
//   layernorm      {tokens, hidden}   (also rmsnorm)
//   relu/gelu/tanh {elements}
//   swiglu         {tokens, ffn}                                 silu(gate) * up
//   maxpool/avgpool{c, h, w, window, stride, pad}
//   add            {elements, inputs, fork}                      fork: the gradient forks (residual)
//   concat         {elements, inputs}                            output elements, tensors concatenated
//   dropout        {elements}
//   embedding      {tokens, vocab, hidden}
//   param_add      {elements, parameter_elements}                learned position embedding
//   class_token    {tokens_in, hidden}                           prepends a learned token
//   rope           {tokens, elements_per_token}                  rotary embedding of q and k
//   attention      {seq, heads, head_dim, causal, kv_heads}      kv_heads < heads: grouped-query attention
//   cross_entropy  {tokens, classes}
std::int64_t conv_output_size(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t pad);

Layer conv(const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t k,
           std::int64_t r, std::int64_t s, std::int64_t stride, std::int64_t pad, bool bias);
Layer linear(const std::string& name, std::int64_t tokens, std::int64_t in, std::int64_t out, bool bias,
             bool tied = false);
Layer batchnorm(const std::string& name, std::int64_t c, std::int64_t h, std::int64_t w);
Layer layernorm(const std::string& name, std::int64_t tokens, std::int64_t hidden);
// Llama's RMSNorm: a scale but no shift, costed like a fused LayerNorm.
Layer rmsnorm(const std::string& name, std::int64_t tokens, std::int64_t hidden);
// type: "relu" (saves its output), "gelu"/"tanh" (save their input; tanh saves its output) or "gelu_new"
// (Hugging Face's tanh approximation as separate operators; eager_pytorch.h lists its kernels).
Layer activation(const std::string& name, const std::string& type, std::int64_t elements);
Layer swiglu(const std::string& name, std::int64_t tokens, std::int64_t ffn);
// type: "maxpool" or "avgpool".
Layer pool(const std::string& name, const std::string& type, std::int64_t c, std::int64_t h, std::int64_t w,
           std::int64_t window, std::int64_t stride, std::int64_t pad);
Layer add(const std::string& name, std::int64_t elements, std::int64_t inputs, bool fork);
// `inputs`: the tensors concatenated; each is also read by other layers, so backward accumulates its
// gradient.
Layer concat(const std::string& name, std::int64_t elements, std::int64_t inputs = 2);
Layer dropout(const std::string& name, std::int64_t elements);
Layer embedding(const std::string& name, std::int64_t tokens, std::int64_t vocab, std::int64_t hidden);
Layer param_add(const std::string& name, std::int64_t elements, std::int64_t parameter_elements);
Layer class_token(const std::string& name, std::int64_t tokens_in, std::int64_t hidden);
Layer rope(const std::string& name, std::int64_t tokens, std::int64_t elements_per_token);
// kv_heads = 0 means heads (multi-head attention).
Layer attention(const std::string& name, std::int64_t seq, std::int64_t heads, std::int64_t head_dim,
                bool causal, std::int64_t kv_heads = 0);
Layer cross_entropy(const std::string& name, std::int64_t tokens, std::int64_t classes);

// PyTorch saves a reference to a tensor, not a copy: when a layer's saved input is the very tensor an
// earlier layer already saved (a conv after an in-place ReLU, the K and V projections after Q), it adds
// nothing to activation memory.
Layer input_already_saved(Layer layer);
// A Linear that reads the input of the Linear before it (Layer::shares_input), whose saved input is that one.
Layer shares_input_of_previous(Layer layer);

// A decoder-only language model beyond its TransformerConfig: what decoder() needs to lay out its layers.
struct DecoderSpec {
  std::string name;
  std::string description;
  TransformerConfig config;
  int seq_len = 0;
  int learned_positions = 0;  // rows of a learned position table (GPT); 0 = rotary positions (Llama)
  bool dropout = false;       // dropout after embeddings, attention and MLP (GPT-3, Megatron GPT)
};

// The generic decoder: GPT-3, Megatron GPT, Llama 2/3, Mixtral, DeepSeekMoE and models read from TOML, with
// grouped-query attention, gated MLPs and mixture-of-experts layers, named as Megatron-Core names modules.
Model decoder(const DecoderSpec& spec);

// One entry of the zoo's catalogue: its key, the sequence lengths it accepts and how to build it.
struct ZooEntry {
  std::string name;
  int default_seq_len = 0;         // 0 for image models
  int max_seq_len = 0;             // 0 = no bound
  bool learned_positions = false;  // what bounds max_seq_len: a position table or the context window
  std::function<Model(int seq_len)> build;
};

// The large language models by family: GPT-3 and the Megatron GPT family (gpt_models.cc); Llama 2/3/3.1,
// Mixtral and DeepSeekMoE (llm_models.cc).
std::vector<ZooEntry> gpt_entries();
std::vector<ZooEntry> llm_entries();

Model lenet5();
Model resnet50();
Model densenet121();
Model vit_b16();
Model bert_large(int seq_len);
Model gpt2_xl(int seq_len);
Model llama2_7b(int seq_len);

}  // namespace simtrain::workload::zoo
