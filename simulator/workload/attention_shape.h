// The widths of a transformer's attention that follow from its TransformerConfig: head sizes (explicit,
// or hidden / heads), multi-latent attention's query/key and value head sizes, and which layers attend
// through a sliding window. One place, so that parameters, FLOPs, kernels and memory agree.
#pragma once

#include <algorithm>

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

inline bool is_mla(const TransformerConfig& m) { return m.kv_lora_rank > 0; }

// The head size of plain (multi-head or grouped-query) attention.
inline double head_dim(const TransformerConfig& m) {
  return m.head_dim > 0 ? m.head_dim : static_cast<double>(m.hidden) / m.heads;
}

// Per head: the width of queries and keys (scores) and of values (context).
inline double qk_head_dim(const TransformerConfig& m) {
  return is_mla(m) ? m.qk_nope_head_dim + m.qk_rope_head_dim : head_dim(m);
}
inline double v_head_dim(const TransformerConfig& m) { return is_mla(m) ? m.v_head_dim : head_dim(m); }

// Heads of K and V: every head under MLA (its up-projection gives each head its own K and V).
inline double kv_heads(const TransformerConfig& m) {
  return is_mla(m) || m.kv_heads <= 0 ? m.heads : m.kv_heads;
}

// Whether layer `index` (0-based) attends through the sliding window: Megatron's is_layer_window_attention
// counts layers from 1 and keeps full attention on every window_skip_freq-th (GPT-OSS: layers 0, 2, 4, ...
// windowed, as its Hugging Face config's layer_types lists "sliding_attention" first).
inline bool is_window_layer(const TransformerConfig& m, int index) {
  if (m.window_size <= 0) return false;
  return m.window_skip_freq <= 0 || (index + 1) % m.window_skip_freq != 0;
}

// Keys each query attends to on average for the model's FLOPs: the whole sequence (the square, not halved
// under a causal mask, as Megatron's MFU counts it) or, under a window, min(window, seq).
inline double attended_keys(const TransformerConfig& m, int index, double seq) {
  return is_window_layer(m, index) ? std::min<double>(m.window_size, seq) : seq;
}

}  // namespace simtrain::workload
