// Specification of the Megatron trace generator's structure: rank layout and groups, one program per stage,
// ops per micro-batch, matching pipeline sends and receives, gradient buckets, recomputation, ZeRO-3
// gathers, and metadata. End-to-end replays are in tests/unit/run/megatron_replay_test.cc.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "tests/support/megatron_fixtures.h"

#include <map>
#include <tuple>

#include "common/error.h"
#include "simulator/workload/megatron_stage.h"
#include "simulator/workload/megatron_trace.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

using testing::small_gpt;
workload::ParallelConfig plan(int tp, int pp, int dp, int micro_batches) {
  return testing::megatron_plan(tp, pp, dp, micro_batches);
}

int group(const trace::Trace& t, const std::string& name) {
  for (std::size_t g = 0; g < t.groups.size(); ++g)
    if (t.groups[g].name == name) return static_cast<int>(g);
  return -1;
}

int count(const trace::Program& p, const std::string& prefix, trace::OpType type) {
  int n = 0;
  for (const trace::Op& op : p.ops) n += op.type == type && op.name.rfind(prefix, 0) == 0;
  return n;
}

double collective_bytes(const trace::Program& p, const std::string& substring, trace::CollectiveKind kind) {
  double bytes = 0;
  for (const trace::Op& op : p.ops)
    if (op.type == trace::OpType::Collective && op.collective.kind == kind &&
        op.name.find(substring) != std::string::npos)
      bytes += op.collective.bytes;
  return bytes;
}

}  // namespace

