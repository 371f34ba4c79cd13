// The model zoo: real architectures as lists of layers with their exact shapes, from which parameter counts,
// FLOPs and bytes per sample follow.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/precision.h"

namespace simtrain::workload {

// One layer (module) of a model: its parameters and the kernels of its forward and backward pass for one
// micro-batch. Kernels carry shape, FLOPs and bytes in the precision given to kernels_for().
struct Layer {
  std::string name;       // e.g. "layer3.2.conv2"
  std::string type;       // e.g. "conv", "linear", "batchnorm", "attention"
  double parameters = 0;  // trainable parameter count
  // Description of the layer's shapes, interpreted by the kernel builder.
  std::vector<std::int64_t> dims;
  double saved_activation_elements_per_sample = 0;  // kept for backward
  // False for the model's first layer: nothing upstream needs a gradient, so it has no data-gradient kernel.
  bool input_needs_grad = true;
  // Reads the very tensor the layer before it read (Hugging Face's separate key and value projections after
  // the query's, up after gate): eager PyTorch under autocast casts that input again for it, and backward
  // adds its input gradient to the others'.
  bool shares_input = false;
};

// Multi-token-prediction modules a model may have: each repeats a layer and the LM head on the last stage,
// so the bound keeps an input from building without end (published models have one or two).
constexpr int kMaxMtpLayers = 16;

// The hyper-parameters of a transformer, from which tensor-, sequence-, context-, expert- and
// pipeline-parallel kernels are built (model parallelism shards these dimensions, not a layer list).
struct TransformerConfig {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;    // grouped-query attention; == heads for multi-head attention
  int ffn_hidden = 0;  // dense MLP width (per expert width is moe_ffn_hidden)
  int vocab = 0;
  bool gated_mlp = false;  // SwiGLU-style MLP with three matrices (Llama, Mixtral)
  bool causal = true;      // decoder (GPT, Llama) vs encoder (BERT, ViT)
  bool tied_embeddings = false;
  bool rms_norm = false;  // RMSNorm (Llama) instead of LayerNorm
  // An RMSNorm over each head's queries and each head's keys after the projection (Qwen3's q_norm and k_norm,
  // Megatron's --qk-layernorm): two more memory-bound kernels per layer and pass.
  bool qk_norm = false;
  // One Linear computes queries, keys and values together in the model's own code (MPT's Wqkv, GPT-NeoX's
  // query_key_value), where Hugging Face's Llama has three: the eager generator keeps it whole.
  bool fused_qkv = false;
  bool bias = true;       // biases in linear layers (GPT-2, BERT) or none (Llama)
  // Dropout after attention and the MLP (GPT-2/3, BERT, Megatron GPT): one-byte masks saved for backward.
  // Models trained without (Llama and later) save none: PyTorch's dropout at p = 0 returns its input.
  bool dropout = false;
  // Mixture of experts: 0 experts = dense. From `first_moe_layer` on, every moe_layer_step-th layer is MoE,
  // the last of each run of moe_layer_step (1: every layer; Llama 4 Maverick, Hugging Face's
  // interleave_moe_layer_step 2: layers 1, 3, 5, ...); the others are dense.
  int experts = 0;
  int experts_per_token = 0;  // top-k routing
  int moe_ffn_hidden = 0;
  int shared_experts = 0;  // always-active experts (DeepSeek-style)
  int first_moe_layer = 0;
  int moe_layer_step = 1;
  // An explicit pattern instead, one entry per layer, 1 for MoE (Megatron's --moe-layer-freq where
  // first_moe_layer and moe_layer_step cannot say it: moe_layer_pattern.h). Empty: those two say.
  std::vector<std::uint8_t> moe_layers;
  // Latent MoE (Nemotron 3 Super; Megatron's moe_latent_size) when > 0: each MoE layer projects its tokens
  // from hidden to this width before the dispatch (fc1_latent_proj) and back after the combine
  // (fc2_latent_proj), so the all-to-alls and the routed experts work in it; the router and the shared
  // experts see the full hidden state.
  int moe_latent = 0;
  // GPT-OSS's expert activation: quick-GELU of the gate half clamped at 7, times the linear half clamped to
  // +-7 plus 1 (Megatron's quick_gelu with activation_func_clamp_value 7 and glu_linear_offset 1). Without
  // Transformer Engine's op fuser Megatron clamps the two halves and concatenates them again in PyTorch
  // before its fused activation (moe_kernels.cc).
  bool clamped_quick_geglu = false;
  // Attention head size when it is not hidden / heads (Megatron's --kv-channels, Hugging Face's head_dim:
  // Qwen3, GPT-OSS); 0 = hidden / heads. The projections are hidden x heads * head_dim.
  int head_dim = 0;
  // Multi-latent attention (DeepSeek-V2/V3, Kimi K2) when kv_lora_rank > 0: queries through a
  // q_lora_rank latent (0 = a plain query projection), keys and values through a kv_lora_rank latent plus
  // one shared rotary key of qk_rope_head_dim; scores over qk_nope_head_dim + qk_rope_head_dim, values of
  // v_head_dim. head_dim and kv_heads are then unused (every head has its own K and V).
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  // Sliding-window attention (GPT-OSS; Megatron's --window-size): each query sees the last window_size
  // keys on the layers that use it; 0 = full attention everywhere. With window_skip_freq = n every n-th
  // layer (1-based, Megatron's --window-attn-skip-freq) keeps full attention; 0 = every layer windowed.
  int window_size = 0;
  int window_skip_freq = 0;
  // YaRN's context-extension factor of the rotary embedding (Hugging Face's rope_scaling.factor; GPT-OSS 32);
  // 0 = plain RoPE. YaRN scales cosine and sine by 0.1 ln(factor) + 1, which Transformer Engine's fused RoPE
  // cannot, so Megatron-Core rotates q and k with its unfused PyTorch code (transformer_kernels.cc).
  int yarn_scaling_factor = 0;
  // Chunked attention (Llama 4's attention_chunk_size): the tokens of each chunk of attention_chunk attend,
  // causally, only to their own chunk, on every layer but each chunk_skip_freq-th (1-based: Llama 4's NoPE
  // layers, every 4th, attend over the whole sequence); 0 = no chunking. A model chunks or slides a window,
  // not both.
  int attention_chunk = 0;
  int chunk_skip_freq = 0;
  // DeepSeek-V3 multi-token prediction (Megatron's --mtp-num-layers): that many extra transformer layers,
  // each after a projection of [norm(hidden), norm(embedding of the next token)] to hidden, sharing the
  // embedding and LM head, run on the last pipeline stage with their own LM head GEMM and loss.
  int mtp_layers = 0;  // at most kMaxMtpLayers
  // Megatron's mtp_use_repeated_layer: one module's weights serve every depth (run mtp_layers times, its
  // parameters, gradients and optimizer state held once), as Nemotron 3.5 Lightning's checkpoint has them.
  bool mtp_repeated_layer = false;
  // Megatron's keep_mtp_spec_in_bf16: the modules' GEMMs stay 16-bit under an FP8 recipe.
  bool mtp_bf16 = false;
  // Hybrid models (Nemotron-H; Megatron's --hybrid-override-pattern): one character per layer, each layer a
  // single block with its own norm and residual: 'M' a Mamba-2 mixer, '*' self-attention, '-' the dense MLP,
  // 'E' the MoE MLP. Empty = every layer is attention followed by an MLP (or MoE).
  std::string hybrid_pattern = {};
  // The Mamba-2 mixer (Dao and Gu 2024): mamba_heads heads of mamba_head_dim (d_inner = their product),
  // mamba_groups groups of B and C of mamba_state each, a causal depthwise conv1d of mamba_conv_kernel taps.
  int mamba_heads = 0;
  int mamba_head_dim = 0;
  int mamba_state = 0;
  int mamba_groups = 0;
  int mamba_conv_kernel = 4;

