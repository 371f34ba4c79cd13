// Specification of the host thread in front of a Megatron step (ParallelConfig::host): each op costs one
// operator dispatch, Transformer Engine's grouped expert GEMM one per local expert and its quantization a
// launch call more per further local expert, and a dropless MoE layer's host waits for the token counts
// before its dispatch.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "tests/support/megatron_fixtures.h"

#include <string>

#include "common/error.h"
#include "simulator/workload/megatron_trace.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

constexpr double kDispatch = 2e-5, kLaunchCall = 5e-6;

using testing::small_moe;

// Two GPUs, experts split over both (four local experts each), one micro-batch per replica.
ParallelConfig expert_parallel(bool pad_to_capacity) {
  ParallelConfig c = testing::megatron_plan(1, 1, 2, 1);
  c.ep = 2;
  c.fp8 = true;
  c.quant_recipe = QuantRecipe::MXFP8;
  c.moe_pad_to_capacity = pad_to_capacity;
  c.host = HostProfile{.name = "test", .dispatch_per_kernel_s = kDispatch, .launch_call_s = kLaunchCall};
  return c;
}

int stream(const trace::Program& p, const std::string& name) {
  for (std::size_t s = 0; s < p.streams.size(); ++s)
    if (p.streams[s] == name) return static_cast<int>(s);
  return -1;
}

// The host op an op waits for (its dependency on the host stream), or nullptr.
const trace::Op* launch_of(const trace::Program& p, const trace::Op& op) {
  const int host = stream(p, "host");
  for (std::uint32_t dep : op.deps)
    if (p.ops[dep].stream == host) return &p.ops[dep];
  return nullptr;
}

const trace::Op& op_named(const trace::Program& p, const std::string& suffix) {
  for (const trace::Op& op : p.ops)
    if (op.name.size() >= suffix.size() &&
        op.name.compare(op.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return op;
  FAIL("no op named *" << suffix);
  return p.ops.front();
}

}  // namespace

TEST_CASE("without a host profile a Megatron step has no host stream") {
  ParallelConfig c = expert_parallel(false);
  c.host.reset();
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
  CHECK(stream(t.programs[0], "host") < 0);
}

TEST_CASE("every GPU op waits for its launch; a grouped expert GEMM is a dispatch per local expert") {
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", expert_parallel(false));
  const trace::Program& p = t.programs[0];
  REQUIRE(stream(p, "host") >= 0);
  for (const trace::Op& op : p.ops) {
    if (op.compute.kind == trace::ComputeKind::Host && op.type == trace::OpType::Compute) continue;
    INFO(op.name);
    CHECK(launch_of(p, op) != nullptr);
  }
  CHECK(launch_of(p, op_named(p, "layer0.qkv.fwd"))->compute.duration_s == testing::Approx(kDispatch));
  // Four local experts: each GEMM costs the host a dispatch (cuBLASLt's setup), each quantization after
  // the first a bare launch call.
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.fc1.fwd"))->compute.duration_s ==
        testing::Approx(4 * kDispatch));
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.fc2.bwd_weight"))->compute.duration_s ==
        testing::Approx(4 * kDispatch));
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.fc1.fp8_cast"))->compute.duration_s ==
        testing::Approx(kDispatch + 3 * kLaunchCall));
}

TEST_CASE("Megatron-Core's host overhead multiplies each operator dispatch, not what C++ loops launch") {
  ParallelConfig c = expert_parallel(false);
  c.host_overhead = kMegatronCoreHostOverhead;
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
  const trace::Program& p = t.programs[0];
  const double k = kMegatronCoreHostOverhead;
  CHECK(launch_of(p, op_named(p, "layer0.qkv.fwd"))->compute.duration_s == testing::Approx(k * kDispatch));
  // The grouped GEMM's one Python call, then three more experts' GEMMs from Transformer Engine's C++ loop.
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.fc1.fwd"))->compute.duration_s ==
        testing::Approx((k + 3) * kDispatch));
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.fc1.fp8_cast"))->compute.duration_s ==
        testing::Approx(k * kDispatch + 3 * kLaunchCall));
  // Collectives are Python calls too.
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.moe.dispatch_all_to_all"))->compute.duration_s ==
        testing::Approx(k * kDispatch));
}

