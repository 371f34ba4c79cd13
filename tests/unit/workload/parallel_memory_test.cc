// Specification of the per-GPU memory estimate of large-model training: the ZeRO paper's worked example,
// the micro-batches each pipeline schedule holds, and how each kind of parallelism divides the model
// (the per-layer activations: layer_activations_test.cc).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/workload/layer_activations.h"
#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_memory.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

constexpr double kGB = 1e9;  // the ZeRO paper's GB

// GPT-3 175B (Brown et al. 2020; Korthikanti et al. Table 3): tied embeddings, learned positions (not
// counted here), LayerNorm and biases.
TransformerConfig gpt3_175b() {
  TransformerConfig m = *build_model("gpt3-175b").transformer;
  m.vocab = 50257;  // the paper's vocabulary, not Megatron's padded 51,200
  return m;
}

// Llama-2 70B: GQA with 8 KV heads, SwiGLU, RMSNorm, no biases, untied LM head.
TransformerConfig llama2_70b() { return *build_model("llama2-70b").transformer; }

// Mixtral 8x7B: every layer routes each token to 2 of 8 SwiGLU experts.
TransformerConfig mixtral_8x7b() { return *build_model("mixtral-8x7b").transformer; }

// Korthikanti et al.'s per-layer figure for GPT-3 at s 2048, b 1.
double gpt3_layer_bytes(int tp, bool sp, Recompute recompute, double seq = 2048) {
  return activation_bytes_per_layer(gpt3_175b(), seq, 1, {.tp = tp, .sp = sp, .recompute = recompute});
}

// What the last stage holds beside its layers for one micro-batch of `tokens` on a GPU: the final norm's
// and the output layer's 16-bit inputs (split under sequence parallelism) and the loss over the GPU's
// share of the vocabulary at its peak, `peak_per_logit` bytes (Megatron's unfused loss: the fp32 softmax
// beside the 16-bit logits, 6).
double head_bytes(const TransformerConfig& m, int tp, bool sp, double tokens, double peak_per_logit = 6) {
  return 2 * 2 * tokens * m.hidden / (sp && tp > 1 ? tp : 1) + tokens * m.vocab / tp * peak_per_logit;
}

ParallelConfig plan(int tp, int pp) {
  ParallelConfig c;
  c.tp = tp;
  c.pp = pp;
  return c;
}

}  // namespace

TEST_CASE("ZeRO paper, Fig. 1: 7.5B parameters on 64 data-parallel GPUs with mixed-precision Adam") {
  const double psi = 7.5e9;
  const int nd = 64;
  ParallelConfig c;
  // Baseline: (2 + 2 + K) * Psi with K = 12.
  CHECK(model_state_bytes(psi, c, nd).total() == 120 * kGB);
  // P_os: 2 Psi + 2 Psi + K Psi / Nd = 31.4 GB.
  c.zero = 1;
  CHECK(model_state_bytes(psi, c, nd).total() == simtrain::testing::Approx(31.40625 * kGB));
  CHECK(model_state_bytes(psi, c, nd).total() / kGB == simtrain::testing::Approx(31.4).epsilon(0.05 / 31.4));
  // P_os+g: 2 Psi + (2 + K) Psi / Nd = 16.6 GB.
  c.zero = 2;
  CHECK(model_state_bytes(psi, c, nd).total() == simtrain::testing::Approx(16.640625 * kGB));
  CHECK(model_state_bytes(psi, c, nd).total() / kGB == simtrain::testing::Approx(16.6).epsilon(0.05 / 16.6));
  // P_os+g+p: (2 + 2 + K) Psi / Nd = 1.9 GB.
  c.zero = 3;
  CHECK(model_state_bytes(psi, c, nd).total() == simtrain::testing::Approx(1.875 * kGB));
  CHECK(model_state_bytes(psi, c, nd).total() / kGB == simtrain::testing::Approx(1.9).epsilon(0.05 / 1.9));
}

