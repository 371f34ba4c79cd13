// Llama 2, Llama 3 and 3.1, Mixtral, DeepSeekMoE and the other Llama-style decoders below: RMSNorm, rotary
// positions, SwiGLU MLPs (unless a model says otherwise), no biases, untied LM heads; grouped-query attention
// from Llama-2-70B on. Shapes are those of the models' Hugging Face config.json files (Nemotron 3 Nano's of
// Megatron-Bridge's recipe).
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

// `t` with every MoE layer's routed experts (experts of width ffn, top_k per token) and `shared`
// always-active experts of that width.
TransformerConfig with_experts(TransformerConfig t, int experts, int top_k, int ffn, int shared = 0) {
  t.experts = experts;
  t.experts_per_token = top_k;
  t.moe_ffn_hidden = ffn;
  t.shared_experts = shared;
  return t;
}

// Mixtral-8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): Mistral-7B's attention (32 heads, 8 KV heads)
// with every MLP replaced by 8 SwiGLU experts of 14,336, top-2 routed. No layer is dense; ffn_hidden
// repeats the expert width as Hugging Face's intermediate_size does.
TransformerConfig mixtral_8x7b() { return with_experts(llama(32, 4096, 32, 8, 14336, 32000), 8, 2, 14336); }

// DeepSeekMoE 16B (deepseek-ai/deepseek-moe-16b-base config.json; Dai et al. 2024): multi-head attention,
// a dense first layer (ffn 10,944), then 64 fine-grained routed experts of 1,408, top-6, plus 2 shared
// experts of 1,408.
TransformerConfig deepseek_moe_16b() {
  TransformerConfig t = with_experts(llama(28, 2048, 16, 16, 10944, 102400), 64, 6, 1408, 2);
  t.first_moe_layer = 1;
  return t;
}

// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json): 61 layers of hidden 7,168 with multi-latent
// attention (128 heads; q_lora_rank 1,536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
// v_head_dim 128); the first 3 layers dense (intermediate_size 18,432, first_k_dense_replace 3), the rest
// 256 routed experts of 2,048 (moe_intermediate_size) top-8 plus 1 shared; vocabulary 129,280, untied
// head; one multi-token-prediction module (num_nextn_predict_layers 1). Published: 671 B parameters of
// which 37 B active, plus 14 B for the MTP module (its own embedding and head copies included).
TransformerConfig deepseek_v3() {
  TransformerConfig t = with_experts(llama(61, 7168, 128, 128, 18432, 129280), 256, 8, 2048, 1);
  t.first_moe_layer = 3;
  t.q_lora_rank = 1536;
  t.kv_lora_rank = 512;
  t.qk_nope_head_dim = 128;
  t.qk_rope_head_dim = 64;
  t.v_head_dim = 128;
  t.mtp_layers = 1;
  return t;
}

// Kimi K2 (moonshotai/Kimi-K2-Instruct config.json): DeepSeek-V3's architecture with 64 heads, 384 routed
// experts (top-8, 1 shared), one dense layer (first_k_dense_replace 1), vocabulary 163,840 and no MTP
// module (num_nextn_predict_layers 0). Published: 1.04 T parameters, 32.6 B active.
TransformerConfig kimi_k2() {
  TransformerConfig t = deepseek_v3();
  t.heads = t.kv_heads = 64;
  t.experts = 384;
  t.first_moe_layer = 1;
  t.vocab = 163840;
  t.mtp_layers = 0;
  return t;
}

// Qwen3 MoE (Qwen/Qwen3-30B-A3B and Qwen/Qwen3-235B-A22B config.json): grouped-query attention with an
// explicit head_dim of 128 (heads x head_dim differs from hidden_size), every layer MoE (128 experts, top-8,
// no shared expert), vocabulary 151,936, untied head, and per-head RMSNorms on q and k (QK-norm: their
// kernels are modelled, their 2 x 128 parameters per layer left out). Published: 30.5 B / 3.3 B active and
// 235 B / 22 B active.
TransformerConfig qwen3_moe(int layers, int hidden, int heads, int moe_ffn) {
  TransformerConfig t = with_experts(llama(layers, hidden, heads, 4, moe_ffn, 151936), 128, 8, moe_ffn);
  t.head_dim = 128;
  t.qk_norm = true;
  return t;
}