TEST_CASE("operators counted one by one cost one dispatch each, which the host overhead does not scale") {
  // Expert biases (GPT-OSS's) run Megatron's eager per-expert loop: a multiply and an add per local expert
  // forward, autograd's multiply and sum for each of the two gradients backward.
  TransformerConfig m = small_moe();
  m.bias = true;
  ParallelConfig c = expert_parallel(false);
  c.fp8 = false;
  c.host_overhead = kMegatronCoreHostOverhead;
  const trace::Trace t = generate_megatron_trace(m, "moe", c);
  const trace::Program& p = t.programs[0];
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.out_bias.fwd"))->compute.duration_s ==
        testing::Approx(2 * 4 * kDispatch));
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.out_bias.bwd_data"))->compute.duration_s ==
        testing::Approx(4 * 4 * kDispatch));
  // The concatenation after the loop is one operator with Megatron's Python around it.
  CHECK(launch_of(p, op_named(p, "layer0.moe.experts.out_bias_cat.fwd"))->compute.duration_s ==
        testing::Approx(kMegatronCoreHostOverhead * kDispatch));
}

TEST_CASE("a dropless dispatcher's host waits for the permutation before launching the all-to-alls") {
  for (const bool pad : {false, true}) {
    const trace::Trace t = generate_megatron_trace(small_moe(), "moe", expert_parallel(pad));
    const trace::Program& p = t.programs[0];
    // The routing probabilities' all-to-all is the first the dispatcher launches, then the tokens'.
    const trace::Op& dispatch = op_named(p, "mb0.c0.layer0.moe.probs_all_to_all");
    const trace::Op* launch = launch_of(p, dispatch);
    REQUIRE(launch != nullptr);
    bool waits_for_permute = false;
    for (std::uint32_t dep : launch->deps)
      waits_for_permute |= p.ops[dep].name == "mb0.c0.layer0.moe.permute.fwd";
    CAPTURE(pad);
    CHECK(waits_for_permute == !pad);  // padded to capacity, the shapes are known without reading back
  }
}

TEST_CASE("inside a per-layer CUDA graph the host launches the graph once, not each kernel") {
  ParallelConfig c = expert_parallel(false);
  c.cuda_graphs = *parse_cuda_graphs("transformer_engine", "attn moe_router moe_preprocess");
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
  const trace::Program& p = t.programs[0];
  // The attention block's forward graph: its first op carries the graph's launch, the rest none.
  REQUIRE(launch_of(p, op_named(p, "mb0.c0.layer0.input_norm.fwd")) != nullptr);
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.input_norm.fwd"))->compute.duration_s ==
        testing::Approx(kDispatch));
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.qkv.fwd")) == nullptr);
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.attention.fwd")) == nullptr);
  // The router and the preprocessing are one graph, launched at the block's norm.
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.mlp_norm.fwd")) != nullptr);
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.moe.router.fwd")) == nullptr);
  // The experts stay eager, and the dropless dispatcher still reads the token counts back between graphs.
  CHECK(launch_of(p, op_named(p, "mb0.c0.layer0.moe.experts.fc1.fwd"))->compute.duration_s ==
        testing::Approx(4 * kDispatch));
  bool waits_for_permute = false;
  for (std::uint32_t dep : launch_of(p, op_named(p, "mb0.c0.layer0.moe.probs_all_to_all"))->deps)
    waits_for_permute |= p.ops[dep].name == "mb0.c0.layer0.moe.permute.fwd";
  CHECK(waits_for_permute);
}

TEST_CASE("a full-iteration CUDA graph leaves the host nothing to launch") {
  ParallelConfig c = expert_parallel(false);
  c.cuda_graphs = *parse_cuda_graphs("full_iteration", "");
  const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
  CHECK(stream(t.programs[0], "host") < 0);
}

