// Specification of one transformer layer's kernels under tensor, sequence, context and expert parallelism:
// GEMM shapes, the TP collectives and their bytes, FP8 dtypes, parameters, and the model-FLOPs formula.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <cmath>

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"
#include "simulator/workload/transformer_kernels.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// GPT-3 175B (Brown et al. 2020; Megatron-LM's configuration).
TransformerConfig gpt3_175b() { return *build_model("gpt3-175b").transformer; }

// Llama-3 70B: GQA with 8 KV heads, SwiGLU MLP, RMSNorm, no biases.
TransformerConfig llama3_70b() { return *build_model("llama3-70b").transformer; }

LayerSharding sharding(int tp, bool sp, int micro_batch = 1, int seq = 2048) {
  LayerSharding s;
  s.micro_batch = micro_batch;
  s.seq_len = seq;
  s.tp = tp;
  s.sp = sp;
  return s;
}

struct CollectiveCount {
  int all_reduce = 0, all_gather = 0, reduce_scatter = 0, all_to_all = 0;
  double bytes = 0;
};

CollectiveCount collectives(const std::vector<LayerStep>& steps) {
  CollectiveCount c;
  for (const LayerStep& s : steps) {
    if (s.type != LayerStep::Type::Collective) continue;
    c.bytes += s.bytes;
    c.all_reduce += s.collective == trace::CollectiveKind::AllReduce;
    c.all_gather += s.collective == trace::CollectiveKind::AllGather;
    c.reduce_scatter += s.collective == trace::CollectiveKind::ReduceScatter;
    c.all_to_all += s.collective == trace::CollectiveKind::AllToAll;
  }
  return c;
}

double flops(const std::vector<LayerStep>& steps, trace::ComputeKind kind) {
  double total = 0;
  for (const LayerStep& s : steps)
    if (s.type != LayerStep::Type::Collective && s.kernel.kind == kind) total += s.kernel.flops;
  return total;
}

const LayerStep& find(const std::vector<LayerStep>& steps, const std::string& name) {
  for (const LayerStep& s : steps)
    if (s.name == name) return s;
  FAIL("no step " << name);
  return steps.front();
}

// Mixtral-like experts on a dense model's layer: 8 experts, 2 per token, each with an FFN of 14,336.
TransformerConfig with_mixtral_experts(TransformerConfig m) {
  m.experts = 8;
  m.experts_per_token = 2;
  m.moe_ffn_hidden = 14336;
  return m;
}

// Those experts on Llama-3 70B's layer of 4096 tokens over EP 4 (TP `tp`, sequence-parallel when above 1),
// dispatched by `dispatcher`.
LayerSteps ep4_mixtral_layer(int tp, TokenDispatcher dispatcher = TokenDispatcher::AllToAll) {
  LayerSharding s = sharding(tp, tp > 1, 1, 4096);
  s.ep = 4;
  s.moe_dispatcher = dispatcher;
  return transformer_layer_steps(with_mixtral_experts(llama3_70b()), s, true);
}

}  // namespace

TEST_CASE(
    "tensor parallelism: two activation all-reduces forward and two input-gradient all-reduces backward") {
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), sharding(8, false), false);
  const double activation = 2048.0 * 12288 * 2;  // tokens x hidden x bf16
  const CollectiveCount forward = collectives(layer.forward), backward = collectives(layer.backward);
  CHECK(forward.all_reduce == 2);
  CHECK(forward.all_gather + forward.reduce_scatter == 0);
  CHECK(forward.bytes == 2 * activation);
  CHECK(backward.all_reduce == 2);
  CHECK(backward.bytes == 2 * activation);
  // The input-gradient all-reduce of a column-parallel linear hides behind its weight-gradient GEMM.
  CHECK(find(layer.backward, "qkv.tp_all_reduce_grad").overlaps_next_kernel);
  CHECK(find(layer.backward, "mlp.fc1.tp_all_reduce_grad").overlaps_next_kernel);
}

TEST_CASE("without the asynchronous TP all-reduce (Megatron-LM 2021) the backward waits for it") {
  LayerSharding s = sharding(8, false);
  s.async_tp_all_reduce = false;
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), s, false);
  CHECK_FALSE(find(layer.backward, "qkv.tp_all_reduce_grad").overlaps_next_kernel);
  CHECK_FALSE(find(layer.backward, "mlp.fc1.tp_all_reduce_grad").overlaps_next_kernel);
  // Same collectives, only the waiting changes.
  CHECK(collectives(layer.backward).bytes ==
        collectives(transformer_layer_steps(gpt3_175b(), sharding(8, false), false).backward).bytes);
  // Sequence parallelism's reduce-scatter always ran under the weight gradient.
  s.sp = true;
  CHECK(find(transformer_layer_steps(gpt3_175b(), s, false).backward, "qkv.sp_reduce_scatter_grad")
            .overlaps_next_kernel);
}