TEST_CASE("ranks are laid out tp fastest, then dp, then pp, with one group family per dimension") {
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", plan(2, 2, 2, 4));
  trace::validate(t, "megatron");
  CHECK(t.world_size == 8);
  using C = std::vector<std::vector<int>>;
  CHECK(t.groups[group(t, "tp")].communicators == C{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  CHECK(t.groups[group(t, "dp")].communicators == C{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(t.groups[group(t, "pp")].communicators == C{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(t.groups[group(t, "cp")].communicators.size() == 8);
  CHECK(group(t, "ep") == -1);
  CHECK(group(t, "embd") == -1);  // untied embeddings
  REQUIRE(t.programs.size() == 2);
  CHECK(t.rank_program == std::vector<std::uint32_t>{0, 0, 0, 0, 1, 1, 1, 1});
}

TEST_CASE("context parallelism sits between tp and dp, and gradients are reduced over dp x cp") {
  ParallelConfig c = plan(2, 1, 2, 2);
  c.cp = 2;
  c.gpus = 8;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  trace::validate(t, "megatron");
  using C = std::vector<std::vector<int>>;
  CHECK(t.groups[group(t, "cp")].communicators == C{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
  CHECK(t.groups[group(t, "dp")].communicators == C{{0, 2, 4, 6}, {1, 3, 5, 7}});
  CHECK(count(t.programs[0], "mb0.c0.layer0.attention.fwd.ring0.send", trace::OpType::Send) == 1);
}

TEST_CASE("each micro-batch runs every layer of the stage forward and backward, with its TP collectives") {
  const TransformerConfig m = small_gpt();
  const trace::Trace t = generate_megatron_trace(m, "gpt-small", plan(2, 2, 2, 4));
  for (int stage = 0; stage < 2; ++stage) {
    const trace::Program& p = t.programs[stage];
    for (int mb = 0; mb < 4; ++mb) {
      const std::string prefix = "mb" + std::to_string(mb) + ".c0.layer" + std::to_string(stage * 4);
      // Per layer: 2 all-reduces forward and 2 backward (no sequence parallelism).
      CHECK(count(p, prefix + ".", trace::OpType::Collective) == 4);
      CHECK(collective_bytes(p, prefix + ".", trace::CollectiveKind::AllReduce) == 4 * 128.0 * 256 * 2);
    }
    CHECK(count(p, "mb3.c0.embedding.", trace::OpType::Compute) == (stage == 0 ? 4 : 0));
    CHECK(count(p, "mb3.c0.lm_head.", trace::OpType::Compute) == (stage == 1 ? 8 : 0));
  }
}

TEST_CASE("every pipeline send has a receive with the same tag and bytes on the peer stage") {
  for (const auto& [pp, vpp, schedule] :
       {std::tuple{2, 1, PipelineSchedule::OneFOneB}, std::tuple{4, 2, PipelineSchedule::OneFOneB},
        std::tuple{4, 1, PipelineSchedule::GPipe}}) {
    ParallelConfig c = plan(1, pp, 1, 8);
    c.vpp = vpp;
    c.schedule = schedule;
    const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
    trace::validate(t, "megatron");
    const int ppg = group(t, "pp");
    // (sender stage, receiver stage, tag) -> bytes, for sends and receives separately.
    std::map<std::tuple<int, int, int>, double> sends, receives;
    int p2p = 0;
    for (int stage = 0; stage < pp; ++stage) {
      for (const trace::Op& op : t.programs[stage].ops) {
        if (op.type != trace::OpType::Send && op.type != trace::OpType::Recv) continue;
        CHECK(op.p2p.group == ppg);
        const int peer = ((stage + op.p2p.peer_offset) % pp + pp) % pp;
        if (op.type == trace::OpType::Send) {
          CHECK(sends.emplace(std::tuple{stage, peer, op.p2p.tag}, op.p2p.bytes).second);
        } else {
          CHECK(receives.emplace(std::tuple{peer, stage, op.p2p.tag}, op.p2p.bytes).second);
        }
        ++p2p;
      }
    }
    CHECK(sends == receives);
    // Each of the 8 micro-batches crosses pp * vpp - 1 boundaries forward and backward.
    CHECK(p2p == 2 * 2 * 8 * (pp * vpp - 1));
  }
}

TEST_CASE("gradient buckets carry the stage's parameters once, reduced after the last micro-batch") {
  const TransformerConfig m = small_gpt();
  ParallelConfig c = plan(2, 2, 2, 4);
  const trace::Trace t = generate_megatron_trace(m, "gpt-small", c);
  const double h = 256, layer = 12 * h * h / 2 + 7 * h / 2 + 6 * h;  // per GPU under TP 2
  const double stage0 = 4 * layer + 1024 * h / 2, stage1 = 4 * layer + 2 * h + 1024 * h / 2;
  // bf16 training reduces fp32 gradients: 4 bytes per parameter; all buckets in the last micro-batch.
  CHECK(collective_bytes(t.programs[0], "grad_all_reduce", trace::CollectiveKind::AllReduce) ==
        simtrain::testing::Approx(4 * stage0));
  CHECK(collective_bytes(t.programs[1], "grad_all_reduce", trace::CollectiveKind::AllReduce) ==
        simtrain::testing::Approx(4 * stage1));
  CHECK(collective_bytes(t.programs[0], "mb3.", trace::CollectiveKind::AllReduce) >= 4 * stage0);

  c.distributed_optimizer = true;
  const trace::Trace d = generate_megatron_trace(m, "gpt-small", c);
  CHECK(collective_bytes(d.programs[0], "grad_reduce_scatter", trace::CollectiveKind::ReduceScatter) ==
        simtrain::testing::Approx(4 * stage0));
  CHECK(collective_bytes(d.programs[0], "param_all_gather", trace::CollectiveKind::AllGather) ==
        simtrain::testing::Approx(2 * stage0));
  CHECK(d.metadata.parallelism == "tp2 pp2 vpp1 dp2 dist-opt");

  // --grad-reduce-in-bf16 (Megatron-Bridge's performance recipes): 2 bytes per parameter.
  c.grad_reduce_in_bf16 = true;
  const trace::Trace b = generate_megatron_trace(m, "gpt-small", c);
  CHECK(collective_bytes(b.programs[0], "grad_reduce_scatter", trace::CollectiveKind::ReduceScatter) ==
        simtrain::testing::Approx(2 * stage0));

  // --fp8-param-gather under FP8 training: the weights are gathered in FP8, one byte per parameter.
  c.fp8 = true;
  c.fp8_param_gather = true;
  const trace::Trace f = generate_megatron_trace(m, "gpt-small", c);
  CHECK(collective_bytes(f.programs[0], "param_all_gather", trace::CollectiveKind::AllGather) ==
        simtrain::testing::Approx(stage0));
}

TEST_CASE("without overlap the gradient buckets are reduced after the stage's last backward kernel") {
  ParallelConfig c = plan(2, 2, 2, 4);
  // Index of the last backward kernel (the one before the optimizer step) and of each bucket reduction.
  const auto positions = [](const trace::Program& p) {
    std::size_t last_backward = 0, first_bucket = p.ops.size();
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      if (p.ops[i].type == trace::OpType::Compute && p.ops[i].name != "optimizer.step") last_backward = i;
      if (p.ops[i].name.find("grad_all_reduce") != std::string::npos)
        first_bucket = std::min(first_bucket, i);
    }
    return std::pair{last_backward, first_bucket};
  };
  // Layers of 4096 hidden hold 100M parameters per TP rank: every layer fills a 40M-parameter bucket.
  TransformerConfig m = small_gpt();
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.ffn_hidden = 16384;
  const trace::Trace overlapped = generate_megatron_trace(m, "gpt-wide", c);
  c.overlap_grad_reduce = false;
  const trace::Trace after = generate_megatron_trace(m, "gpt-wide", c);
  trace::validate(after, "megatron");
  for (int stage = 0; stage < 2; ++stage) {
    const auto [last_o, bucket_o] = positions(overlapped.programs[stage]);
    CHECK(bucket_o < last_o);  // launched while the last micro-batch's backward runs
    const trace::Program& p = after.programs[stage];
    const auto [last, bucket] = positions(p);
    CHECK(bucket > last);
    for (const trace::Op& op : p.ops)
      if (op.name.find("grad_all_reduce") != std::string::npos)
        CHECK(op.deps == std::vector<std::uint32_t>{static_cast<std::uint32_t>(last)});
    // The same bytes are reduced either way.
    CHECK(collective_bytes(p, "grad_all_reduce", trace::CollectiveKind::AllReduce) ==
          simtrain::testing::Approx(collective_bytes(overlapped.programs[stage], "grad_all_reduce",
                                                     trace::CollectiveKind::AllReduce)));
  }
}

TEST_CASE("without SP a received tensor is all-gathered over the TP group before use (scatter/gather)") {
  ParallelConfig c = plan(2, 2, 1, 4);
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  const trace::Program& p = t.programs[1];
  const double slice = 128.0 * 256 * 2 / 2;  // tokens x hidden x bf16, one TP rank's half
  int gathers = 0;
  for (std::size_t i = 0; i < p.ops.size(); ++i) {
    const trace::Op& op = p.ops[i];
    if (op.name.find(".tp_all_gather") == std::string::npos) continue;
    ++gathers;
    CHECK(op.collective.kind == trace::CollectiveKind::AllGather);
    CHECK(op.collective.bytes == 2 * slice);
    REQUIRE(op.deps.size() == 1);
    CHECK(p.ops[op.deps[0]].type == trace::OpType::Recv);
    CHECK(p.ops[op.deps[0]].p2p.bytes == slice);
  }
  CHECK(gathers == count(p, "mb", trace::OpType::Recv));  // one per receive
  CHECK(gathers == 4);                                    // stage 1 receives 4 activations
  c.sp = true;
  const trace::Trace sp = generate_megatron_trace(small_gpt(), "gpt-small", c);
  for (const trace::Op& op : sp.programs[1].ops)
    CHECK(op.name.find("recv_activation.tp_all_gather") == std::string::npos);
}

TEST_CASE("the optimizer step moves Megatron's mixed-precision passes over each parameter") {
  ParallelConfig c = plan(1, 1, 1, 1);
  megatron::StagePlan plan16;
  plan16.config = &c;
  c.precision = Precision::AMP_BF16;
  plan16.grad_bytes = 4;
  plan16.param_bytes = 2;
  // bf16: Adam (28), gradient norm (4), fp32 -> bf16 parameter copy (4 + 2), zeroing fp32 gradients (4).
  CHECK(megatron::optimizer_bytes_per_parameter(plan16) == 28 + 4 + 6 + 4);
  // fp16: gradients in 16 bits are first copied into fp32 (2 + 4) and unscaled (8).
  c.precision = Precision::AMP_FP16;
  plan16.grad_bytes = 2;
  CHECK(megatron::optimizer_bytes_per_parameter(plan16) == 28 + 6 + 8 + 4 + 6 + 2);
  // fp32 training: Adam, the norm and zeroing only.
  c.precision = Precision::FP32;
  plan16.grad_bytes = 4;
  plan16.param_bytes = 4;
  CHECK(megatron::optimizer_bytes_per_parameter(plan16) == 28 + 4 + 4);
}

TEST_CASE("full recomputation reruns each layer's forward before its backward; selective only attention") {
  ParallelConfig c = plan(2, 1, 1, 1);
  const auto recomputed = [&](Recompute r) {
    c.recompute = r;
    const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
    return std::pair{count(t.programs[0], "mb0.c0.layer3.recompute.", trace::OpType::Compute),
                     count(t.programs[0], "mb0.c0.layer3.recompute.", trace::OpType::Collective)};
  };
  const int forward_kernels = count(generate_megatron_trace(small_gpt(), "g", c).programs[0],
                                    "mb0.c0.layer3.", trace::OpType::Compute);
  CHECK(recomputed(Recompute::None) == std::pair{0, 0});
  CHECK(recomputed(Recompute::Selective) == std::pair{1, 0});
  const auto full = recomputed(Recompute::Full);
  CHECK(full.second == 2);  // the forward's two TP all-reduces run again
  CHECK(full.first > 5);
  CHECK(full.first < forward_kernels);
}

TEST_CASE("full recomputation of some layers: the first n of each model chunk, or every n-th of a rank's") {
  // 8 layers over 2 ranks x 2 virtual stages: rank 0 runs layers 0 and 1 (chunk 0), then 4 and 5 (chunk 1).
  ParallelConfig c = plan(1, 2, 1, 2);
  c.vpp = 2;
  c.schedule = PipelineSchedule::Interleaved;
  c.recompute = Recompute::Full;
  const auto recomputed_layers = [&](RecomputedLayers layers) {
    c.recompute_layers = layers;
    const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
    std::vector<int> out;
    for (const auto& [chunk, layer] : {std::pair{0, 0}, {0, 1}, {1, 4}, {1, 5}})
      if (count(t.programs[0],
                "mb0.c" + std::to_string(chunk) + ".layer" + std::to_string(layer) + ".recompute.",
                trace::OpType::Compute) > 0)
        out.push_back(layer);
    return out;
  };
  CHECK(recomputed_layers({}) == std::vector<int>{0, 1, 4, 5});
  CHECK(recomputed_layers({RecomputedLayers::Rule::FirstOfChunk, 1}) == std::vector<int>{0, 4});
  CHECK(recomputed_layers({RecomputedLayers::Rule::EveryNth, 2}) == std::vector<int>{1, 5});
  CHECK(recomputed_layers({RecomputedLayers::Rule::EveryNth, 3}) == std::vector<int>{4});
}

TEST_CASE("ZeRO-3 gathers every layer's parameters for each forward and backward and reduce-scatters") {
  ParallelConfig c = plan(1, 1, 4, 2);
  c.zero = 3;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  trace::validate(t, "megatron");
  const trace::Program& p = t.programs[0];
  // 8 layers + embedding + LM head, 2 micro-batches, forward and backward.
  CHECK(count(p, "mb", trace::OpType::Collective) == 10 * 2 * 3);
  CHECK(count(p, "bucket", trace::OpType::Collective) == 0);
  CHECK(t.metadata.parallelism == "tp1 pp1 vpp1 dp4 zero3");
}

TEST_CASE("ZeRO-2 reduce-scatters gradients after every micro-batch and gathers parameters once") {
  ParallelConfig c = plan(1, 1, 4, 3);
  c.zero = 2;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  const trace::Program& p = t.programs[0];
  // The small model fits one bucket: one reduce-scatter per micro-batch, one all-gather after the step.
  for (const char* mb : {"mb0.", "mb1.", "mb2."})
    CHECK(count(p, std::string(mb) + "c0.bucket", trace::OpType::Collective) == 1);
  CHECK(count(p, "bucket0.param_all_gather", trace::OpType::Collective) == 1);
  CHECK(collective_bytes(p, "param_all_gather", trace::CollectiveKind::AllGather) > 0);
  // DeepSpeed reduces 16-bit gradients: 2 bytes per parameter.
  const double h = 256, parameters = 8 * (12 * h * h + 13 * h) + 2 * 1024 * h + 2 * h;
  CHECK(collective_bytes(p, "mb2.", trace::CollectiveKind::ReduceScatter) ==
        simtrain::testing::Approx(2 * parameters));
}

TEST_CASE("FP8 training runs the layers' GEMMs in FP8 and says so in the parallelism string") {
  ParallelConfig c = plan(2, 1, 1, 1);
  c.fp8 = true;
  c.sp = true;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  int fp8 = 0;
  for (const trace::Op& op : t.programs[0].ops)
    fp8 += op.type == trace::OpType::Compute && op.compute.dtype == DType::FP8;
  CHECK(fp8 == 8 * 3 * 4);  // 8 layers x (forward, data and weight gradient) x 4 GEMMs
  CHECK(t.metadata.parallelism == "tp2 sp pp1 vpp1 dp1 fp8");
  CHECK(t.metadata.compute_dtype == DType::BF16);
}

TEST_CASE(
    "each quantization recipe launches its casts: amax passes for current scaling and NVFP4, FP4 GEMMs") {
  const auto casts = [](QuantRecipe recipe, int& amax, int& fp4_gemms) {
    ParallelConfig c = plan(1, 1, 1, 1);
    c.fp8 = true;
    c.quant_recipe = recipe;
    const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
    amax = 0;
    fp4_gemms = 0;
    double cast_bytes = 0;
    for (const trace::Op& op : t.programs[0].ops) {
      if (op.type != trace::OpType::Compute) continue;
      fp4_gemms += op.compute.dtype == DType::FP4 && op.compute.kind == trace::ComputeKind::Gemm;
      amax += op.name.find(".amax") != std::string::npos;
      if (op.name.find("_cast") != std::string::npos) cast_bytes += op.compute.bytes;
    }
    return cast_bytes;
  };
  int amax = 0, fp4 = 0;
  const double delayed = casts(QuantRecipe::Delayed, amax, fp4);
  CHECK(amax == 0);
  CHECK(fp4 == 0);
  const double tensorwise = casts(QuantRecipe::Tensorwise, amax, fp4);
  CHECK(amax == 8 * 2 * 4);  // 8 layers x (activation, output gradient) x 4 GEMMs
  CHECK(tensorwise ==
        simtrain::testing::Approx(delayed));  // the same cast; the amax pass is a kernel of its own
  // MXFP8 adds an e8m0 scale per 32 elements in each direction to the bf16 read and two FP8 copies.
  CHECK(casts(QuantRecipe::MXFP8, amax, fp4) == simtrain::testing::Approx(delayed * (2 + 2 + 2.0 / 32) / 4));
  // NVFP4: two 4-bit copies and an e4m3 scale per 16 elements each, after an amax pass; FP4 GEMMs.
  CHECK(casts(QuantRecipe::NVFP4, amax, fp4) == simtrain::testing::Approx(delayed * (2 + 1 + 2.0 / 16) / 4));
  CHECK(amax == 8 * 2 * 4);
  CHECK(fp4 == 8 * 3 * 4);
}

TEST_CASE("--first-last-layers-bf16 keeps the first and last layers' GEMMs in 16 bits, without casts") {
  ParallelConfig c = plan(1, 2, 1, 1);
  c.fp8 = true;
  c.quant_recipe = QuantRecipe::MXFP8;
  c.bf16_layers_at_start = 1;
  c.bf16_layers_at_end = 2;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  std::map<int, std::map<DType, int>> gemms;  // by layer: GEMMs of each dtype
  std::map<int, int> casts;
  for (const trace::Program& program : t.programs)
    for (const trace::Op& op : program.ops) {
      const std::size_t at = op.name.find(".layer");
      if (op.type != trace::OpType::Compute || at == std::string::npos) continue;
      const int layer = std::stoi(op.name.substr(at + 6));
      if (op.compute.kind == trace::ComputeKind::Gemm) ++gemms[layer][op.compute.dtype];
      casts[layer] += op.name.find("_cast") != std::string::npos;
    }
  REQUIRE(gemms.size() == 8);
  for (const auto& [layer, by_dtype] : gemms) {
    CAPTURE(layer);
    const bool sixteen_bit = layer == 0 || layer >= 6;  // pipeline rank 0's first, rank 1's last two
    CHECK(by_dtype.size() == 1);
    CHECK(by_dtype.begin()->first == (sixteen_bit ? DType::BF16 : DType::FP8));
    CHECK(by_dtype.begin()->second == 3 * 4);  // (forward, data and weight gradient) x 4 GEMMs
    CHECK((casts[layer] == 0) == sixteen_bit);
  }
}

TEST_CASE("the multi-token-prediction module runs FP8 GEMMs under FP8 but 16-bit ones under NVFP4") {
  TransformerConfig m = small_gpt();
  m.mtp_layers = 1;
  const auto mtp_gemm_dtypes = [&](QuantRecipe recipe) {
    ParallelConfig c = plan(1, 1, 1, 1);
    c.fp8 = true;
    c.quant_recipe = recipe;
    std::map<DType, int> dtypes;
    const trace::Trace t = generate_megatron_trace(m, "gpt-small-mtp", c);
    for (const trace::Op& op : t.programs[0].ops)
      if (op.type == trace::OpType::Compute && op.compute.kind == trace::ComputeKind::Gemm &&
          op.name.find("mtp0.") != std::string::npos)
        ++dtypes[op.compute.dtype];
    return dtypes;
  };
  // The module's layer (4 GEMMs), its eh_proj and the shared LM head, forward and two gradients each.
  CHECK(mtp_gemm_dtypes(QuantRecipe::MXFP8) == std::map<DType, int>{{DType::FP8, 3 * 5}, {DType::BF16, 3}});
  CHECK(mtp_gemm_dtypes(QuantRecipe::NVFP4) == std::map<DType, int>{{DType::BF16, 3 * 6}});
  // keep_mtp_spec_in_bf16 (Nemotron 3.5 Lightning's recipes) keeps them 16-bit under FP8 too.
  m.mtp_bf16 = true;
  CHECK(mtp_gemm_dtypes(QuantRecipe::MXFP8) == std::map<DType, int>{{DType::BF16, 3 * 6}});
}

TEST_CASE("tied embeddings across stages add an all-reduce group of the first and last stage") {
  TransformerConfig m = small_gpt();
  m.tied_embeddings = true;
  const trace::Trace t = generate_megatron_trace(m, "gpt-small", plan(2, 4, 1, 4));
  const int embd = group(t, "embd");
  REQUIRE(embd >= 0);
  CHECK(t.groups[embd].communicators == std::vector<std::vector<int>>{{0, 6}, {1, 7}});
  CHECK(count(t.programs[0], "tied_embedding", trace::OpType::Collective) == 1);
  CHECK(count(t.programs[3], "tied_embedding", trace::OpType::Collective) == 1);
  CHECK(count(t.programs[1], "tied_embedding", trace::OpType::Collective) == 0);
}

TEST_CASE("metadata: samples, tokens, model FLOPs and the parallelism string") {
  ParallelConfig c = plan(2, 2, 2, 4);
  c.sp = true;
  c.recompute = Recompute::Selective;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  CHECK(t.metadata.generator == "simtrain workload megatron");
  CHECK(t.metadata.parallelism == "tp2 sp pp2 vpp1 dp2 recompute-selective");
  CHECK(t.metadata.samples_per_iteration == 8);
  CHECK(t.metadata.tokens_per_iteration == 8 * 128);
  const double h = 256, l = 8, s = 128, v = 1024;
  CHECK(t.metadata.model_flops_per_iteration ==
        simtrain::testing::Approx(72 * 8 * s * l * h * h * (1 + s / (6 * h) + v / (12 * l * h))));
  CHECK(t.metadata.peak_memory_bytes > 0);
}

TEST_CASE("invalid plans end with an Error naming the constraint") {
  ParallelConfig c = plan(3, 1, 1, 1);  // 8 heads over 3 TP ranks
  CHECK_THROWS_AS(generate_megatron_trace(small_gpt(), "gpt-small", c), Error);
  c = plan(2, 2, 1, 3);
  c.vpp = 2;  // interleaving needs micro-batches in multiples of pp
  CHECK_THROWS_AS(generate_megatron_trace(small_gpt(), "gpt-small", c), Error);
  c = plan(2, 1, 1, 1);
  c.seq_len = 0;
  CHECK_THROWS_AS(generate_megatron_trace(small_gpt(), "gpt-small", c), Error);
}
