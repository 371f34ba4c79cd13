// Specification of Transformer Engine's activation offloading in a Megatron step
// (--cpu-offloading-num-layers, megatron_offload.h): which copies each layer starts and waits for, their
// bytes, the activation memory the GPU keeps, and the plans Megatron refuses.
#include <doctest/doctest.h>

#include "tests/support/megatron_fixtures.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "simulator/workload/layer_activations.h"
#include "simulator/workload/megatron_trace.h"
#include "simulator/workload/parallel_memory.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

// Eight layers, the first `offloaded` of them offloaded, two micro-batches on one GPU.
ParallelConfig offloading(int offloaded) {
  ParallelConfig c = testing::megatron_plan(1, 1, 1, 2);
  c.cpu_offloading_layers = offloaded;
  return c;
}

const trace::Op& op(const trace::Program& p, const std::string& name) {
  const auto it =
      std::find_if(p.ops.begin(), p.ops.end(), [&](const trace::Op& o) { return o.name == name; });
  REQUIRE_MESSAGE(it != p.ops.end(), name);
  return *it;
}

std::uint32_t index(const trace::Program& p, const std::string& name) {
  return static_cast<std::uint32_t>(&op(p, name) - p.ops.data());
}

bool waits_for(const trace::Op& o, std::uint32_t dep) {
  return std::find(o.deps.begin(), o.deps.end(), dep) != o.deps.end();
}

// The first compute kernel of a layer's pass in micro-batch 0 ("fwd" or "bwd").
const trace::Op& first_kernel(const trace::Program& p, int layer, bool forward) {
  const std::string prefix = "mb0.c0.layer" + std::to_string(layer) + ".";
  for (const trace::Op& o : p.ops) {
    if (o.name.rfind(prefix, 0) != 0 || o.type != trace::OpType::Compute || o.compute.host_copy) continue;
    if ((o.compute.pass == trace::Pass::Forward) == forward) return o;
  }
  FAIL("no kernel of " << prefix);
  return p.ops.front();
}

}  // namespace

TEST_CASE(
    "the first N layers copy their saved activations out after their forward and back before backward") {
  const TransformerConfig model = testing::small_gpt(8);
  const trace::Trace t = generate_megatron_trace(model, "model", offloading(3));
  const trace::Program& p = t.programs[0];
  REQUIRE(p.streams.back() == "offload");
  const auto offload_stream = static_cast<std::uint8_t>(p.streams.size() - 1);
  const double per_layer =
      saved_activation_bytes_per_token(model, 0, 128, layer_activation_options(offloading(3))) * 128;
  for (int i = 0; i < 3; ++i) {
    const std::string layer = "mb0.c0.layer" + std::to_string(i);
    const trace::Op& out = op(p, layer + ".offload");
    const trace::Op& back = op(p, layer + ".reload");
    CHECK(out.stream == offload_stream);
    CHECK(back.stream == offload_stream);
    CHECK(out.compute.host_copy);
    CHECK(out.compute.bytes == doctest::Approx(per_layer));
    CHECK(back.compute.bytes == out.compute.bytes);
    // Layer L - N + i's forward waits for the copy out: the GPU frees layer i's tensors there.
    CHECK(waits_for(first_kernel(p, 8 - 3 + i, true), index(p, layer + ".offload")));
    // Layer i's backward waits for the copy back, which starts after layer L - N + i's backward.
    CHECK(waits_for(first_kernel(p, i, false), index(p, layer + ".reload")));
    CHECK(index(p, layer + ".reload") >
          index(p, "mb0.c0.layer" + std::to_string(8 - 3 + i) + ".attention.bwd_data"));
  }
  CHECK(std::none_of(p.ops.begin(), p.ops.end(),
                     [](const trace::Op& o) { return o.name.find("layer3.offload") != std::string::npos; }));
  // Without offloading the program has no such stream.
  CHECK(generate_megatron_trace(model, "model", offloading(0)).programs[0].streams.back() != "offload");
}

TEST_CASE("offloaded layers keep no activations on the GPU") {
  const TransformerConfig model = testing::small_gpt(8);
  // The final norm, LM head and loss keep theirs: what is left with every layer's tensors on the host.
  const double head = estimate_parallel_memory(model, offloading(8), 128, 1).activations_bytes;
  CHECK(head > 0);
  const double all = estimate_parallel_memory(model, offloading(0), 128, 1).activations_bytes - head;
  CHECK(estimate_parallel_memory(model, offloading(6), 128, 1).activations_bytes - head ==
        doctest::Approx(all * 2 / 8));
}

TEST_CASE("Megatron offloads without pipelining or recomputation, fewer layers than the model has") {
  const TransformerConfig model = testing::small_gpt(8);
  const auto refused = [&](ParallelConfig c, const std::string& why) {
    CHECK_THROWS_WITH_AS(generate_megatron_trace(model, "model", c), doctest::Contains(why.c_str()), Error);
  };
  refused(offloading(8), "--cpu-offloading-num-layers 8: offloads fewer layers than the model's 8");
  refused(offloading(-1), "at least one");
  ParallelConfig pipelined = offloading(2);
  pipelined.pp = 2;
  pipelined.gpus = 2;
  refused(pipelined, "without pipeline parallelism only");
  ParallelConfig recomputed = offloading(2);
  recomputed.recompute = Recompute::Full;
  refused(recomputed, "does not offload under recomputation");
}