TEST_CASE("without gradient accumulation fusion each weight gradient is added into main_grad by a kernel") {
  const TransformerConfig m = gpt3_175b();
  LayerSharding s = sharding(8, false);
  s.activation = DType::FP16;
  s.gemm = DType::FP16;
  const LayerSteps fused = transformer_layer_steps(m, s, false);
  s.gradient_accumulation_fusion = false;
  s.main_grad_bytes = 2;  // fp16 training without --accumulate-allreduce-grads-in-fp32
  const LayerSteps unfused = transformer_layer_steps(m, s, false);
  const double h = 12288, weights = h * 3 * h / 8;  // the QKV weight shard
  const LayerStep& add = find(unfused.backward, "qkv.grad_accumulate");
  // Reads the 16-bit gradient, reads and writes the accumulator.
  CHECK(add.kernel.bytes == simtrain::testing::Approx(weights * (2 + 2 * 2)));
  CHECK(add.kernel.kind == trace::ComputeKind::Elementwise);
  // One add per weight-gradient GEMM, none with the fusion. The fused GEMM reads and writes the fp32
  // accumulator (C = A B + C); the unfused one only writes its 16-bit gradient.
  int gemms = 0, adds = 0;
  for (const LayerStep& step : unfused.backward) {
    gemms +=
        step.name.find(".bwd_weight") != std::string::npos && step.kernel.kind == trace::ComputeKind::Gemm;
    adds += step.name.find(".grad_accumulate") != std::string::npos;
  }
  CHECK(gemms == 4);
  CHECK(adds == gemms);
  for (const LayerStep& step : fused.backward) CHECK(step.name.find(".grad_accumulate") == std::string::npos);
  CHECK(find(fused.backward, "qkv.bwd_weight").kernel.bytes -
            find(unfused.backward, "qkv.bwd_weight").kernel.bytes ==
        simtrain::testing::Approx(weights * (2 * 4 - 2)));
}

TEST_CASE("unfused attention's backward reads the score gradient in both the Q and the K gradient GEMM") {
  LayerSharding s = sharding(8, false);
  s.flash_attention = false;
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), s, false);
  const double scores = 2048.0 * 2048 * 96 / 8;  // seq x seq per local head
  CHECK(find(layer.backward, "attention.scores.bwd_data").kernel.bytes >= 2 * scores * 2);
  // The forward writes the scores once.
  CHECK(find(layer.forward, "attention.scores.fwd").kernel.bytes < 2 * scores * 2);
}

TEST_CASE("another attention implementation marks the fused attention kernels, the same work as cuDNN's") {
  LayerSharding s = sharding(8, false);
  const LayerSteps engine = transformer_layer_steps(gpt3_175b(), s, false);
  for (const auto implementation :
       {trace::AttentionKernel::FlashAttention2, trace::AttentionKernel::Triton}) {
    s.attention_kernel = implementation;
    const LayerSteps other = transformer_layer_steps(gpt3_175b(), s, false);
    for (const char* name : {"attention.fwd", "attention.bwd_data"}) {
      CAPTURE(name);
      const bool forward = std::string(name).ends_with("fwd");
      const std::vector<LayerStep>& engine_pass = forward ? engine.forward : engine.backward;
      const std::vector<LayerStep>& other_pass = forward ? other.forward : other.backward;
      CHECK(find(engine_pass, name).kernel.attention_kernel == trace::AttentionKernel::Fused);
      trace::ComputeSpec marked = find(other_pass, name).kernel;
      CHECK(marked.attention_kernel == implementation);
      marked.attention_kernel = trace::AttentionKernel::Fused;
      CHECK(marked == find(engine_pass, name).kernel);
    }
  }
}

TEST_CASE("sequence parallelism swaps each all-reduce for a reduce-scatter and an all-gather") {
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), sharding(8, true), false);
  const double activation = 2048.0 * 12288 * 2;
  const CollectiveCount forward = collectives(layer.forward), backward = collectives(layer.backward);
  CHECK(forward.all_reduce == 0);
  CHECK(forward.all_gather == 2);
  CHECK(forward.reduce_scatter == 2);
  CHECK(forward.bytes == 4 * activation);
  // Backward: the output gradients' all-gathers, the re-gathered inputs for the weight gradients, and the
  // input gradients' reduce-scatters.
  CHECK(backward.all_gather == 4);
  CHECK(backward.reduce_scatter == 2);
  // Norms and dropout run on the 1/tp sequence shard.
  CHECK(find(layer.forward, "input_norm.fwd").kernel.shape[0] == 2048 * 12288 / 8);
}

TEST_CASE("a GPT layer's GEMMs are split over TP ranks: 24 h^2 + 4 s h FLOPs per token, / tp") {
  const double h = 12288, s = 2048, tokens = 2 * s;
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), sharding(8, false, 2), false);
  const double gemm = flops(layer.forward, trace::ComputeKind::Gemm);
  const double attention = flops(layer.forward, trace::ComputeKind::Attention);
  CHECK(gemm == simtrain::testing::Approx(tokens * 24 * h * h / 8));
  // A causal flash kernel visits the 136 of 256 tiles (128 x 128) on and below the diagonal: 17/32.
  CHECK(attention == simtrain::testing::Approx(tokens * 4 * s * h / 8 * 17 / 32));
  CHECK(flops(layer.backward, trace::ComputeKind::Gemm) == simtrain::testing::Approx(2 * gemm));
  CHECK(flops(layer.backward, trace::ComputeKind::Attention) == simtrain::testing::Approx(2.5 * attention));
  CHECK(find(layer.forward, "qkv.fwd").kernel.shape == std::vector<std::int64_t>{4096, 3 * 12288 / 8, 12288});
  CHECK(find(layer.forward, "out_proj.fwd").kernel.shape ==
        std::vector<std::int64_t>{4096, 12288, 12288 / 8});
  CHECK(find(layer.backward, "mlp.fc2.bwd_weight").kernel.shape ==
        std::vector<std::int64_t>{12288, 4 * 12288 / 8, 4096});
}

