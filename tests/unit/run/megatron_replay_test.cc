// End-to-end replays of generated Megatron traces: small tensor/pipeline/data/context/expert-parallel plans
// run to completion without deadlock, and with free communication the pipeline bubble of the iteration
// time is the schedule's: (m + pp - 1) / m for 1F1B and GPipe, 1 + (pp - 1) / (m vpp) interleaved.
// (Here rather than in tests/unit/workload because a replay needs the engine library as well.)
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "tests/support/megatron_fixtures.h"

#include "simulator/engine/replay.h"
#include "simulator/workload/megatron_trace.h"
#include "tests/support/child_process.h"

namespace simtrain {
namespace {

using testing::small_gpt;
workload::ParallelConfig plan(int tp, int pp, int dp, int micro_batches) {
  return testing::megatron_plan(tp, pp, dp, micro_batches);
}

using workload::ParallelConfig;
using workload::PipelineSchedule;

// Nodes of 8 GPUs on NVSwitch; with `free_network` every link is 1e18 B/s without latency.
platform::ClusterSpec cluster(int gpus, bool free_network) {
  platform::ClusterSpec spec;
  spec.name = "test";
  spec.gpus_per_node = 8;
  spec.nodes = (gpus + 7) / 8;
  spec.gpu = "a100-sxm4-80gb";
  const double bandwidth = free_network ? 1e18 : 300e9;
  spec.intra_node = {platform::IntraNodeFabric::NVSwitch, bandwidth, free_network ? 0.0 : 1e-6};
  spec.nics = {1, free_network ? 1e18 : 25e9, free_network ? 0.0 : 2e-6};
  return spec;
}

// Kernel durations at 1 TFLOP/s for the transformer layers' kernels; the embedding, LM head and optimizer
// take no time, so that pipeline stages are balanced and the bubble shows alone.
cost::ProgramCosts layer_costs(const trace::Trace& t) {
  cost::ProgramCosts costs;
  for (const trace::Program& p : t.programs) {
    std::vector<double>& durations = costs.duration_s.emplace_back();
    for (const trace::Op& op : p.ops) {
      const bool layer = op.type == trace::OpType::Compute && op.name.find(".layer") != std::string::npos;
      durations.push_back(layer ? op.compute.flops / 1e12 : 0.0);
    }
  }
  return costs;
}

// The replay's result (in the child process that ran it).
double replayed(const workload::TransformerConfig& model, const ParallelConfig& config, bool free_network,
                const std::string& lockstep_group, const std::string& folded_group,
                const std::string& sampled_group, double (*read)(const engine::ReplayResult&)) {
  return testing::in_child_process([&] {
    const trace::Trace t = workload::generate_megatron_trace(model, "gpt-small", config);
    calibration::Efficiencies ideal;
    ideal.nccl_intra_node = ideal.nccl_inter_node = 1.0;
    ideal.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = cluster(t.world_size, free_network);
    engine::ReplayOptions options;
    options.lockstep_group = lockstep_group;
    options.folded_group = folded_group;
    options.sampled_group = sampled_group;
    return read(engine::replay(t, layer_costs(t), ideal, source, options));
  });
}

// small_gpt with `experts` experts of FFN width 512 in every layer, two per token.
workload::TransformerConfig small_moe(int layers, int experts) {
  workload::TransformerConfig moe = small_gpt(layers);
  moe.experts = experts;
  moe.experts_per_token = 2;
  moe.moe_ffn_hidden = 512;
  return moe;
}

// The replayed iteration time (NaN when the replay threw, e.g. on a deadlock).
double iteration_s(const workload::TransformerConfig& model, const ParallelConfig& config,
                   bool free_network = true, const std::string& lockstep_group = "tp",
                   const std::string& folded_group = "", const std::string& sampled_group = "dp") {
  return replayed(model, config, free_network, lockstep_group, folded_group, sampled_group,
                  [](const engine::ReplayResult& r) { return r.makespan_s; });
}

}  // namespace

// The tolerance: free communication still moves bytes at 1e18 B/s, and the backward/forward ratio of the
// kernels is not exactly 2 (attention's backward is 2.5x); 2% covers both.
TEST_CASE("tp2 pp2 dp2 with 1F1B replays with the bubble (m + pp - 1) / m of the per-stage time") {
  const double stage = iteration_s(small_gpt(4), plan(2, 1, 2, 8));
  const double pipelined = iteration_s(small_gpt(8), plan(2, 2, 2, 8));
  REQUIRE(stage > 0);
  CHECK(pipelined / stage == simtrain::testing::Approx(9.0 / 8).epsilon(0.02));
}

TEST_CASE("GPipe has the same bubble as 1F1B") {
  ParallelConfig c = plan(2, 2, 1, 8);
  c.schedule = PipelineSchedule::GPipe;
  const double stage = iteration_s(small_gpt(4), plan(2, 1, 1, 8));
  CHECK(iteration_s(small_gpt(8), c) / stage == simtrain::testing::Approx(9.0 / 8).epsilon(0.02));
}

TEST_CASE("interleaving 2 model chunks halves the bubble") {
  ParallelConfig c = plan(2, 2, 2, 8);
  c.vpp = 2;
  const double stage = iteration_s(small_gpt(4), plan(2, 1, 2, 8));
  CHECK(iteration_s(small_gpt(8), c) / stage == simtrain::testing::Approx(1 + 1.0 / 16).epsilon(0.02));
}

TEST_CASE("sequence parallelism, context parallelism, ZeRO and the distributed optimizer replay to the end") {
  ParallelConfig sp = plan(2, 2, 2, 4);
  sp.sp = true;
  sp.distributed_optimizer = true;
  sp.recompute = workload::Recompute::Full;
  CHECK(iteration_s(small_gpt(8), sp, false) > 0);

  ParallelConfig cp = plan(2, 2, 1, 4);
  cp.cp = 2;
  cp.gpus = 8;
  cp.vpp = 2;
  CHECK(iteration_s(small_gpt(8), cp, false) > 0);

  for (int zero : {1, 2, 3}) {
    ParallelConfig z = plan(1, 2, 4, 4);
    z.zero = zero;
    CHECK(iteration_s(small_gpt(8), z, false) > 0);
  }
}

// Tensor-parallel groups run as one actor (engine/lockstep.h). On 16 GPUs over 2 nodes, with data-parallel
// and pipeline traffic crossing the nodes, that must give the iteration time of simulating every rank:
// 1e-9 relative leaves room for rounding wire sizes to whole bytes.
TEST_CASE("lockstep tensor-parallel groups give the iteration time of simulating every rank") {
  ParallelConfig c = plan(2, 2, 4, 4);
  c.sp = true;
  c.distributed_optimizer = true;
  const double lockstep = iteration_s(small_gpt(8), c, false, "tp");
  const double every_rank = iteration_s(small_gpt(8), c, false, "");
  REQUIRE(every_rank > 0);
  CHECK(lockstep == simtrain::testing::Approx(every_rank).epsilon(1e-9));
}

// --fidelity fast folds the data-parallel replicas: their gradient collectives become analytic and lose the
// contention between replicas, which on 2 nodes with one replica pair per node is small: 2% covers it.
TEST_CASE("folding data-parallel replicas gives nearly the iteration time of simulating them all") {
  ParallelConfig c = plan(2, 2, 4, 4);
  c.distributed_optimizer = true;
  const double folded = iteration_s(small_gpt(8), c, false, "tp", "dp");
  const double all = iteration_s(small_gpt(8), c, false, "tp", "");
  REQUIRE(all > 0);
  CHECK(folded == simtrain::testing::Approx(all).epsilon(0.02));
}

// Replica sampling (engine/lockstep.h) is exact on a fabric above the nodes that cannot bind (the test
// cluster is a star): 8 replicas of TP 4 x PP 2 on 8 nodes, 2 replicas per node, of which the 4 on each
// stage's first 2 nodes are simulated. Equal to the last rounding error.
TEST_CASE("sampling data-parallel replicas gives the iteration time of simulating them all") {
  ParallelConfig c = plan(4, 2, 8, 4);
  c.sp = true;
  c.distributed_optimizer = true;
  const double sampled = iteration_s(small_gpt(8), c, false, "tp", "", "dp");
  const double all = iteration_s(small_gpt(8), c, false, "tp", "", "");
  REQUIRE(all > 0);
  CHECK(sampled == simtrain::testing::Approx(all).epsilon(1e-9));
}

TEST_CASE("an expert-parallel MoE model and tied embeddings across stages replay to the end") {
  workload::TransformerConfig moe = small_moe(4, 4);
  moe.tied_embeddings = true;
  ParallelConfig c = plan(2, 2, 4, 4);
  c.sp = true;
  c.ep = 2;
  CHECK(iteration_s(moe, c, false) > 0);
}

// MoE parallel folding (etp 1) puts both ranks of each tensor-parallel pair in one expert-parallel group; the
// pair still runs as one actor, which sends its partner's all-to-all flows too (engine/lockstep.h,
// carried groups). 32 GPUs on 4 nodes, TP 2, PP 2, EP 16 over each stage's 2 nodes: every flow of the
// all-to-alls runs as when every rank is simulated, and the data-parallel and pipeline flows stand for the
// pair as a representative's always do. Here the iteration is the same to the last rounding error. (Where
// such a scaled flow shares a link with all-to-all flows, it takes one max-min share where the pair's two
// flows would take two, and the iteration differs a little: README, Speed.) On one node, node lockstep
// stands one rank for all 8 instead.
TEST_CASE("an expert-parallel group holding tensor-parallel pairs keeps lockstep and its iteration time") {
  workload::TransformerConfig moe = small_moe(4, 16);
  ParallelConfig c = plan(2, 2, 8, 4);
  c.sp = true;
  c.ep = 16;
  c.etp = 1;
  c.distributed_optimizer = true;
  const auto lockstep_size = [](const engine::ReplayResult& r) { return double(r.lockstep_size); };
  CHECK(replayed(moe, c, false, "tp", "", "", lockstep_size) == 2);
  const double lockstep = iteration_s(moe, c, false, "tp", "", "");
  const double every_rank = iteration_s(moe, c, false, "", "", "");
  REQUIRE(every_rank > 0);
  CHECK(lockstep == simtrain::testing::Approx(every_rank).epsilon(1e-9));

  ParallelConfig one_node = plan(2, 1, 4, 4);
  one_node.sp = true;
  one_node.ep = 8;
  one_node.etp = 1;
  CHECK(replayed(moe, one_node, false, "tp", "", "", lockstep_size) == 8);
}

// Sampling an MoE's replicas takes its expert-data-parallel group along (engine/lockstep.h): 4 nodes of 8
// GPUs, experts spread over each node's GPUs, each expert's replicas one per node; the 2 nodes simulated
// stand for the 4 to the last rounding error. Those replicas are rails mirrored on the nodes' first ranks,
// so node lockstep stands each node's first rank for the node instead where lockstep is on: the same time.
TEST_CASE("sampling an MoE's replicas with its expert-data-parallel group gives the iteration time of all") {
  workload::TransformerConfig moe = small_moe(2, 8);
  ParallelConfig c = plan(1, 1, 32, 2);
  c.ep = 8;
  c.distributed_optimizer = true;
  const auto simulated = [](const engine::ReplayResult& r) { return double(r.replicas_simulated); };
  CHECK(replayed(moe, c, false, "", "", "dp", simulated) == 16);
  const double sampled = iteration_s(moe, c, false, "", "", "dp");
  const double all = iteration_s(moe, c, false, "", "", "");
  REQUIRE(all > 0);
  CHECK(sampled == simtrain::testing::Approx(all).epsilon(1e-9));

  const auto lockstep_size = [](const engine::ReplayResult& r) { return double(r.lockstep_size); };
  CHECK(replayed(moe, c, false, "tp", "", "dp", lockstep_size) == 8);
  CHECK(iteration_s(moe, c, false, "tp", "", "dp") == simtrain::testing::Approx(all).epsilon(1e-9));
}

}  // namespace simtrain