  bool operator==(const TransformerConfig&) const = default;
};

// The multi-token-prediction modules whose weights a model holds: one where a repeated module serves every
// depth, else one per depth.
inline int mtp_modules_held(const TransformerConfig& t) {
  return t.mtp_layers > 0 && t.mtp_repeated_layer ? 1 : std::max(0, t.mtp_layers);
}

// The width of the rows a MoE layer's routed experts take and give back: its latent width, or the hidden
// size.
inline int routed_expert_width(const TransformerConfig& t) {
  return t.moe_latent > 0 ? t.moe_latent : t.hidden;
}

struct Model {
  std::string name;           // zoo key, e.g. "resnet50"
  std::string description;    // e.g. "ResNet-50 v1.5, ImageNet 224x224"
  std::string sample_unit;    // "image" or "sequence"
  int seq_len = 0;            // tokens per sample for sequence models, 0 otherwise
  std::vector<Layer> layers;  // in forward order
  // Set for transformer models (BERT, GPT, Llama, ViT, MoE): the parallel plans of large-model training
  // build their kernels from it.
  std::optional<TransformerConfig> transformer;

  double parameters() const;
  // Parameters a token passes through: all of them for a dense model; for a mixture of experts only the
  // top-k routed and the shared experts of each MoE layer (Mixtral-8x7B: 12.9 B of 46.7 B).
  double active_parameters() const;
  // Forward FLOPs for one sample (multiply-add = 2 FLOPs). Counts convolutions and GEMMs (including an LM
  // head tied to the embedding) and, for transformers, the attention score and context matmuls
  // (4 * seq^2 * head_dim per head, not halved under a causal mask, as Megatron-LM's MFU convention does).
  // Normalisation, activations, pooling, softmax, embeddings and the optimizer are not counted.
  double forward_flops_per_sample() const;
};

// A decoder-only language model given by its shapes rather than a zoo key (Megatron-LM's --num-layers,
// --hidden-size, ...), laid out by the zoo's generic decoder like the zoo's GPT and Llama models.
struct DecoderShape {
  std::string name;
  TransformerConfig config;
  int learned_positions = 0;  // rows of a learned position table (GPT); 0 = rotary positions (Llama)
  bool dropout = false;       // dropout after embeddings, attention and MLP
};

// Options that change a zoo model's shapes.
struct ModelOptions {
  int seq_len = 0;  // 0 = the model's default
};

// The zoo's keys in listing order: lenet5, resnet50, densenet121, vit-b16, bert-large (default seq 128),
// gpt2-xl (1024), llama2-7b (4096); gpt3-175b and the Megatron GPT family (megatron-gpt-1.7b ...
// megatron-gpt-1t, megatron-22b, mt-nlg-530b, megatron-1t; seq 2048); llama2-13b/70b (4096),
// llama3-8b/70b/405b and llama3.1-8b/70b/405b (8192), mixtral-8x7b and deepseek-moe-16b (4096);
// deepseek-v3, kimi-k2, qwen3-30b-a3b, qwen3-235b-a22b (4096), llama4-scout and llama4-maverick (8192),
// gpt-oss-120b (4096); nemotron-h-8b,
// nemotron-3-nano and nemotron-3-super (8192).
std::vector<std::string> model_names();

// The model of `shape` at `seq_len` tokens per sample; Error when a learned position table is shorter.
Model build_decoder(const DecoderShape& shape, int seq_len);
// A zoo key, or a path ending in .toml to a model file (models/README.md; errors name file, line and
// "section.key"). Throws Error("unknown model ...") listing the known names, and Error("--seq-len: ...") when
// seq_len is given for an image model or exceeds a learned position table (BERT 512, GPT-2 1024, GPT-3 and
// Megatron GPT 2048) or a trained context window (Llama 3.1: 131,072).
Model build_model(const std::string& name_or_path, const ModelOptions& options = {});

// The kernels of one layer for a micro-batch of `batch` samples. GEMMs, convolutions and attention run in
// matmul_dtype(precision), memory-bound kernels in activation_dtype(precision). Bytes are the HBM traffic of
// each kernel (inputs read, outputs written, weights read in the matmul dtype, weight gradients written in
// fp32). Shapes: Gemm {m, n, k} (backward data {m, k_in, n_out}, backward weight {n_out, k_in, m});
// Conv {n, c, h, w, k, r, s, stride, pad} for all three passes; Attention {batch, heads, seq, head_dim}, one
// fused flash-attention kernel per pass (backward = 2.5x forward FLOPs). A layer has at most one kernel per
// pass; one whose kind has no separate weight-gradient kernel (BatchNorm) reports everything as BackwardData.
struct LayerKernels {
  std::vector<trace::ComputeSpec> forward;
  std::vector<trace::ComputeSpec> backward;  // in execution order (data gradient, then weight gradient)
};
LayerKernels kernels_for(const Layer& layer, const Model& model, int batch, Precision precision);

}  // namespace simtrain::workload