TEST_CASE("grouped-query attention narrows the QKV GEMM; a gated MLP doubles fc1") {
  const LayerSteps layer = transformer_layer_steps(llama3_70b(), sharding(8, true, 1, 8192), false);
  // (64 + 2 x 8) heads x 128 / 8 ranks.
  CHECK(find(layer.forward, "qkv.fwd").kernel.shape == std::vector<std::int64_t>{8192, 1280, 8192});
  CHECK(find(layer.forward, "mlp.fc1.fwd").kernel.shape ==
        std::vector<std::int64_t>{8192, 2 * 28672 / 8, 8192});
  CHECK(find(layer.forward, "rope.fwd").kernel.flops > 0);
}

TEST_CASE("FP8 runs the layer's GEMMs in FP8 with casts, attention and the LM head in 16 bits") {
  LayerSharding s = sharding(4, true);
  s.gemm = DType::FP8;
  const LayerSteps layer = transformer_layer_steps(gpt3_175b(), s, false);
  CHECK(find(layer.forward, "qkv.fwd").kernel.dtype == DType::FP8);
  CHECK(find(layer.backward, "mlp.fc1.bwd_weight").kernel.dtype == DType::FP8);
  CHECK(find(layer.forward, "attention.fwd").kernel.dtype == DType::BF16);
  CHECK(find(layer.forward, "qkv.fp8_cast").kernel.dtype == DType::BF16);
  CHECK(find(lm_head_steps(gpt3_175b(), s).forward, "lm_head.fwd").kernel.dtype == DType::BF16);
}

TEST_CASE("FP8's gradient GEMMs split their accumulator; the forward ones only in the blockwise recipe") {
  LayerSharding s = sharding(4, true);
  s.gemm = DType::FP8;
  for (QuantRecipe recipe : {QuantRecipe::Delayed, QuantRecipe::Tensorwise, QuantRecipe::Blockwise}) {
    CAPTURE(static_cast<int>(recipe));
    s.quant = recipe;
    const LayerSteps layer = transformer_layer_steps(gpt3_175b(), s, false);
    for (const char* name : {"qkv", "out_proj", "mlp.fc1", "mlp.fc2"}) {
      CAPTURE(name);
      const std::string gemm(name);
      CHECK(find(layer.forward, gemm + ".fwd").kernel.split_accumulator ==
            (recipe == QuantRecipe::Blockwise));
      CHECK(find(layer.backward, gemm + ".bwd_data").kernel.split_accumulator);
      CHECK(find(layer.backward, gemm + ".bwd_weight").kernel.split_accumulator);
    }
  }
  // 16-bit GEMMs (here attention's and the LM head's under FP8, and every GEMM in bf16) have no such mode.
  s.quant = QuantRecipe::Tensorwise;
  CHECK_FALSE(find(lm_head_steps(gpt3_175b(), s).backward, "lm_head.bwd_data").kernel.split_accumulator);
  s.gemm = DType::BF16;
  CHECK_FALSE(find(transformer_layer_steps(gpt3_175b(), s, false).backward, "mlp.fc1.bwd_weight")
                  .kernel.split_accumulator);
}

TEST_CASE("the loss moves the bytes per logit of its implementation, with its TP collectives") {
  // Llama-3 70B's 128,256-word vocabulary over 4 TP ranks, 2,048 tokens: bf16 logits (2 bytes).
  const double logits = 2048.0 * 128256 / 4;
  const auto loss = [&](CrossEntropyFusion fusion) {
    LayerSharding s = sharding(4, true);
    s.cross_entropy = fusion;
    return lm_head_steps(llama3_70b(), s);
  };
  const LayerSteps unfused = loss(CrossEntropyFusion::Unfused);
  const LayerSteps native = loss(CrossEntropyFusion::Native);
  const LayerSteps te = loss(CrossEntropyFusion::TransformerEngine);
  // Unfused: the fp32 copy (2 + 4), max 4, subtract 8, exp 8, sum 4, divide 8; backward 8 + (4 + 2).
  CHECK(find(unfused.forward, "cross_entropy.fwd").kernel.bytes == testing::Approx(38 * logits));
  CHECK(find(unfused.backward, "cross_entropy.bwd_data").kernel.bytes == testing::Approx(14 * logits));
  // Native: copy with max (2 + 4), subtract-exp-sum 8, divide 8; backward 4 + 4 + 2.
  CHECK(find(native.forward, "cross_entropy.fwd").kernel.bytes == testing::Approx(22 * logits));
  CHECK(find(native.backward, "cross_entropy.bwd_data").kernel.bytes == testing::Approx(10 * logits));
  // Transformer Engine: two reads of the bf16 logits and the bf16 gradient written over them; backward the
  // in-place scaling, one kernel.
  CHECK(find(te.forward, "cross_entropy.fwd").kernel.bytes == testing::Approx(6 * logits));
  CHECK(find(te.forward, "cross_entropy.fwd").launches == 2);
  CHECK(find(te.backward, "cross_entropy.bwd_data").kernel.bytes == testing::Approx(4 * logits));
  CHECK(find(te.backward, "cross_entropy.bwd_data").launches == 1);
  // PyTorch's cross_entropy: the fp32 copy (2 + 4), log_softmax 16, nll_loss; backward the zero-filled
  // gradient 4, log_softmax's backward 16, the cast back 4 + 2, four kernels.
  const LayerSteps pytorch = loss(CrossEntropyFusion::PyTorch);
  CHECK(find(pytorch.forward, "cross_entropy.fwd").kernel.bytes == testing::Approx(22 * logits));
  CHECK(find(pytorch.backward, "cross_entropy.bwd_data").kernel.bytes == testing::Approx(26 * logits));
  CHECK(find(pytorch.backward, "cross_entropy.bwd_data").launches == 4);
  // Across the 4 TP ranks: three 4-byte all-reduces per token, two (4 and 8 bytes), or one all-gather of
  // each rank's 12 bytes per token.
  const auto loss_collectives = [](const std::vector<LayerStep>& steps) {
    std::vector<LayerStep> own;
    for (const LayerStep& step : steps)
      if (step.name.starts_with("cross_entropy.")) own.push_back(step);
    return collectives(own);
  };
  const CollectiveCount u = loss_collectives(unfused.forward), n = loss_collectives(native.forward),
                        t = loss_collectives(te.forward);
  CHECK(u.all_reduce == 3);
  CHECK(u.bytes == testing::Approx(2048.0 * 12));
  CHECK(n.all_reduce == 2);
  CHECK(n.bytes == testing::Approx(2048.0 * 12));
  CHECK(t.all_reduce == 0);
  CHECK(t.all_gather == 1);
  CHECK(t.bytes == testing::Approx(2048.0 * 12 * 4));
  // The GEMM and the norm do not depend on the loss's implementation.
  CHECK(find(te.forward, "lm_head.fwd").kernel.flops == find(unfused.forward, "lm_head.fwd").kernel.flops);
}