TEST_CASE("the distributed optimizer shards like ZeRO-1, FSDP full shard like ZeRO-3") {
  const double psi = 7.5e9;
  ParallelConfig zero1;
  zero1.zero = 1;
  ParallelConfig distributed;
  distributed.distributed_optimizer = true;
  CHECK(model_state_bytes(psi, distributed, 64).total() == model_state_bytes(psi, zero1, 64).total());
  ParallelConfig zero3;
  zero3.zero = 3;
  ParallelConfig fsdp;
  fsdp.fsdp = FsdpMode::FullShard;
  CHECK(model_state_bytes(psi, fsdp, 64).total() == model_state_bytes(psi, zero3, 64).total());
}

TEST_CASE("Megatron's fp32 gradient buffer costs 4 B per parameter instead of 2; fp32 training 16 B") {
  ParallelConfig c;
  ParallelMemoryOptions megatron;
  megatron.fp32_gradient_accumulation = true;
  CHECK(model_state_bytes(1e9, c, 8, megatron).gradients == 4e9);
  CHECK(model_state_bytes(1e9, c, 8, megatron).total() == 18e9);
  c.precision = Precision::FP32;  // fp32 weights and gradients, Adam's two moments, no master copy
  CHECK(model_state_bytes(1e9, c, 8).total() == 16e9);
}

TEST_CASE("with 1F1B the first stage holds the activations of all L layers, whatever pp") {
  // Korthikanti et al. section 4.2.3: pp micro-batches in flight, L / pp layers each.
  const double per_layer = gpt3_layer_bytes(8, true, Recompute::Selective);
  for (int pp : {1, 2, 8, 16}) {
    ParallelConfig c = plan(8, pp);
    c.sp = true;
    c.recompute = Recompute::Selective;
    c.global_batch = 64 * 16;
    const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), c, 2048, 16, {});
    CHECK(m.pipeline_stage == 0);
    CHECK(m.in_flight_micro_batches == pp);
    // Without a pipeline the one stage also holds the LM head's inputs and the loss.
    const double head = pp == 1 ? head_bytes(gpt3_175b(), 8, true, 2048) : 0;
    CHECK(m.activations_bytes == simtrain::testing::Approx(96 * per_layer + head));  // 10.27 GB + head
  }
}

TEST_CASE("micro-batches in flight: 1F1B, GPipe and interleaved 1F1B") {
  ParallelConfig c = plan(1, 8);
  CHECK(in_flight_micro_batches(c, 0, 64) == 8);
  CHECK(in_flight_micro_batches(c, 7, 64) == 1);
  CHECK(in_flight_micro_batches(c, 0, 4) == 4);  // fewer micro-batches than stages
  c.schedule = PipelineSchedule::GPipe;
  CHECK(in_flight_micro_batches(c, 0, 64) == 64);
  CHECK(in_flight_micro_batches(c, 7, 64) == 64);
  c.schedule = PipelineSchedule::Interleaved;
  c.vpp = 3;
  // pp * (1 + (pp - 1) / (pp * vpp)) = 8 * (1 + 7 / 24) = 31 / 3.
  CHECK(in_flight_micro_batches(c, 0, 64) == simtrain::testing::Approx(8.0 * (1 + 7.0 / 24)));
  CHECK(in_flight_micro_batches(c, 7, 64) == simtrain::testing::Approx(((3 - 1) * 8 + 1) / 3.0));
  CHECK(in_flight_micro_batches(plan(1, 1), 0, 64) == 1);  // gradient accumulation, one at a time
}

TEST_CASE("the combined 1F1B holds a chunk more when interleaved, one micro-batch without a pipeline") {
  ParallelConfig c = plan(1, 8);
  c.schedule = PipelineSchedule::Interleaved;
  c.vpp = 3;
  c.overlap_moe_expert_parallel_comm = true;
  // Its extra warm-up forward: one chunk more than above.
  CHECK(in_flight_micro_batches(c, 7, 64) == simtrain::testing::Approx(((3 - 1) * 8 + 2) / 3.0));
  // Without a pipeline the next micro-batch's forward stores what the backward beside it frees.
  ParallelConfig single = plan(1, 1);
  single.overlap_moe_expert_parallel_comm = true;
  CHECK(in_flight_micro_batches(single, 0, 64) == 1);
}

