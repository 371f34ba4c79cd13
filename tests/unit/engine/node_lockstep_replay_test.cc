// Node lockstep is exact: an all-reduce (ring and tree) and an all-to-all over whole nodes take the same
// simulated time whether each node's first rank stands for the node or every rank is simulated.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/cost/compute_cost.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"

namespace simtrain {
namespace {

// 8 nodes of 4 GPUs under a 2-level fat-tree of 2 nodes per leaf with a 2:1 leaf oversubscription, so that
// flows contend on the way.
platform::ClusterSpec cluster() {
  platform::ClusterSpec spec;
  spec.name = "contended";
  spec.nodes = 8;
  spec.gpus_per_node = 4;
  spec.gpu = "a100-sxm4-80gb";
  spec.intra_node = {platform::IntraNodeFabric::NVSwitch, 300e9, 0.7e-6};
  spec.nics = {4, 25e9, 1e-6};
  spec.fabric.topology = platform::FabricTopology::FatTree;
  spec.fabric.levels = 2;
  spec.fabric.nodes_per_leaf = 2;
  spec.fabric.leaf_oversubscription = 2;
  spec.fabric.switch_latency_s = 0.3e-6;
  return spec;
}

// One collective of the given kind, size and group.
struct Collective {
  trace::CollectiveKind kind;
  double bytes;
  std::uint16_t group = 0;
};

// `steps` back to back on every one of 32 ranks, over `groups`.
trace::Trace back_to_back(const std::vector<Collective>& steps,
                          std::vector<trace::CommunicatorGroup> groups) {
  trace::Trace t;
  t.world_size = 32;
  trace::Program program;
  program.name = "collectives";
  program.streams = {"comm"};
  for (const Collective& step : steps) {
    trace::Op op;
    op.name = std::string(trace::to_string(step.kind)) + std::to_string(program.ops.size());
    op.type = trace::OpType::Collective;
    op.collective.kind = step.kind;
    op.collective.bytes = step.bytes;
    op.collective.group = step.group;
    if (!program.ops.empty()) op.deps = {static_cast<std::uint32_t>(program.ops.size() - 1)};
    program.ops.push_back(op);
  }
  t.programs.push_back(program);
  t.rank_program.assign(32, 0);
  t.groups = std::move(groups);
  return t;
}

// Three back-to-back collectives over all 32 ranks.
trace::Trace collectives() {
  trace::CommunicatorGroup world{"world", {{}}};
  for (int r = 0; r < 32; ++r) world.communicators[0].push_back(r);
  return back_to_back({{trace::CollectiveKind::AllReduce, 256e6},
                       {trace::CollectiveKind::AllReduce, 64e3},
                       {trace::CollectiveKind::AllToAll, 64e6}},
                      {world});
}

// HYBRID_SHARD's collectives: a reduce-scatter within each node, then each shard's all-reduce (large, then
// small enough for NCCL's tree) among the GPUs of equal local index.
trace::Trace hybrid_shard_collectives() {
  trace::CommunicatorGroup shard{"fsdp_shard", {}}, rails{"fsdp_replicate", {}};
  for (int node = 0; node < 8; ++node)
    shard.communicators.push_back({4 * node, 4 * node + 1, 4 * node + 2, 4 * node + 3});
  for (int local = 0; local < 4; ++local) {
    rails.communicators.emplace_back();
    for (int node = 0; node < 8; ++node) rails.communicators.back().push_back(4 * node + local);
  }
  return back_to_back({{trace::CollectiveKind::ReduceScatter, 256e6, 0},
                       {trace::CollectiveKind::AllReduce, 64e6, 1},
                       {trace::CollectiveKind::AllReduce, 64e3, 1}},
                      {shard, rails});
}

// Each collective's end on rank 5 (a non-first rank of node 1), then the lockstep size.
std::vector<double> run(bool node_lockstep, trace::Trace (*make)() = collectives) {
  return testing::run_in_child([=] {
    const trace::Trace t = make();
    cost::ProgramCosts costs;
    costs.duration_s = {{0.0, 0.0, 0.0}};
    engine::PlatformSource source;
    source.spec = cluster();
    engine::ReplayOptions options;
    options.timeline_ranks = 32;
    options.lockstep_group = node_lockstep ? "tp" : "";  // no "tp" group: node lockstep is tried
    const engine::ReplayResult r = engine::replay(t, costs, calibration::Efficiencies{}, source, options);
    std::vector<double> ends(3, 0);
    for (const engine::OpEvent& e : r.events)
      if (e.rank == (node_lockstep ? 4 : 5)) ends[e.op] = e.end_s;
    ends.push_back(r.lockstep_size);
    ends.push_back(r.ranks[5].end_s);
    return ends;
  });
}

}  // namespace

TEST_CASE("node lockstep gives every collective the time that simulating every rank gives") {
  const std::vector<double> lockstep = run(true), every_rank = run(false);
  CHECK(lockstep[3] == 4);
  CHECK(every_rank[3] == 1);
  for (int op = 0; op < 3; ++op) {
    CAPTURE(op);
    CHECK(lockstep[op] > 0);
    // Wire sizes are rounded to whole bytes per flow, so the two differ by rounding only.
    CHECK(lockstep[op] == simtrain::testing::Approx(every_rank[op]).epsilon(1e-7));
  }
  CHECK(lockstep[4] == simtrain::testing::Approx(every_rank[4]).epsilon(1e-9));
}

TEST_CASE("node lockstep over rails (HYBRID_SHARD's replicas) gives the times simulating every rank gives") {
  const std::vector<double> lockstep = run(true, hybrid_shard_collectives),
                            every_rank = run(false, hybrid_shard_collectives);
  CHECK(lockstep[3] == 4);
  CHECK(every_rank[3] == 1);
  for (int op = 0; op < 3; ++op) {
    CAPTURE(op);
    CHECK(lockstep[op] > (op == 0 ? 0 : lockstep[op - 1]));
    CHECK(lockstep[op] == simtrain::testing::Approx(every_rank[op]).epsilon(1e-7));
  }
}

}  // namespace simtrain