TEST_CASE("context parallelism turns attention into cp ring rounds passing K and V") {
  LayerSharding s = sharding(2, true, 1, 8192);
  s.cp = 4;
  const LayerSteps layer = transformer_layer_steps(llama3_70b(), s, false);
  const LayerStep& ring = find(layer.forward, "attention.fwd");
  CHECK(ring.type == LayerStep::Type::RingAttention);
  // One round: the local 2048 queries against a 2048-key chunk, of which load-balanced causal rounds visit
  // the share of tiles the whole 8192-token square keeps (65/128); K and V of 2048 tokens x 4 KV heads x 128.
  CHECK(ring.kernel.flops == simtrain::testing::Approx(4.0 * 2048 * 2048 * 32 * 128 * 65 / 128));
  CHECK(ring.bytes == 2.0 * 2048 * 4 * 128 * 2);
  CHECK(find(layer.backward, "attention.bwd_data").bytes == 2 * ring.bytes);
  CHECK(find(layer.forward, "qkv.fwd").kernel.shape[0] == 2048);
}

TEST_CASE("an expert-parallel MoE layer dispatches and combines tokens with all-to-alls over EP") {
  const TransformerConfig m = with_mixtral_experts(llama3_70b());
  LayerSharding s = sharding(2, true, 1, 4096);
  s.ep = 4;
  const LayerSteps layer = transformer_layer_steps(m, s, true);
  const CollectiveCount forward = collectives(layer.forward);
  CHECK(forward.all_to_all == 3);  // the tokens there and back, and their routing probabilities
  // Each TP rank routes 4096 / 2 tokens to 2 experts: 4096 slots of hidden x bf16.
  CHECK(find(layer.forward, "moe.dispatch_all_to_all").bytes == 4096.0 * 8192 * 2);
  // Megatron-Core's all-to-all dispatcher's own small messages: each EP rank's int64 token count for each of
  // the 8 experts, gathered on the compute stream, and the 4096 slots' fp32 probabilities; neither cuts the
  // combined 1F1B's pieces.
  const LayerStep& counts = find(layer.forward, "moe.token_counts_all_gather");
  CHECK(counts.bytes == 8.0 * 8 * 4);
  CHECK(counts.on_compute_stream);
  CHECK(counts.dispatcher_control);
  const LayerStep& probs = find(layer.forward, "moe.probs_all_to_all");
  CHECK(probs.bytes == 4096.0 * 4);
  CHECK_FALSE(probs.on_compute_stream);
  CHECK(probs.dispatcher_control);
  CHECK(find(layer.backward, "moe.probs_all_to_all.bwd").bytes == probs.bytes);
  // The rank's 2 local experts process the TP group's 8192 token slots.
  CHECK(find(layer.forward, "moe.experts.fc1.fwd").kernel.flops ==
        simtrain::testing::Approx(2.0 * 8192 * 14336 * 8192));
  CHECK(collectives(layer.backward).all_to_all == 3);
  const PartParameters p = transformer_layer_parameters(m, s, true);
  CHECK(p.expert_per_gpu == simtrain::testing::Approx(8.0 * 3 * 8192 * 14336 / 8));
}

TEST_CASE("padded to capacity the dispatcher gathers no token counts; the flex dispatcher sends no control") {
  const TransformerConfig m = with_mixtral_experts(llama3_70b());
  LayerSharding s = sharding(1, false, 1, 4096);
  s.ep = 4;
  const auto named = [](const LayerSteps& layer, const std::string& name) {
    int count = 0;
    for (const std::vector<LayerStep>* steps : {&layer.forward, &layer.backward})
      for (const LayerStep& step : *steps) count += step.name.starts_with(name);
    return count;
  };
  s.moe_pad_to_capacity = true;
  const LayerSteps padded = transformer_layer_steps(m, s, true);
  CHECK(named(padded, "moe.token_counts_all_gather") == 0);
  CHECK(named(padded, "moe.probs_all_to_all") == 2);
  s.moe_pad_to_capacity = false;
  s.moe_dispatcher = TokenDispatcher::Flex;
  const LayerSteps flex = transformer_layer_steps(m, s, true);
  CHECK(named(flex, "moe.token_counts_all_gather") + named(flex, "moe.probs_all_to_all") == 0);
}