// GPT-OSS-120B (openai/gpt-oss-120b config.json): 36 layers of hidden 2,880, 64 heads of head_dim 64 with
// 8 KV heads and biases on the attention projections (attention_bias), 128 experts of 2,880 top-4 with
// biases (num_local_experts, experts_per_token), a 128-token sliding window on every other layer
// (layer_types: sliding_attention first, then full_attention; Megatron's --window-size 128
// --window-attn-skip-freq 2), vocabulary 201,088, untied head. Its attention sinks (one learned logit per
// head, 64 parameters per layer) are left out: they change neither GEMMs nor the attention's tile count.
// Its experts' activation is the clamped quick-GeGLU (swiglu_limit 7.0 in the config), its rotary embedding
// YaRN with factor 32 (rope_scaling).
// Published (OpenAI's model card): 116.8 B parameters, 5.1 B active.
TransformerConfig gpt_oss_120b() {
  TransformerConfig t = with_experts(llama(36, 2880, 64, 8, 2880, 201088), 128, 4, 2880);
  t.bias = true;
  t.head_dim = 64;
  t.window_size = 128;
  t.window_skip_freq = 2;
  t.clamped_quick_geglu = true;
  t.yarn_scaling_factor = 32;
  return t;
}

// Llama 4 (meta-llama/Llama-4-Scout-17B-16E and Llama-4-Maverick-17B-128E config.json, text_config): 48
// layers of hidden 5,120, 40 heads of head_dim 128 with 8 KV heads, vocabulary 202,048, untied head; MoE
// layers of `experts` SwiGLU experts of 8,192 (intermediate_size), top-1, plus one shared expert of the
// same width; Maverick interleaves them with dense SwiGLU layers of 16,384 (intermediate_size_mlp,
// interleave_moe_layer_step 2: layers 1, 3, 5, ... MoE). Chunked attention over 8,192 tokens
// (attention_chunk_size) on the RoPE layers; every 4th layer has no RoPE and attends to the whole sequence
// (no_rope_layers). The q and k L2 norms of the RoPE layers and the NoPE layers' attention temperature
// (elementwise, no parameters) are left out. Context (max_position_embeddings): Scout 10,485,760 tokens,
// Maverick 1,048,576. Published (Meta's model cards): Scout 109 B parameters,
// Maverick 400 B, both 17 B active.
TransformerConfig llama4(int experts, int moe_layer_step) {
  TransformerConfig t = with_experts(llama(48, 5120, 40, 8, 16384, 202048), experts, 1, 8192, 1);
  t.head_dim = 128;
  t.moe_layer_step = moe_layer_step;
  t.attention_chunk = 8192;
  t.chunk_skip_freq = 4;
  return t;
}

// The Nemotron-H family: one block per layer after `pattern`, squared-ReLU MLPs (not gated), head size 128,
// the Nemotron-H tokenizer's vocabulary of 131,072, and Mamba-2 mixers of `mamba_heads` heads of 64, state
// 128, 8 groups and a conv1d of 4 taps.
TransformerConfig nemotron_h(int hidden, int heads, int kv_heads, int ffn, const std::string& pattern,
                             int mamba_heads) {
  TransformerConfig t = llama(static_cast<int>(pattern.size()), hidden, heads, kv_heads, ffn, 131072);
  t.gated_mlp = false;
  t.head_dim = 128;
  t.hybrid_pattern = pattern;
  t.mamba_heads = mamba_heads;
  t.mamba_head_dim = 64;
  t.mamba_state = 128;
  t.mamba_groups = 8;
  t.mamba_conv_kernel = 4;
  return t;
}

// Nemotron-H-8B (nvidia/Nemotron-H-8B-Base-8K config.json; NVIDIA 2025, "Nemotron-H: A Family of Accurate
// and Efficient Hybrid Mamba-Transformer Models"): 52 single-block layers of hidden 4,096 after
// hybrid_override_pattern: 24 Mamba-2 mixers (mamba_num_heads 128 of mamba_head_dim 64, ssm_state_size
// 128, n_groups 8, conv_kernel 4), 4 attention blocks (32 heads, 8 KV heads, head_dim 128) and 24
// squared-ReLU MLPs of 21,504 (intermediate_size; not gated), no biases, RMSNorm, untied vocabulary of
// 131,072.
TransformerConfig nemotron_h_8b() {
  return nemotron_h(4096, 32, 8, 21504, "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-", 128);
}

// Nemotron 3 Nano 30B-A3B (Megatron-Bridge's recipes/nemotronh/h100/nemotron_3_nano.py at commit 067f987,
// the HybridModelProvider its pre-training recipe builds): 52 single-block layers of hidden 2,688 after
// hybrid_layer_pattern: 23 Mamba-2 mixers (64 heads of 64, state 128, 8 groups), 6 attention blocks (32
// heads, 2 KV groups, kv_channels 128) and 23 MoE blocks of 128 squared-ReLU experts of 1,856 (not gated)
// routed top-6 plus a shared expert of 3,712 (two expert widths); no biases, RMSNorm, untied vocabulary of
// 131,072 (the Nemotron-H tokenizer's). The sigmoid router with its expert bias costs as the softmax one.
TransformerConfig nemotron_3_nano() {
  return with_experts(
      nemotron_h(2688, 32, 2, 1856, "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME", 64), 128, 6, 1856,
      2);
}