TEST_CASE("Megatron captures whole MoE blocks only for drop-and-pad MoE") {
  for (const char* scope : {"", "attn moe"}) {
    CAPTURE(scope);
    ParallelConfig c = expert_parallel(false);
    c.cuda_graphs = *parse_cuda_graphs("local", scope);
    CHECK_THROWS_AS(generate_megatron_trace(small_moe(), "moe", c), Error);
    c.moe_pad_to_capacity = true;
    c.capacity_factor = 1;
    const trace::Trace t = generate_megatron_trace(small_moe(), "moe", c);
    // Padded, the layer's whole MLP block is one graph: the experts cost the host nothing of their own.
    CHECK(launch_of(t.programs[0], op_named(t.programs[0], "mb0.c0.layer0.moe.experts.fc1.fwd")) == nullptr);
  }
}

namespace {

// Whether the host op `op` waits for depends on the op named `name` (directly).
bool launch_waits_for(const trace::Program& p, const trace::Op& op, const std::string& name) {
  const trace::Op* launch = launch_of(p, op);
  REQUIRE(launch != nullptr);
  for (std::uint32_t dep : launch->deps)
    if (p.ops[dep].name == name) return true;
  return false;
}

}  // namespace

TEST_CASE("after a batch of pipeline sends and receives the host waits for the device to drain") {
  ParallelConfig c = testing::megatron_plan(1, 2, 1, 4);
  c.host = HostProfile{.name = "test", .dispatch_per_kernel_s = kDispatch};
  const trace::Trace t = generate_megatron_trace(testing::small_gpt(), "gpt-small", c);
  // The second stage's first forward kernel is launched once its activation has arrived; the first stage's
  // second micro-batch once the first one's activation has left and its forward has run.
  const trace::Program& last = t.programs[1];
  CHECK(launch_waits_for(last, op_named(last, "mb0.c0.layer4.input_norm.fwd"), "mb0.c0.recv_activation"));
  const trace::Program& first = t.programs[0];
  const trace::Op& next = op_named(first, "mb1.c0.embedding.embedding.fwd");
  CHECK(launch_waits_for(first, next, "mb0.c0.send_activation"));
  CHECK(launch_waits_for(first, next, "mb0.c0.layer3.mlp.dropout_add.fwd"));
  // Kernels after other kernels follow the host's issue order alone.
  CHECK(launch_of(first, op_named(first, "mb1.c0.layer0.input_norm.fwd"))->deps.empty());

  // batch_p2p_sync off, or the interleaved schedule's overlapped sends and receives: no synchronisation.
  c.batch_p2p_sync = false;
  const trace::Trace unsynced = generate_megatron_trace(testing::small_gpt(), "gpt-small", c);
  CHECK_FALSE(launch_waits_for(unsynced.programs[1],
                               op_named(unsynced.programs[1], "mb0.c0.layer4.input_norm.fwd"),
                               "mb0.c0.recv_activation"));
  c.batch_p2p_sync = true;
  c.vpp = 2;
  const trace::Trace interleaved = generate_megatron_trace(testing::small_gpt(), "gpt-small", c);
  const trace::Program& stage1 = interleaved.programs[1];
  CHECK_FALSE(
      launch_waits_for(stage1, op_named(stage1, "mb0.c0.layer2.input_norm.fwd"), "mb0.c0.recv_activation"));
  CHECK(launch_of(stage1, op_named(stage1, "mb0.c0.recv_activation")) != nullptr);

  // Interleaved without overlap (which Megatron runs on three stages or more), Megatron posts the receives
  // a batch ahead of the passes that use them: they do not wait for the host, the sends still do.
  ParallelConfig four = testing::megatron_plan(1, 4, 1, 4);
  four.host = c.host;
  four.vpp = 2;
  four.overlap_p2p_communication = false;
  const trace::Trace batched = generate_megatron_trace(testing::small_gpt(), "gpt-small", four);
  const trace::Program& second = batched.programs[1];
  CHECK(launch_of(second, op_named(second, "mb0.c0.recv_activation")) == nullptr);
  CHECK(launch_of(second, op_named(second, "mb0.c1.recv_activation")) == nullptr);
  CHECK(launch_of(second, op_named(second, "mb0.c0.send_activation")) != nullptr);
}

namespace {

// The host's time over a program: its host ops' durations.
double host_seconds(const trace::Program& p) {
  const int host = stream(p, "host");
  double total = 0;
  for (const trace::Op& op : p.ops)
    if (op.stream == host) total += op.compute.duration_s;
  return total;
}

}  // namespace