TEST_CASE(
    "under the flex dispatcher the token all-to-alls carry their routing and row size, the bytes unchanged") {
  const LayerSteps nccl = ep4_mixtral_layer(1), flex = ep4_mixtral_layer(1, TokenDispatcher::Flex);
  int routed = 0;
  for (const std::vector<LayerStep>* steps : {&flex.forward, &flex.backward})
    for (const LayerStep& step : *steps) {
      if (step.type != LayerStep::Type::Collective) continue;
      // A row is one token's hidden state (Llama 3 70B's 8,192) in bf16.
      CHECK(step.node_dedup == trace::NodeDedupRouting{.top_k = 2, .experts = 8, .row_bytes = 8192 * 2});
      CHECK(step.bytes == find(step.name.ends_with(".bwd") ? nccl.backward : nccl.forward, step.name).bytes);
      ++routed;
    }
  CHECK(routed == 4);
  CHECK(find(nccl.forward, "moe.dispatch_all_to_all").node_dedup.top_k == 0);
  // HybridEP's kernels run their network and NVLink phases in series; DeepEP's (the default) overlap them.
  LayerSharding s = sharding(1, false, 1, 4096);
  s.ep = 4;
  s.moe_dispatcher = TokenDispatcher::Flex;
  s.moe_flex_backend = FlexBackend::HybridEP;
  const LayerSteps hybrid = transformer_layer_steps(with_mixtral_experts(llama3_70b()), s, true);
  CHECK(find(hybrid.forward, "moe.dispatch_all_to_all").node_dedup.phases_in_series);
  CHECK_FALSE(find(flex.forward, "moe.dispatch_all_to_all").node_dedup.phases_in_series);
}

TEST_CASE("a MoE layer's grouped GEMMs split the arriving tokens evenly over the local experts") {
  const TransformerConfig m = with_mixtral_experts(llama3_70b());
  LayerSharding s = sharding(2, true, 1, 4096);
  s.ep = 4;
  const LayerSteps layer = transformer_layer_steps(m, s, true);
  // 8192 arriving slots over 2 local experts: 4096 rows per expert GEMM; fc1 is gated (2 x 14336 / tp).
  CHECK(find(layer.forward, "moe.experts.fc1.fwd").kernel.shape ==
        std::vector<std::int64_t>{4096, 14336, 8192, 2});
  CHECK(find(layer.backward, "moe.experts.fc1.bwd_data").kernel.shape ==
        std::vector<std::int64_t>{4096, 8192, 14336, 2});
  CHECK(find(layer.backward, "moe.experts.fc2.bwd_weight").kernel.shape ==
        std::vector<std::int64_t>{8192, 7168, 4096, 2});
  // The dense GEMMs keep their three dimensions.
  CHECK(find(layer.forward, "qkv.fwd").kernel.shape.size() == 3);
}

TEST_CASE("the all-to-all dispatcher permutes, sorts by local expert, and mirrors both on the way back") {
  const TransformerConfig m = with_mixtral_experts(llama3_70b());
  LayerSharding s = sharding(2, true, 1, 4096);
  s.ep = 4;
  const LayerSteps layer = transformer_layer_steps(m, s, true);
  // Permute: each of the TP rank's 2048 tokens' rows gathered twice, read and written in bf16.
  CHECK(find(layer.forward, "moe.permute.fwd").kernel.bytes == 2 * 4096.0 * 8192 * 2);
  CHECK(find(layer.backward, "moe.permute.bwd_data").kernel.bytes == 2 * 4096.0 * 8192 * 2);
  // Sorting the 8192 arrived slots (after the TP gather) by expert, and back.
  for (const char* name : {"moe.sort_chunks.fwd", "moe.unsort_chunks.fwd"})
    CHECK(find(layer.forward, name).kernel.bytes == 2 * 8192.0 * 8192 * 2);
  for (const char* name : {"moe.sort_chunks.bwd_data", "moe.unsort_chunks.bwd_data"})
    CHECK(find(layer.backward, name).kernel.bytes == 2 * 8192.0 * 8192 * 2);
  // One local expert per rank needs no sorting.
  s.ep = 8;
  const LayerSteps one_expert = transformer_layer_steps(m, s, true);
  for (const auto& step : one_expert.forward) CHECK(step.name.find("sort_chunks") == std::string::npos);
  // The flex dispatcher permutes once on each side and never sorts by chunk.
  s.ep = 4;
  s.moe_dispatcher = TokenDispatcher::Flex;
  const LayerSteps flex = transformer_layer_steps(m, s, true);
  CHECK(find(flex.forward, "moe.permute.fwd").kernel.bytes == 2 * 4096.0 * 8192 * 2);
  for (const auto* steps : {&flex.forward, &flex.backward})
    for (const auto& step : *steps) CHECK(step.name.find("sort_chunks") == std::string::npos);
}