TEST_CASE("interleaved, a stage holds the chunks of Megatron's order: a smaller first chunk, fewer bytes") {
  // pp 2, vpp 2, 8 micro-batches: the first stage's warm-up is (2 - 0 - 1) * 2 + (2 - 1) * 2 = 4 forwards.
  ParallelConfig c = plan(1, 2);
  c.vpp = 2;
  // Equal chunks: the warm-up's 4 and the steady state's next forward, 5 chunks.
  CHECK(stage_activation_peak(c, 0, 8, {1.0, 1.0}) == 5);
  // The first chunk holding only the embedding (no layer's activations): the warm-up runs chunks 0, 0, 1, 1
  // and holds 2; the steady state adds chunk 0 twice while freeing chunk 1 twice, then adds chunk 1 back as
  // it frees chunk 0: never more than 2, where an even share of 5 chunks would give 2.5.
  CHECK(stage_activation_peak(c, 0, 8, {0.0, 1.0}) == 2);
  // The second stage: 2 warm-up forwards, 3 in flight.
  CHECK(stage_activation_peak(c, 1, 8, {1.0, 1.0}) == 3);
  // Without interleaving, the stage's bytes times the micro-batches in flight.
  CHECK(stage_activation_peak(plan(1, 4), 0, 8, {2.0}) == 8);
}

TEST_CASE("GPipe holds all micro-batches, so the last stage (with the LM head) needs the most") {
  ParallelConfig c = plan(8, 8);
  c.schedule = PipelineSchedule::GPipe;
  c.flash_attention = false;  // the paper's unfused attention keeps the scores
  c.global_batch = 32 * 4;
  const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), c, 2048, 4, {});
  CHECK(m.pipeline_stage == 7);
  CHECK(m.in_flight_micro_batches == 32);
  const double per_layer = gpt3_layer_bytes(8, false, Recompute::None);
  // 32 micro-batches' LM-head inputs and losses: 31 fp32 softmaxes kept and the last one's peak.
  const double logits = 2048.0 * gpt3_175b().vocab / 8;
  const double head = 32 * head_bytes(gpt3_175b(), 8, false, 2048, 0) + logits * (31 * 4 + 6);
  CHECK(m.activations_bytes == simtrain::testing::Approx(12 * per_layer * 32 + head));
}

TEST_CASE("full recomputation of some layers keeps 2sbh for those and everything for the others") {
  ParallelConfig c = plan(8, 1);
  const auto activations = [&](Recompute recompute, RecomputedLayers layers) {
    c.recompute = recompute;
    c.recompute_layers = layers;
    return estimate_parallel_memory(gpt3_175b(), c, 2048, 1).activations_bytes;
  };
  const double none = activations(Recompute::None, {}), full = activations(Recompute::Full, {});
  // One layer rerun at a time holds its activations again (flash attention: selective recomputation's).
  const double rerun = gpt3_layer_bytes(8, false, Recompute::Selective);
  // A quarter of the 96 layers recomputed: the first 24 of the one chunk, or every 4th.
  CHECK(activations(Recompute::Full, {RecomputedLayers::Rule::FirstOfChunk, 24}) ==
        doctest::Approx(0.25 * (full - rerun) + 0.75 * none + rerun));
  CHECK(activations(Recompute::Full, {RecomputedLayers::Rule::EveryNth, 4}) ==
        doctest::Approx(0.25 * (full - rerun) + 0.75 * none + rerun));
}