TEST_CASE("a schedule cost per pass is paid once per micro-batch, model chunk and direction") {
  // Two stages of two virtual stages each, four micro-batches: every stage runs 4 x 2 forward and as many
  // backward passes.
  ParallelConfig c = testing::megatron_plan(1, 2, 1, 4);
  c.vpp = 2;
  c.host = HostProfile{.name = "test", .dispatch_per_kernel_s = kDispatch};
  const trace::Trace without = generate_megatron_trace(testing::small_gpt(), "gpt-small", c);
  c.host_pass_overhead = 10;
  const trace::Trace with = generate_megatron_trace(testing::small_gpt(), "gpt-small", c);
  for (std::size_t stage = 0; stage < 2; ++stage) {
    CAPTURE(stage);
    CHECK(host_seconds(with.programs[stage]) - host_seconds(without.programs[stage]) ==
          testing::Approx(16 * 10 * kDispatch));
  }
  // The first stage's first pass begins with its embedding: that launch runs the schedule's Python too.
  CHECK(launch_of(with.programs[0], op_named(with.programs[0], "mb0.c0.embedding.embedding.fwd"))
            ->compute.duration_s == testing::Approx(11 * kDispatch));

  // Receives posted ahead of the host (interleaved without overlap) stay outside the host's order: the pass's
  // Python goes with its next op.
  ParallelConfig four = testing::megatron_plan(1, 4, 1, 4);
  four.host = c.host;
  four.vpp = 2;
  four.overlap_p2p_communication = false;
  four.host_pass_overhead = 10;
  const trace::Trace batched = generate_megatron_trace(testing::small_gpt(), "gpt-small", four);
  const trace::Program& second = batched.programs[1];
  CHECK(launch_of(second, op_named(second, "mb0.c0.recv_activation")) == nullptr);
  CHECK(launch_of(second, op_named(second, "mb0.c0.layer1.input_norm.fwd"))->compute.duration_s ==
        testing::Approx(11 * kDispatch));
}

TEST_CASE("a MoE layer's Python is paid once per forward pass, before its experts; dense layers pay none") {
  ParallelConfig c = expert_parallel(false);
  c.host_overhead = kMegatronCoreHostOverhead;
  const trace::Trace without = generate_megatron_trace(small_moe(), "moe", c);
  c.host_moe_layer_overhead = 10;
  const trace::Trace with = generate_megatron_trace(small_moe(), "moe", c);
  const trace::Program &before = without.programs[0], &after = with.programs[0];
  // Two MoE layers, one micro-batch: two forward passes.
  CHECK(host_seconds(after) - host_seconds(before) == testing::Approx(2 * 10 * kDispatch));
  const auto added = [&](const char* name) {
    return launch_of(after, op_named(after, name))->compute.duration_s -
           launch_of(before, op_named(before, name))->compute.duration_s;
  };
  CHECK(added("layer1.moe.experts.fc1.fp8_cast") == testing::Approx(10 * kDispatch));
  CHECK(added("layer1.moe.experts.fc2.grad.fp8_cast") == testing::Approx(0));

  ParallelConfig dense = testing::megatron_plan(1, 1, 2, 1);
  dense.host = c.host;
  const trace::Trace gpt = generate_megatron_trace(testing::small_gpt(), "gpt-small", dense);
  dense.host_moe_layer_overhead = 10;
  CHECK(host_seconds(generate_megatron_trace(testing::small_gpt(), "gpt-small", dense).programs[0]) ==
        host_seconds(gpt.programs[0]));

  // Captured with the experts in a drop-and-pad MoE block's graph, the Python is replayed with them.
  c.moe_pad_to_capacity = true;
  c.capacity_factor = 1;
  c.cuda_graphs = *parse_cuda_graphs("local", "attn moe");
  const trace::Trace graphed = generate_megatron_trace(small_moe(), "moe", c);
  c.host_moe_layer_overhead = 0;
  CHECK(host_seconds(generate_megatron_trace(small_moe(), "moe", c).programs[0]) ==
        testing::Approx(host_seconds(graphed.programs[0])));
}