TEST_CASE("the all-gather dispatcher gathers its ETP x EP group's tokens and reduce-scatters the outputs") {
  const LayerSteps a2a = ep4_mixtral_layer(2), layer = ep4_mixtral_layer(2, TokenDispatcher::AllGather);
  // 2048 tokens per TP rank, gathered over TP (2) then EP (4): 16384 rows of 8192 bf16 values.
  const double row = 8192.0 * 2, gathered = 16384;
  CHECK(find(layer.forward, "moe.dispatch_all_gather.etp").collective == trace::CollectiveKind::AllGather);
  CHECK(find(layer.forward, "moe.dispatch_all_gather.etp").bytes == 4096 * row);
  CHECK(find(layer.forward, "moe.dispatch_all_gather").group == LayerGroup::ExpertParallel);
  CHECK(find(layer.forward, "moe.dispatch_all_gather").bytes == gathered * row);
  CHECK(find(layer.forward, "moe.combine_reduce_scatter").collective == trace::CollectiveKind::ReduceScatter);
  CHECK(find(layer.forward, "moe.combine_reduce_scatter").bytes == gathered * row);
  CHECK(find(layer.backward, "moe.combine_reduce_scatter.bwd").collective ==
        trace::CollectiveKind::AllGather);
  CHECK(find(layer.backward, "moe.dispatch_all_gather.bwd").collective ==
        trace::CollectiveKind::ReduceScatter);
  // The routing: every expert's fp32 probability and its map entry per gathered token; its gradient back.
  CHECK(find(layer.forward, "moe.routing_all_gather").bytes == gathered * 8 * 5);
  CHECK(find(layer.backward, "moe.routing_all_gather.bwd").bytes == gathered * 8 * 4);
  // The 8192 rows routed to the rank's experts come out of the gathered ones, the host reading their count
  // back first; the outputs go into all 16384 rows.
  CHECK(find(layer.forward, "moe.permute.fwd").kernel.bytes == 2 * 8192 * row);
  CHECK(find(layer.forward, "moe.permute.fwd").host_waits);
  CHECK(find(layer.forward, "moe.unpermute.fwd").kernel.bytes == 2 * gathered * row);
  CHECK(find(layer.backward, "moe.permute.bwd_data").kernel.bytes == 2 * gathered * row);
  // The experts compute what they do under the all-to-all dispatcher; nothing goes all-to-all or is sorted.
  CHECK(find(layer.forward, "moe.experts.fc1.fwd").kernel.shape ==
        find(a2a.forward, "moe.experts.fc1.fwd").kernel.shape);
  for (const auto* steps : {&layer.forward, &layer.backward})
    for (const auto& step : *steps) {
      CHECK(step.collective != trace::CollectiveKind::AllToAll);
      CHECK(step.name.find("sort_chunks") == std::string::npos);
    }
}

TEST_CASE("without the op fuser GPT-OSS's experts clamp in PyTorch and add fc2's biases expert by expert") {
  const TransformerConfig m = *build_model("gpt-oss-120b").transformer;
  REQUIRE(m.bias);
  REQUIRE(m.clamped_quick_geglu);
  LayerSharding s = sharding(1, false, 1, 4096);
  s.ep = 8;  // 16 of the 128 experts per rank
  const LayerSteps layer = transformer_layer_steps(m, s, true);
  // 4096 tokens x 4 experts arrive on average; fc1's output is 2 x 2880 wide, fc2's 2880, all bf16.
  const double rows = 4096.0 * 4, halves = rows * 2 * 2880, out = rows * 2880;
  const LayerStep& clamp = find(layer.forward, "moe.experts.act_clamp.fwd");
  CHECK(clamp.kernel.bytes == 2 * halves * 2);  // both halves read and written, by two clamps
  CHECK(clamp.launches == 2);
  CHECK((clamp.recompute & kRecomputeMoeActivation) != 0);
  // The linear offset's blocking copy to the device makes the host wait after the concatenation.
  CHECK(find(layer.forward, "moe.experts.act_clamp_cat.fwd").host_waits);
  CHECK(find(layer.backward, "moe.experts.act_clamp.bwd_data").kernel.bytes == 3 * halves * 2);
  // fc2's biases: a multiply and an add per local expert, each counted as an operator of its own, then one
  // concatenation under Megatron's Python.
  const LayerStep& bias = find(layer.forward, "moe.experts.out_bias.fwd");
  CHECK(bias.kernel.bytes == 4 * out * 2);
  CHECK(bias.launches == 0);
  CHECK(bias.looped_dispatches == 2 * 16);
  CHECK(find(layer.forward, "moe.experts.out_bias_cat.fwd").launches == 1);
  const LayerStep& bias_backward = find(layer.backward, "moe.experts.out_bias.bwd_data");
  CHECK(bias_backward.launches == 0);
  CHECK(bias_backward.looped_dispatches == 4 * 16);
  // In execution order: fc1, clamp, activation, fc2, biases; backward the mirror.
  const auto position = [](const std::vector<LayerStep>& steps, const std::string& name) {
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (steps[i].name == name) return i;
    return steps.size();
  };
  CHECK(position(layer.forward, "moe.experts.act_clamp.fwd") <
        position(layer.forward, "moe.experts.act.fwd"));
  CHECK(position(layer.forward, "moe.experts.out_bias.fwd") > position(layer.forward, "moe.experts.fc2.fwd"));
  CHECK(position(layer.backward, "moe.experts.out_bias.bwd_data") <
        position(layer.backward, "moe.experts.fc2.bwd_data"));
  CHECK(position(layer.backward, "moe.experts.act_clamp.bwd_data") >
        position(layer.backward, "moe.experts.act.bwd_data"));
  // Transformer Engine's op fuser does both inside its fused ops; bias-free experts have neither.
  s.te_op_fuser = true;
  for (const LayerSteps& other :
       {transformer_layer_steps(m, s, true),
        transformer_layer_steps(with_mixtral_experts(llama3_70b()), sharding(1, false), true)})
    for (const std::vector<LayerStep>* steps : {&other.forward, &other.backward})
      for (const LayerStep& step : *steps) {
        CHECK(step.name.find("act_clamp") == std::string::npos);
        CHECK(step.name.find("out_bias") == std::string::npos);
      }
}