TEST_CASE("uniform recomputation in groups keeps each group's input and reruns a group at once") {
  ParallelConfig c = plan(8, 1);
  c.recompute = Recompute::Full;
  const double input = 2 * 2048.0 * 12288, rerun = gpt3_layer_bytes(8, false, Recompute::Selective);
  const double head = head_bytes(gpt3_175b(), 8, false, 2048);
  c.recompute_layers = {RecomputedLayers::Rule::UniformGroups, 4};
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 2048, 1).activations_bytes ==
        doctest::Approx(24 * input + 4 * rerun + head));
  // Groups of 5 over 96 layers: 20 groups, the last of one layer.
  c.recompute_layers.n = 5;
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 2048, 1).activations_bytes ==
        doctest::Approx(20 * input + 5 * rerun + head));
  // Over two pipeline stages of 2 chunks (24 layers each) a group of 32 stops at its chunk's end: one
  // input per chunk for each micro-batch in flight, and one chunk rerun at once.
  c = plan(8, 2);
  c.vpp = 2;
  c.recompute = Recompute::Full;
  c.global_batch = 2;
  c.recompute_layers = {RecomputedLayers::Rule::UniformGroups, 32};
  const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), c, 2048, 1);
  // With 2 micro-batches the last stage, which holds the LM head, needs the most: its chunks in flight
  // keep one input each.
  CHECK(m.pipeline_stage == 1);
  const double chunks = stage_activation_peak(c, 1, 2, {1.0, 1.0});
  CHECK(m.activations_bytes == doctest::Approx(chunks * input + 24 * rerun + head));
}

TEST_CASE("full recomputation keeps 2sbh per layer; context parallelism divides the sequence") {
  ParallelConfig c = plan(8, 1);
  c.recompute = Recompute::Full;
  // Korthikanti et al.'s 2sbh per layer, and the one layer being rerun holding its activations again.
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 2048, 1).activations_bytes ==
        doctest::Approx(96 * 2 * 2048.0 * 12288 + gpt3_layer_bytes(8, false, Recompute::Selective) +
                        head_bytes(gpt3_175b(), 8, false, 2048)));
  c.recompute = Recompute::None;
  c.flash_attention = false;
  c.cp = 2;
  const double head = head_bytes(gpt3_175b(), 8, false, 4096);
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 8192, 1).activations_bytes ==
        doctest::Approx(96 * gpt3_layer_bytes(8, false, Recompute::None, 4096) + head));
  // With a fused (flash) attention kernel no scores are kept: selective recomputation's figure.
  c.flash_attention = true;
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 8192, 1).activations_bytes ==
        doctest::Approx(96 * gpt3_layer_bytes(8, false, Recompute::Selective, 4096) + head));
}

TEST_CASE("the last stage holds the loss over its logits as its implementation keeps them") {
  // Llama-3 8B, one micro-batch of 8,192 tokens on one GPU: 1.05e9 logits of its 128,256 words.
  const TransformerConfig m = *build_model("llama3-8b").transformer;
  const double logits = 8192.0 * 128256;
  ParallelConfig c = plan(1, 1);
  const auto activations = [&](CrossEntropyFusion fusion) {
    c.cross_entropy_fusion = fusion;
    return estimate_parallel_memory(m, c, 8192, 1).activations_bytes;
  };
  const double unfused = activations(CrossEntropyFusion::Unfused);
  // Megatron's jit-fused loss keeps the same fp32 softmax beside the 16-bit logits: 6 bytes a logit.
  CHECK(activations(CrossEntropyFusion::Native) == unfused);
  // Transformer Engine's works in place on the 16-bit logits: 2 bytes, 4 fewer.
  CHECK(activations(CrossEntropyFusion::TransformerEngine) == doctest::Approx(unfused - 4 * logits));
  // PyTorch's cross_entropy over an fp32 copy: 12 bytes in its backward, 6 more (6.3 GB).
  CHECK(activations(CrossEntropyFusion::PyTorch) == doctest::Approx(unfused + 6 * logits));
  // Tensor parallelism splits the vocabulary.
  c.tp = 4;
  c.sp = true;
  const double split = activations(CrossEntropyFusion::Unfused);
  CHECK(activations(CrossEntropyFusion::TransformerEngine) == doctest::Approx(split - 4 * logits / 4));
}

