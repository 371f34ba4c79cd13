// Specification of the Megatron generator's communication overlaps: Transformer Engine's userbuffers
// (--tp-comm-overlap), the distributed optimizer's parameter gather under the next forward pass
// (--overlap-param-gather), asynchronous pipeline sends of the interleaved schedule
// (--overlap-p2p-communication) and the combined 1F1B's expert-parallel all-to-alls under another
// micro-batch's kernels (--overlap-moe-expert-parallel-comm). Their effect on simulated time is in
// tests/cli/overlap.sh.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "tests/support/megatron_fixtures.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "simulator/workload/megatron_trace.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

using testing::small_gpt;

const trace::Op* find(const trace::Program& p, const std::string& name) {
  for (const trace::Op& op : p.ops)
    if (op.name == name) return &op;
  return nullptr;
}

std::uint32_t index_of(const trace::Program& p, const std::string& name) {
  for (std::size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].name == name) return static_cast<std::uint32_t>(i);
  FAIL("no op named " << name);
  return 0;
}

bool depends_on(const trace::Op& op, std::uint32_t dep) {
  return std::find(op.deps.begin(), op.deps.end(), dep) != op.deps.end();
}

}  // namespace

TEST_CASE("userbuffers: the all-gather before a column-parallel GEMM gates the kernel after that GEMM") {
  ParallelConfig c = testing::megatron_plan(2, 1, 1, 1);
  c.sp = true;
  c.tp_comm_overlap = true;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  trace::validate(t, "megatron");
  const trace::Program& p = t.programs[0];
  const std::string layer = "mb0.c0.layer0.";
  const std::uint32_t gather = index_of(p, layer + "qkv.sp_all_gather");
  const std::uint32_t gemm = index_of(p, layer + "qkv.fwd");
  CHECK(!depends_on(p.ops[gemm], gather));  // the GEMM starts on the local chunk
  bool gated = false;                       // ... and the next kernel needs the whole input
  for (std::uint32_t i = gemm + 1; i < p.ops.size() && !gated; ++i)
    if (p.ops[i].type == trace::OpType::Compute) gated = depends_on(p.ops[i], gather);
  CHECK(gated);
  // The full activation is gathered, as without the overlap.
  CHECK(p.ops[gather].collective.bytes == simtrain::testing::Approx(128.0 * 256 * 2));
}

TEST_CASE("userbuffers: a reduce-scatter's first tp - 1 chunks run under its GEMM, the last after it") {
  ParallelConfig c = testing::megatron_plan(4, 1, 1, 1);
  c.sp = true;
  c.tp_comm_overlap = true;
  const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
  const trace::Program& p = t.programs[0];
  const std::string rs = "mb0.c0.layer0.out_proj.sp_reduce_scatter";
  const trace::Op* chunks = find(p, rs + ".chunks");
  const trace::Op* last = find(p, rs + ".last_chunk");
  REQUIRE(chunks);
  REQUIRE(last);
  const double whole = 128.0 * 256 * 2;
  CHECK(chunks->collective.bytes == simtrain::testing::Approx(whole * 3 / 4));
  CHECK(last->collective.bytes == simtrain::testing::Approx(whole / 4));
  const std::uint32_t gemm = index_of(p, "mb0.c0.layer0.out_proj.fwd");
  CHECK(!depends_on(*chunks, gemm));  // not after the GEMM: beside it
  CHECK(depends_on(*last, gemm));
  // Without userbuffers: one reduce-scatter after the GEMM.
  c.tp_comm_overlap = false;
  const trace::Trace plain = generate_megatron_trace(small_gpt(), "gpt-small", c);
  CHECK(find(plain.programs[0], rs) != nullptr);
  CHECK(find(plain.programs[0], rs + ".chunks") == nullptr);
}

TEST_CASE("userbuffers need sequence parallelism") {
  ParallelConfig c = testing::megatron_plan(2, 1, 1, 1);
  c.tp_comm_overlap = true;
  CHECK_THROWS_WITH_AS(generate_megatron_trace(small_gpt(), "gpt-small", c),
                       doctest::Contains("--tp-comm-overlap"), Error);
}

TEST_CASE("overlapped parameter gathers: issued at the step's start, each before its bucket's first layer") {
  ParallelConfig c = testing::megatron_plan(1, 1, 4, 2);
  c.distributed_optimizer = true;
  // Layers of 4096 hidden hold 200M parameters: every layer closes a 40M-parameter bucket of its own.
  TransformerConfig m = small_gpt();
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 32;
  m.ffn_hidden = 16384;
  const trace::Trace t = generate_megatron_trace(m, "gpt-wide", c);
  trace::validate(t, "megatron");
  const trace::Program& p = t.programs[0];
  int gathers = 0;
  double gathered = 0;
  for (const trace::Op& op : p.ops) {
    if (op.name.find("param_all_gather") == std::string::npos) continue;
    ++gathers;
    gathered += op.collective.bytes;
    CHECK(op.deps.empty());  // the previous step's update: nothing of this step to wait for
    CHECK(p.streams[op.stream] == "dp_gather");
  }
  // Every layer closes a bucket; the small LM head shares the last layer's, the embedding is the chunk's
  // rest.
  CHECK(gathers == m.layers + 1);
  // The first layer's forward waits for its bucket; the gathers come in forward order.
  const trace::Op* layer0 = find(p, "mb0.c0.layer0.input_norm.fwd");
  REQUIRE(layer0);
  bool waits = false;
  for (std::uint32_t d : layer0->deps)
    waits = waits || p.ops[d].name.find("param_all_gather") != std::string::npos;
  CHECK(waits);
  // The same bytes as the gathers after the optimizer step without the overlap.
  c.overlap_param_gather = false;
  const trace::Trace after = generate_megatron_trace(m, "gpt-wide", c);
  double after_bytes = 0;
  for (const trace::Op& op : after.programs[0].ops)
    if (op.name.find("param_all_gather") != std::string::npos) {
      after_bytes += op.collective.bytes;
      CHECK(!op.deps.empty());  // after the optimizer step
    }
  CHECK(after_bytes == simtrain::testing::Approx(gathered));
}