TEST_CASE("under YaRN's scaling q and k are rotated by Megatron's unfused code, else by one fused kernel") {
  const TransformerConfig oss = *build_model("gpt-oss-120b").transformer;
  REQUIRE(oss.yarn_scaling_factor == 32);
  const LayerSteps yarn = transformer_layer_steps(oss, sharding(1, false, 1, 4096), true);
  // q: 64 heads, k: 8 heads, of 64 each, bf16; six kernels each forward, five backward.
  const double elements = 4096.0 * (64 + 8) * 64;
  CHECK(find(yarn.forward, "rope.fwd").kernel.bytes == 12 * elements * 2);
  CHECK(find(yarn.forward, "rope.fwd").launches == 24);
  CHECK(find(yarn.backward, "rope.bwd_data").kernel.bytes == 10 * elements * 2);
  CHECK(find(yarn.backward, "rope.bwd_data").launches == 10);
  TransformerConfig plain = oss;
  plain.yarn_scaling_factor = 0;
  const LayerSteps fused = transformer_layer_steps(plain, sharding(1, false, 1, 4096), true);
  CHECK(find(fused.forward, "rope.fwd").kernel.bytes == 2 * elements * 2);
  CHECK(find(fused.forward, "rope.fwd").launches == 1);
  CHECK(find(fused.backward, "rope.bwd_data").launches == 1);
}

TEST_CASE(
    "eagerly (torchtitan uncompiled) RMSNorm, rotary, SwiGLU and the head copies run an ATen kernel per op") {
  const TransformerConfig llama = *build_model("llama3-8b").transformer;  // 32 heads, 8 KV heads, FFN 14,336
  LayerSharding eager_shard = sharding(1, false, 2, 8192);
  eager_shard.eager_pointwise = true;
  const LayerSteps fused = transformer_layer_steps(llama, sharding(1, false, 2, 8192), false);
  const LayerSteps eager = transformer_layer_steps(llama, eager_shard, false);
  const double tokens = 2 * 8192.0, e = 2;
  const double rows = tokens * 4096;  // the norms' elements
  // RMSNorm over x.float(): forward 10 + 8 16-bit units per element in 8 kernels, against the fused 1 + 1;
  // backward 22 + 16 in 12 kernels for the input, 3 + 1 in 2 for the weight.
  CHECK(find(fused.forward, "input_norm.fwd").kernel.bytes == 2 * rows * e);
  CHECK(find(eager.forward, "input_norm.fwd").kernel.bytes == 18 * rows * e);
  CHECK(find(eager.forward, "input_norm.fwd").launches == 8);
  CHECK(find(eager.backward, "input_norm.bwd_data").kernel.bytes == 38 * rows * e);
  CHECK(find(eager.backward, "input_norm.bwd_data").launches == 12);
  CHECK(find(eager.backward, "input_norm.bwd_weight").launches == 2);
  // Rotary through complex numbers: q and k each upcast, multiplied, cast back (5 + 5 units, 3 kernels).
  const double rope = tokens * (32 + 8) * 128;
  CHECK(find(eager.forward, "rope.fwd").kernel.bytes == 10 * rope * e);
  CHECK(find(eager.forward, "rope.fwd").launches == 6);
  CHECK(find(eager.backward, "rope.bwd_data").launches == 6);
  // repeat_kv writes K and V for all 32 heads from 8; backward sums them back.
  const double repeated = 2 * tokens * 32 * 128;
  CHECK(find(eager.forward, "attention.repeat_kv.fwd").kernel.bytes ==
        testing::Approx((0.25 + 1) * repeated * e));
  CHECK(find(eager.backward, "attention.repeat_kv.bwd_data").kernel.bytes ==
        testing::Approx((1 + 0.25) * repeated * e));
  CHECK(find(eager.forward, "attention.contiguous.fwd").kernel.bytes == 2 * tokens * 4096 * e);
  // SwiGLU: silu and a product forward (3 + 2 units per FFN element), three kernels backward (6 + 3).
  const double ffn = tokens * 14336;
  CHECK(find(fused.forward, "mlp.act.fwd").kernel.bytes == 3 * ffn * e);
  CHECK(find(eager.forward, "mlp.act.fwd").kernel.bytes == 5 * ffn * e);
  CHECK(find(eager.forward, "mlp.act.fwd").launches == 2);
  CHECK(find(eager.backward, "mlp.act.bwd_data").kernel.bytes == 9 * ffn * e);
  CHECK(find(eager.backward, "mlp.act.bwd_data").launches == 3);
  // The GEMMs and the attention kernel are the same work either way.
  CHECK(flops(eager.forward, trace::ComputeKind::Gemm) == flops(fused.forward, trace::ComputeKind::Gemm));
  CHECK(flops(eager.forward, trace::ComputeKind::Attention) ==
        flops(fused.forward, trace::ComputeKind::Attention));
  // A LayerNorm model's norms are ATen's one fused kernel eagerly too, and multi-head attention copies no
  // heads.
  LayerSharding gpt_shard = sharding(1, false);
  gpt_shard.eager_pointwise = true;
  const LayerSteps gpt = transformer_layer_steps(gpt3_175b(), gpt_shard, false);
  CHECK(find(gpt.forward, "input_norm.fwd").launches == 1);
  for (const LayerStep& step : gpt.forward) CHECK(step.name != "attention.repeat_kv.fwd");
}