TEST_CASE("a multi-token-prediction module adds its layer, its head and a second loss to the last stage") {
  // DeepSeek-V3's one module at 4,096 tokens, TP 1: its MoE layer as the decoder's last keeps it, its two
  // norms' inputs and its projection's 2h input (4h), its own final norm's and LM head's inputs (2h), and
  // its loss's fp32 softmax kept while the model's loss runs (4 bytes a logit).
  TransformerConfig with = *build_model("deepseek-v3").transformer;
  REQUIRE(with.mtp_layers == 1);
  TransformerConfig without = with;
  without.mtp_layers = 0;
  ParallelConfig c = plan(1, 1);
  c.ep = 8;
  const double hidden = 2 * 4096.0 * with.hidden, logits = 4096.0 * with.vocab;
  const auto added = [&] {
    return estimate_parallel_memory(with, c, 4096, 8).activations_bytes -
           estimate_parallel_memory(without, c, 4096, 8).activations_bytes;
  };
  CHECK(added() ==
        doctest::Approx(layer_activation_bytes(with, with.layers - 1, c, 4096) + 6 * hidden + 4 * logits));
  // Under full recomputation Megatron reruns the module: it keeps its two inputs.
  c.recompute = Recompute::Full;
  CHECK(added() == doctest::Approx(4 * hidden + 4 * logits));
}

TEST_CASE("parameter counts match the published models") {
  // GPT-3 175B without its 2048 x 12288 learned positions: 174.6B.
  const double h = 12288;
  CHECK(estimate_parallel_memory(gpt3_175b(), plan(1, 1), 2048, 1).parameters ==
        96 * (12 * h * h + 13 * h) + 50257 * h + 2 * h);
  CHECK(estimate_parallel_memory(llama2_70b(), plan(1, 1), 4096, 1).parameters == 68'976'648'192);
  CHECK(estimate_parallel_memory(mixtral_8x7b(), plan(1, 1), 4096, 1).parameters == 46'702'792'704);
}

TEST_CASE("tensor parallelism splits linear layers and embeddings, not norms or row-parallel biases") {
  const double h = 12288;
  const double t = 8;
  const double per_layer = 12 * h * h / t + 7 * h / t + 2 * h + 4 * h;  // column biases 3h + 4h split
  const double expected = 96 * per_layer + 50257 * h / t + 2 * h;
  const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), plan(8, 1), 2048, 1);
  CHECK(m.parameters == simtrain::testing::Approx(expected).epsilon(1e-12));
  CHECK(m.weights_bytes == simtrain::testing::Approx(2 * expected).epsilon(1e-12));
}

TEST_CASE("pipeline stages hold layers / pp; the first adds the embedding, the last the LM head copy") {
  const double h = 12288;
  const double layer = 12 * h * h + 13 * h;
  ParallelConfig c = plan(1, 8);
  c.schedule = PipelineSchedule::GPipe;  // equal activations: the larger stage is the last
  const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), c, 2048, 1);
  CHECK(m.pipeline_stage == 7);
  CHECK(m.parameters == 12 * layer + 50257 * h + 2 * h);  // tied head kept again on the last stage
}

