// Small transformer and plan fixtures for the Megatron trace tests (workload) and replays (run).
#pragma once

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::testing {

// A small GPT: hidden 256, 8 heads, FFN 1024, untied 1024-token vocabulary.
inline workload::TransformerConfig small_gpt(int layers = 8) {
  workload::TransformerConfig m;
  m.layers = layers;
  m.hidden = 256;
  m.heads = 8;
  m.kv_heads = 8;
  m.ffn_hidden = 1024;
  m.vocab = 1024;
  return m;
}

// small_gpt with every layer a mixture of eight experts, two per token, and `shared` shared experts.
inline workload::TransformerConfig small_moe(int layers = 2, int shared = 0) {
  workload::TransformerConfig m = small_gpt(layers);
  m.experts = 8;
  m.experts_per_token = 2;
  m.shared_experts = shared;
  return m;
}

// tp x pp x dp GPUs, micro-batches of one 128-token sequence, `micro_batches` of them per replica.
inline workload::ParallelConfig megatron_plan(int tp, int pp, int dp, int micro_batches) {
  workload::ParallelConfig c;
  c.gpus = tp * pp * dp;
  c.tp = tp;
  c.pp = pp;
  c.micro_batch = 1;
  c.global_batch = micro_batches * dp;
  c.seq_len = 128;
  return c;
}

}  // namespace simtrain::testing