TEST_CASE(
    "torchtitan's op-level checkpointing reruns the pointwise ops and k, the output projection and up") {
  const TransformerConfig llama = *build_model("llama3-8b").transformer;
  LayerSharding shard = sharding(1, false, 2, 8192);
  shard.torchtitan_op_recompute = true;
  LayerSteps layer = transformer_layer_steps(llama, shard, false);
  const RecomputedSteps op{.any = true, .all = false, .modules = kRecomputeTorchtitanOps};
  double forward_gemm = 0, rerun_gemm = 0;
  bool attention_reruns = false, norm_reruns = false;
  for (const LayerStep& step : layer.forward) {
    if (step.type != LayerStep::Type::Kernel) continue;
    const bool gemm = step.kernel.kind == trace::ComputeKind::Gemm;
    if (gemm && kEveryStep.runs(step.recompute, step.recompute_only)) forward_gemm += step.kernel.flops;
    if (gemm && op.runs(step.recompute, step.recompute_only)) rerun_gemm += step.kernel.flops;
    if (step.kernel.kind == trace::ComputeKind::Attention) attention_reruns |= op.runs(step.recompute, false);
    if (step.name == "input_norm.fwd" || step.name == "mlp_norm.fwd")
      norm_reruns |= op.runs(step.recompute, false);
  }
  // The forward pass runs the fused GEMMs alone: q/k/v, the output projection, gate/up, down.
  const double tokens = 2 * 8192.0, h = 4096, kv = 8 * 128.0, ffn = 14336;
  CHECK(forward_gemm == testing::Approx(2 * tokens * h * (h + 2 * kv + h + 2 * ffn + ffn)));
  // Recomputed: k (h x kv), the output projection (h x h) and up (h x ffn); never the attention kernel.
  CHECK(rerun_gemm == testing::Approx(2 * tokens * h * (kv + h + ffn)));
  CHECK_FALSE(attention_reruns);
  CHECK(norm_reruns);
  // Full recomputation reruns the fused GEMMs, never the recompute-only parts.
  for (const LayerStep& step : layer.forward)
    if (step.recompute_only) CHECK_FALSE(kEveryStep.runs(step.recompute, step.recompute_only));
}

TEST_CASE("GPT-3 175B has 12 l h^2 + 13 l h + V h parameters (no learned positions)") {
  const TransformerConfig m = gpt3_175b();
  const LayerSharding s = sharding(8, true);
  const double h = m.hidden, l = m.layers, v = m.vocab;
  const double total = l * transformer_layer_parameters(m, s, false).total +
                       embedding_parameters(m, s).total + lm_head_parameters(m, s, true).total;
  CHECK(total == simtrain::testing::Approx(12 * l * h * h + 13 * l * h + v * h + 2 * h));
  CHECK(total == simtrain::testing::Approx(174.6e9).epsilon(0.001));
  // Per GPU under TP 8: linear weights / 8, the row-parallel biases and norms replicated.
  CHECK(transformer_layer_parameters(m, s, false).per_gpu ==
        simtrain::testing::Approx(12 * h * h / 8 + 7 * h / 8 + 6 * h));
  CHECK(lm_head_parameters(m, s, false).per_gpu == 2 * h);             // tied, same stage: no copy
  CHECK(lm_head_parameters(m, s, true).per_gpu == 2 * h + v * h / 8);  // tied, another stage: a copy
}

TEST_CASE("model FLOPs reproduce Megatron's 72 B s l h^2 (1 + s / 6h + V / 12 l h) for GPT-3 175B") {
  const TransformerConfig m = gpt3_175b();
  const double b = 1536, s = 2048, l = m.layers, h = m.hidden, v = m.vocab;
  const double megatron = 72 * b * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h));
  CHECK(3 * forward_flops_per_token(m, 2048) * b * s == simtrain::testing::Approx(megatron).epsilon(1e-12));
}

TEST_CASE("QK-norm normalizes the local heads' queries and keys in a kernel each, after the projection") {
  const TransformerConfig qwen = *build_model("qwen3-30b-a3b").transformer;
  REQUIRE(qwen.qk_norm);
  // TP 2 at 4,096 tokens: 16 of the 32 query heads and 2 of the 4 key heads, of 128 each, read and written
  // once in bf16 forward; backward reads the gradient and the input and writes the gradient.
  const LayerSteps layer = transformer_layer_steps(qwen, sharding(2, false, 1, 4096), true);
  CHECK(find(layer.forward, "q_norm.fwd").kernel.bytes == 2 * 4096.0 * 16 * 128 * 2);
  CHECK(find(layer.forward, "k_norm.fwd").kernel.bytes == 2 * 4096.0 * 2 * 128 * 2);
  CHECK(find(layer.backward, "q_norm.bwd_data").kernel.bytes == 3 * 4096.0 * 16 * 128 * 2);
  // After the QKV GEMM forward, before its backward.
  const auto at = [](const std::vector<LayerStep>& steps, const std::string& name) {
    for (std::size_t i = 0; i < steps.size(); ++i)
      if (steps[i].name == name) return i;
    return steps.size();
  };
  CHECK(at(layer.forward, "qkv.fwd") < at(layer.forward, "q_norm.fwd"));
  CHECK(at(layer.backward, "q_norm.bwd_data") < at(layer.backward, "qkv.bwd_data"));
  // Models without it have neither kernel.
  const LayerSteps llama = transformer_layer_steps(llama3_70b(), sharding(2, false, 1, 4096), true);
  CHECK(at(llama.forward, "q_norm.fwd") == llama.forward.size());
  CHECK(at(llama.forward, "k_norm.fwd") == llama.forward.size());
}