TEST_CASE("ZeRO-3 and FSDP shard every model state over data parallelism; hybrid shard within a node") {
  ParallelConfig c = plan(8, 8);
  c.zero = 3;
  const auto states = [&](const ParallelConfig& config, int dp, ParallelMemoryOptions options = {}) {
    const ParallelMemoryEstimate m = estimate_parallel_memory(gpt3_175b(), config, 2048, dp, options);
    return m.weights_bytes + m.gradients_bytes + m.optimizer_states_bytes;
  };
  const double p = estimate_parallel_memory(gpt3_175b(), c, 2048, 1).parameters;
  CHECK(states(c, 16) == simtrain::testing::Approx(16 * p / 16));
  CHECK(states(c, 32) == simtrain::testing::Approx(states(c, 16) / 2));
  c.zero = 0;
  c.fsdp = FsdpMode::FullShard;
  CHECK(states(c, 64) == simtrain::testing::Approx(16 * p / 64));
  c.fsdp = FsdpMode::HybridShard;
  CHECK(states(c, 64) == simtrain::testing::Approx(16 * p / 8));  // default shard group: 8
  ParallelMemoryOptions four;
  four.shard_group = 4;
  CHECK(states(c, 64, four) == simtrain::testing::Approx(16 * p / 4));
  CHECK(states(c, 2) ==
        simtrain::testing::Approx(16 * p / 2));  // a group never exceeds the data-parallel size
}

TEST_CASE("expert parallelism divides the routed experts; their states shard over dp / ep") {
  const double h = 4096;
  const double expert = 3 * h * 14336;
  const double p1 = estimate_parallel_memory(mixtral_8x7b(), plan(1, 1), 4096, 8).parameters;
  ParallelConfig c = plan(1, 1);
  c.ep = 8;
  const ParallelMemoryEstimate m = estimate_parallel_memory(mixtral_8x7b(), c, 4096, 8);
  CHECK(p1 - m.parameters == 32 * 7 * expert);
  // ZeRO-1 over 8 data-parallel ranks: dense states / 8, but each expert lives on one rank of the 8.
  c.zero = 1;
  const ParallelMemoryEstimate z = estimate_parallel_memory(mixtral_8x7b(), c, 4096, 8);
  const double experts = 32 * expert;
  CHECK(z.optimizer_states_bytes == simtrain::testing::Approx(12 * ((z.parameters - experts) / 8 + experts)));
  // The dispatch buffers: the all-to-all's two copies of each token's routed rows (top-2), the all-gather's
  // the gathered tokens of all 8 ranks and the outputs scattered back into as many rows.
  c.zero = 0;
  const double row = 2 * h;  // bf16
  CHECK(estimate_parallel_memory(mixtral_8x7b(), c, 4096, 8).communication_buffers_bytes ==
        2 * 4096 * 2 * row);
  c.moe_dispatcher = TokenDispatcher::AllGather;
  CHECK(estimate_parallel_memory(mixtral_8x7b(), c, 4096, 8).communication_buffers_bytes ==
        2 * 4096 * 8 * row);
}

TEST_CASE("communication buffers: none for plain Megatron, gathered layers for ZeRO-3, fixed workspace") {
  const ParallelMemoryEstimate plain = estimate_parallel_memory(gpt3_175b(), plan(1, 1), 2048, 8);
  CHECK(plain.communication_buffers_bytes == 0);
  CHECK(plain.workspace_bytes == 1024.0 * 1024 * 1024);
  ParallelConfig c = plan(1, 1);
  c.zero = 3;
  const double h = 12288;
  // Two 16-bit layers gathered (current and prefetched) and one layer of 16-bit gradients.
  CHECK(estimate_parallel_memory(gpt3_175b(), c, 2048, 8).communication_buffers_bytes ==
        3 * 2 * (12 * h * h + 13 * h));
  CHECK(plain.total_bytes() ==
        simtrain::testing::Approx(plain.weights_bytes + plain.gradients_bytes + plain.optimizer_states_bytes +
                                  plain.activations_bytes + plain.workspace_bytes));
}

TEST_CASE("a sequence length or data-parallel size below 1 is an error") {
  CHECK_THROWS_WITH_AS(estimate_parallel_memory(gpt3_175b(), plan(8, 1), 0, 1),
                       "--seq-len: must be at least 1, got 0", Error);
  CHECK_THROWS_WITH_AS(estimate_parallel_memory(gpt3_175b(), plan(8, 1), 2048, 0),
                       "--dp: must be at least 1, got 0", Error);
}