TEST_CASE("interleaved pipelines send asynchronously unless told not to") {
  ParallelConfig c = testing::megatron_plan(1, 4, 1, 4);  // blocking sends need three stages or more
  c.vpp = 2;
  c.schedule = PipelineSchedule::Interleaved;
  const auto sends_gate_kernels = [&] {
    const trace::Trace t = generate_megatron_trace(small_gpt(), "gpt-small", c);
    trace::validate(t, "megatron");
    const trace::Program& p = t.programs[0];
    for (const trace::Op& op : p.ops)
      if (op.type == trace::OpType::Compute)
        for (std::uint32_t d : op.deps)
          if (p.ops[d].type == trace::OpType::Send) return true;
    return false;
  };
  CHECK(!sends_gate_kernels());
  c.overlap_p2p_communication = false;
  CHECK(sends_gate_kernels());
}

namespace {

// Index of the first compute op after `from` (program order), or the program's size.
std::uint32_t next_kernel(const trace::Program& p, std::uint32_t from) {
  for (std::uint32_t i = from + 1; i < p.ops.size(); ++i)
    if (p.ops[i].type == trace::OpType::Compute) return i;
  return static_cast<std::uint32_t>(p.ops.size());
}

bool starts_with(const std::string& name, const std::string& prefix) { return name.rfind(prefix, 0) == 0; }

// Four expert-parallel ranks of small_moe, three micro-batches each.
ParallelConfig expert_parallel_plan() {
  ParallelConfig c = testing::megatron_plan(1, 1, 4, 3);
  c.ep = 4;
  return c;
}

}  // namespace

TEST_CASE("combined 1F1B: a forward's all-to-all flies while another micro-batch's backward computes") {
  ParallelConfig c = expert_parallel_plan();
  c.overlap_moe_expert_parallel_comm = true;
  const trace::Trace t = generate_megatron_trace(testing::small_moe(), "moe-small", c);
  trace::validate(t, "megatron");
  const trace::Program& p = t.programs[0];
  // The order F0, then F1 with B0: micro-batch 1's forward starts before micro-batch 0's backward.
  CHECK(index_of(p, "mb1.c0.layer0.input_norm.fwd") < index_of(p, "mb0.c0.lm_head.lm_head.bwd_data"));
  const std::uint32_t dispatch = index_of(p, "mb1.c0.layer0.moe.dispatch_all_to_all");
  // The kernels right after micro-batch 1's dispatch are micro-batch 0's backward, and do not wait for it.
  const std::uint32_t after = next_kernel(p, dispatch);
  REQUIRE(after < p.ops.size());
  CHECK(starts_with(p.ops[after].name, "mb0."));
  CHECK(!depends_on(p.ops[after], dispatch));
  // Micro-batch 1's next kernel comes later and waits for its all-to-all.
  std::uint32_t own = after;
  while (own < p.ops.size() && !starts_with(p.ops[own].name, "mb1.")) own = next_kernel(p, own);
  REQUIRE(own < p.ops.size());
  CHECK(depends_on(p.ops[own], dispatch));

  // Without the overlap: the same kernels, and the forward's next kernel waits for its all-to-all.
  c.overlap_moe_expert_parallel_comm = false;
  const trace::Trace plain = generate_megatron_trace(testing::small_moe(), "moe-small", c);
  const trace::Program& q = plain.programs[0];
  CHECK(q.ops.size() == p.ops.size());
  const std::uint32_t plain_dispatch = index_of(q, "mb1.c0.layer0.moe.dispatch_all_to_all");
  CHECK(starts_with(q.ops[next_kernel(q, plain_dispatch)].name, "mb1."));
  CHECK(depends_on(q.ops[next_kernel(q, plain_dispatch)], plain_dispatch));
}

TEST_CASE("the combined 1F1B refuses what Megatron-Core refuses, in one line naming the option") {
  ParallelConfig c = expert_parallel_plan();
  c.overlap_moe_expert_parallel_comm = true;
  c.ep = 1;
  CHECK_THROWS_WITH_AS(generate_megatron_trace(testing::small_moe(), "moe-small", c),
                       doctest::Contains("--overlap-moe-expert-parallel-comm: needs expert parallelism"),
                       Error);
  c = testing::megatron_plan(1, 2, 4, 4);
  c.ep = 4;
  c.overlap_moe_expert_parallel_comm = true;
  CHECK_THROWS_WITH_AS(generate_megatron_trace(testing::small_moe(), "moe-small", c),
                       doctest::Contains("needs virtual stages"), Error);
  c = expert_parallel_plan();
  c.overlap_moe_expert_parallel_comm = true;
  c.recompute = Recompute::Full;
  CHECK_THROWS_WITH_AS(generate_megatron_trace(testing::small_moe(), "moe-small", c),
                       doctest::Contains("full recomputation"), Error);
}