// Nemotron 3.5 Lightning 30B-A3B: Nemotron 3 Nano's layers
// (examples/models/nemotron/nemotron_3/lightning/README.md of Megatron-Bridge: "the same architecture as
// Nemotron 3 Nano", its checkpoint trained with multi-token prediction) and, as its recipes at commit 067f987
// (perf_recipes/nemotronh/gb200/nemotronh.py) set them, two MTP depths of one repeated module of attention
// and MoE (mtp_num_layers 2, mtp_hybrid_override_pattern "*E", mtp_use_repeated_layer) kept in bf16
// (keep_mtp_spec_in_bf16).
TransformerConfig nemotron_3_5_lightning() {
  TransformerConfig t = nemotron_3_nano();
  t.mtp_layers = 2;
  t.mtp_repeated_layer = true;
  t.mtp_bf16 = true;
  return t;
}

// Nemotron 3 Super 120B-A12B (the config.json of nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16, which
// Megatron-Bridge's recipes/nemotronh/h100/nemotron_3_super.py at commit 067f987 builds its provider from;
// read from copies of it in public repositories, which agree): 88 single-block layers of hidden 4,096
// after hybrid_override_pattern: 40 Mamba-2 mixers (128 heads of 64, state 128, 8 groups), 8 attention
// blocks (32 heads, 2 KV heads, head_dim 128) and 40 latent MoE blocks (moe_latent_size 1,024) of 512
// squared-ReLU experts of 2,688 routed top-22 plus a shared expert of 5,376 on the full hidden state; one
// multi-token-prediction module of attention and MoE (mtp_hybrid_override_pattern "*E"), which its recipes
// repeat (mtp_use_repeated_layer: the module's weights serve every depth of --mtp-layers) and keep in bf16
// (keep_mtp_spec_in_bf16; recipes/nemotronh/h100/nemotron_3_super.py); no biases, RMSNorm, untied
// vocabulary of 131,072.
TransformerConfig nemotron_3_super() {
  TransformerConfig t = with_experts(
      nemotron_h(4096, 32, 2, 2688,
                 "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME",
                 128),
      512, 22, 2688, 2);
  t.moe_latent = 1024;
  t.mtp_layers = 1;
  t.mtp_repeated_layer = true;
  t.mtp_bf16 = true;
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
      entry("deepseek-v3", "DeepSeek-V3 (MLA, 256 routed top-8 + 1 shared experts, MTP)", deepseek_v3(), 4096,
            163840),
      entry("kimi-k2", "Kimi K2 (MLA, 384 routed top-8 + 1 shared experts)", kimi_k2(), 4096, 131072),
      entry("qwen3-30b-a3b", "Qwen3-30B-A3B (GQA, 128 experts top-8)", qwen3_moe(48, 2048, 32, 768), 4096,
            40960),
      entry("qwen3-235b-a22b", "Qwen3-235B-A22B (GQA, 128 experts top-8)", qwen3_moe(94, 4096, 64, 1536),
            4096, 40960),
      entry("llama4-scout", "Llama 4 Scout 17B-16E (16 experts top-1 + 1 shared, chunked attention 8,192)",
            llama4(16, 1), 8192, 10485760),
      entry("llama4-maverick",
            "Llama 4 Maverick 17B-128E (128 experts top-1 + 1 shared on alternate layers, chunked attention "
            "8,192)",
            llama4(128, 2), 8192, 1048576),
      entry("gpt-oss-120b", "GPT-OSS-120B (GQA, sliding window 128 on alternate layers, 128 experts top-4)",
            gpt_oss_120b(), 4096, 131072),
      entry("nemotron-h-8b", "Nemotron-H-8B (hybrid: 24 Mamba-2, 4 attention, 24 MLP blocks)",
            nemotron_h_8b(), 8192),
      entry("nemotron-3-nano", "Nemotron 3 Nano 30B-A3B (hybrid: 23 Mamba-2, 6 attention, 23 MoE blocks)",
            nemotron_3_nano(), 8192),
      entry("nemotron-3.5-lightning",
            "Nemotron 3.5 Lightning 30B-A3B (Nemotron 3 Nano with two MTP depths of one repeated module)",
            nemotron_3_5_lightning(), 8192),
      entry("nemotron-3-super",
            "Nemotron 3 Super 120B-A12B (hybrid: 40 Mamba-2, 8 attention, 40 latent MoE blocks, MTP)",
            nemotron_3_super(), 8192),
  };
}

}  // namespace simtrain::workload::zoo
