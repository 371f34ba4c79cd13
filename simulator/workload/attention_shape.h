// The widths of a transformer's attention that follow from its TransformerConfig: head sizes (explicit,
// or hidden / heads), multi-latent attention's query/key and value head sizes, and which layers attend
// locally (through a sliding window, or within a chunk). One place, so that parameters, FLOPs, kernels and
// memory agree.
#pragma once

#include <algorithm>
#include <cmath>

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

// Whether layer `index` (0-based) attends locally: through the sliding window or within its chunk.
// Megatron's is_layer_window_attention counts layers from 1 and keeps full attention on every
// window_skip_freq-th (GPT-OSS: layers 0, 2, 4, ... windowed, as its Hugging Face config's layer_types lists
// "sliding_attention" first); Llama 4 attends globally on every chunk_skip_freq-th (its no_rope_layers).
inline bool is_local_attention_layer(const TransformerConfig& m, int index) {
  const int skip = m.window_size > 0 ? m.window_skip_freq : m.chunk_skip_freq;
  if (m.window_size <= 0 && m.attention_chunk <= 0) return false;
  return skip <= 0 || (index + 1) % skip != 0;
}

// Chunked attention as Megatron-Bridge's Llama 4 runs it (llama4_utils.py, chunkify): the sequence padded
// to whole chunks and each chunk attended as a sequence of its own, so the attention kernel sees
// attention_chunks(seq, chunk) times the batch, each of chunk tokens. One chunk (none) when the sequence
// fits in one.
inline double attention_chunks(double seq, double chunk) {
  return chunk > 0 && chunk < seq ? std::ceil(seq / chunk) : 1;
}

// Keys each query attends to on average for the model's FLOPs: the whole sequence (the square, not halved
// under a causal mask, as Megatron's MFU counts it), under a window (> 0) min(window, seq), and within
// chunks (> 0) each chunk's own square (the last one as long as what is left).
inline double attended_keys(double seq, double window, double chunk) {
  if (window > 0) return std::min(window, seq);
  const double chunks = attention_chunks(seq, chunk);
  if (chunks <= 1) return seq;
  const double last = seq - (chunks - 1) * chunk;
  return ((chunks - 1) * chunk * chunk + last * last) / seq;
}

// The same for layer `index` of the model.
inline double attended_keys(const TransformerConfig& m, int index, double seq) {
  if (!is_local_attention_layer(m, index)) return seq;
  return attended_keys(seq, m.window_size, m.attention_chunk);
}

}  // namespace simtrain::workload
