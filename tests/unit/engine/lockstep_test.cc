// Which ranks a lockstep group lets one actor stand for, and when lockstep must not apply.
#include "simulator/engine/lockstep.h"

#include <numeric>

#include <doctest/doctest.h>

namespace simtrain {
namespace {

// 8 ranks: tensor-parallel pairs {0,1} {2,3} {4,5} {6,7}; data-parallel groups of equal tp rank.
trace::Trace two_by_four(std::vector<std::vector<int>> dp) {
  trace::Trace t;
  t.world_size = 8;
  t.programs.resize(1);
  t.rank_program.assign(8, 0);
  t.groups.push_back({"tp", {{0, 1}, {2, 3}, {4, 5}, {6, 7}}});
  t.groups.push_back({"dp", std::move(dp)});
  return t;
}

}  // namespace

TEST_CASE("each tensor-parallel group is represented by its first rank") {
  const engine::LockstepPlan plan = engine::plan_lockstep(two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}}), "tp", 4);
  CHECK(plan.group == 0);
  CHECK(plan.size == 2);
  CHECK(plan.representative == std::vector<int>{0, 0, 2, 2, 4, 4, 6, 6});
}

TEST_CASE("lockstep does not apply when it would be unsafe") {
  // A group spanning two nodes (2 GPUs per node here, the pair {2,3} is fine but {1,2} would not be).
  trace::Trace across = two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}});
  across.groups[0].communicators = {{0, 3}, {1, 2}, {4, 5}, {6, 7}};
  CHECK(engine::plan_lockstep(across, "tp", 2).group == -1);
  // Another group mixing representatives and members: the representative would wait for a member.
  CHECK(engine::plan_lockstep(two_by_four({{0, 3}, {1, 2}, {4, 7}, {5, 6}}), "tp", 4).group == -1);
  // Members running different programs.
  trace::Trace programs = two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}});
  programs.programs.resize(2);
  programs.rank_program[1] = 1;
  CHECK(engine::plan_lockstep(programs, "tp", 4).group == -1);
  // No such group.
  const engine::LockstepPlan none = engine::plan_lockstep(two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}}), "", 4);
  CHECK(none.group == -1);
  CHECK(none.representative == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("a group holding both ranks of each tensor-parallel pair is carried by the representatives") {
  // An expert-parallel group over all 8 ranks of 2 nodes (MoE parallel folding, etp 1).
  trace::Trace t = two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}});
  t.groups.push_back({"ep", {{0, 1, 2, 3, 4, 5, 6, 7}}});
  const engine::LockstepPlan plan = engine::plan_lockstep(t, "tp", 4);
  CHECK(plan.group == 0);
  CHECK(plan.representative == std::vector<int>{0, 0, 2, 2, 4, 4, 6, 6});
  CHECK(plan.is_carried(2));
  CHECK_FALSE(plan.is_carried(1));
  CHECK_FALSE(plan.is_carried(0));
  // Groups that only hold representatives carry nothing.
  CHECK(engine::plan_lockstep(two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}}), "tp", 4).carried.empty());
  // A communicator holding a representative and a member without its own ({0, 1, 3}: 3 stands behind 2):
  // refused.
  trace::Trace split = t;
  split.groups[2].communicators = {{0, 1, 3}, {2, 4, 5, 6, 7}};
  CHECK(engine::plan_lockstep(split, "tp", 4).group == -1);
  // A point-to-point transfer in the group: its receiver may not be simulated, so nothing can carry it.
  trace::Op send;
  send.type = trace::OpType::Send;
  send.p2p.group = 2;
  t.programs[0].ops.push_back(send);
  CHECK(engine::plan_lockstep(t, "tp", 4).group == -1);
}

TEST_CASE("folding data-parallel replicas leaves one representative per tensor-parallel group of replica 0") {
  const trace::Trace t = two_by_four({{0, 2, 4, 6}, {1, 3, 5, 7}});
  const engine::LockstepPlan plan = engine::fold_replicas(t, "dp", engine::plan_lockstep(t, "tp", 4));
  CHECK(plan.folded_group == 1);
  CHECK(plan.representative == std::vector<int>(8, 0));
  // Without the tensor-parallel lockstep, each data-parallel communicator folds onto its first member.
  const engine::LockstepPlan alone = engine::fold_replicas(t, "dp", engine::plan_lockstep(t, "", 4));
  CHECK(alone.representative == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
  // A group that mixes replicas (here, pairs across the data-parallel groups) forbids folding.
  trace::Trace mixed = t;
  mixed.groups.push_back({"pp", {{0, 4}, {1, 5}, {2, 6}, {3, 7}}});
  CHECK(engine::fold_replicas(mixed, "dp", engine::plan_lockstep(mixed, "tp", 4)).folded_group == -1);
}

}  // namespace simtrain

namespace simtrain {
namespace {

// 8 ranks on 2 nodes of 4 GPUs, one program whose ops are `ops`, over a world group and the given others.
trace::Trace whole_nodes(std::vector<trace::Op> ops, std::vector<trace::CommunicatorGroup> groups) {
  trace::Trace t;
  t.world_size = 8;
  t.programs.resize(1);
  t.programs[0].ops = std::move(ops);
  t.rank_program.assign(8, 0);
  t.groups = std::move(groups);
  return t;
}

trace::Op collective(trace::CollectiveKind kind, int group) {
  trace::Op op;
  op.type = trace::OpType::Collective;
  op.collective.kind = kind;
  op.collective.group = group;
  return op;
}

const trace::CommunicatorGroup kWorld{"world", {{0, 1, 2, 3, 4, 5, 6, 7}}};

}  // namespace

TEST_CASE("node lockstep: each node's first rank stands for the node when all its communicators are whole") {
  const auto t = whole_nodes(
      {collective(trace::CollectiveKind::AllReduce, 0), collective(trace::CollectiveKind::AllToAll, 1)},
      {kWorld, {"local", {{0, 1}, {2, 3}, {4, 5}, {6, 7}}}});
  const engine::LockstepPlan plan = engine::plan_node_lockstep(t, 4);
  CHECK(plan.whole_nodes);
  CHECK(plan.size == 4);
  CHECK(plan.representative == std::vector<int>{0, 0, 0, 0, 4, 4, 4, 4});
}

TEST_CASE("node lockstep: rails whose image on the nodes' first ranks is a communicator too") {
  using trace::CollectiveKind;
  // HYBRID_SHARD: shards within each node, each shard all-reduced among the GPUs of equal local index.
  const trace::CommunicatorGroup shard{"fsdp_shard", {{0, 1, 2, 3}, {4, 5, 6, 7}}};
  const trace::CommunicatorGroup rails{"fsdp_replicate", {{0, 4}, {1, 5}, {2, 6}, {3, 7}}};
  const auto t =
      whole_nodes({collective(CollectiveKind::ReduceScatter, 0), collective(CollectiveKind::AllReduce, 1)},
                  {shard, rails});
  const engine::LockstepPlan plan = engine::plan_node_lockstep(t, 4);
  CHECK(plan.whole_nodes);
  CHECK(plan.representative == std::vector<int>{0, 0, 0, 0, 4, 4, 4, 4});
  // A rail without its image among the first ranks: rank 0's communicator would not mirror rank 1's.
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({collective(CollectiveKind::AllReduce, 0)},
                                                     {{"rails", {{1, 5}, {2, 6}, {3, 7}, {0}, {4}}}}),
                                         4)
                  .whole_nodes);
  // One GPU per node but at different local indices: not a rail.
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({collective(CollectiveKind::AllReduce, 0)},
                                                     {{"skew", {{0, 5}, {1, 4}, {2, 7}, {3, 6}}}}),
                                         4)
                  .whole_nodes);
}

TEST_CASE("node lockstep does not apply where a node's ranks would not do the same work") {
  using trace::CollectiveKind;
  // A communicator holding part of a node and part of another: its ring would pass through non-firsts.
  CHECK_FALSE(
      engine::plan_node_lockstep(
          whole_nodes({collective(CollectiveKind::AllReduce, 0)}, {{"dp", {{0, 1, 4, 5}, {2, 3, 6, 7}}}}), 4)
          .whole_nodes);
  // Broadcasts and reductions are chains through every rank; point-to-point transfers name their peers.
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({collective(CollectiveKind::Broadcast, 0)}, {kWorld}), 4)
                  .whole_nodes);
  trace::Op send;
  send.type = trace::OpType::Send;
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({send}, {kWorld}), 4).whole_nodes);
  // Ranks of one node running different programs.
  trace::Trace programs = whole_nodes({collective(CollectiveKind::AllReduce, 0)}, {kWorld});
  programs.programs.resize(2);
  programs.rank_program[3] = 1;
  CHECK_FALSE(engine::plan_node_lockstep(programs, 4).whole_nodes);
  // One GPU per node, or ranks that do not fill the last node.
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({}, {kWorld}), 1).whole_nodes);
  CHECK_FALSE(engine::plan_node_lockstep(whole_nodes({}, {kWorld}), 3).whole_nodes);
}

}  // namespace simtrain

namespace simtrain {
namespace {

// 16 ranks on 8 nodes of 2 GPUs; two data-parallel communicators of 8 (2 members per node), and
// pipeline pairs `pp` across them.
trace::Trace two_pipelines(std::vector<std::vector<int>> pp) {
  trace::Trace t;
  t.world_size = 16;
  t.programs.resize(1);
  t.rank_program.assign(16, 0);
  t.groups.push_back({"dp", {{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}});
  t.groups.push_back({"pp", std::move(pp)});
  return t;
}

// A sampled group as {group, members kept, of them per node, members of each communicator}.
std::vector<int> facts(const engine::SampledGroup& s) { return {s.group, s.members, s.per_node, s.of}; }

}  // namespace

TEST_CASE("sampling data-parallel replicas keeps the replicas on each communicator's first two nodes") {
  const trace::Trace t =
      two_pipelines({{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
  const engine::LockstepPlan plan =
      engine::sample_replicas(t, "dp", 2, true, engine::plan_lockstep(t, "", 2));
  REQUIRE(plan.sampled.size() == 1);
  CHECK(facts(plan.sampled[0]) == std::vector<int>{0, 4, 2, 8});
  // Position i stands behind position i mod 4 of its own communicator.
  CHECK(plan.representative == std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3, 8, 9, 10, 11, 8, 9, 10, 11});
}

TEST_CASE("replica sampling needs whole nodes per communicator, not a multiple of the sample") {
  // One communicator of 5 replicas, one per node: the sample is the first 2, and the ring flow leaving the
  // second node wraps onto the first, as the whole ring's leaving the fifth does.
  trace::Trace t;
  t.world_size = 5;
  t.programs.resize(1);
  t.rank_program.assign(5, 0);
  t.groups.push_back({"dp", {{0, 1, 2, 3, 4}}});
  const engine::LockstepPlan plan =
      engine::sample_replicas(t, "dp", 1, true, engine::plan_lockstep(t, "", 1));
  CHECK(plan.sampled.at(0).members == 2);
  CHECK(plan.representative == std::vector<int>{0, 1, 0, 1, 0});
}

// An MoE job of 4 nodes of 4 GPUs: expert parallelism over each node's GPUs, dense data parallelism over
// all 16, and the expert-data-parallel group joining the GPUs of equal expert rank across the nodes.
trace::Trace moe_replicas(std::vector<std::vector<int>> edp) {
  trace::Trace t;
  t.world_size = 16;
  t.programs.resize(1);
  t.rank_program.assign(16, 0);
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  t.groups.push_back({"dp", {all}});
  t.groups.push_back({"ep", {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}});
  t.groups.push_back({"edp", std::move(edp)});
  return t;
}

TEST_CASE("the expert-data-parallel group is sampled with the data-parallel one") {
  const trace::Trace t = moe_replicas({{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
  const engine::LockstepPlan plan =
      engine::sample_replicas(t, "dp", 4, true, engine::plan_lockstep(t, "", 4));
  REQUIRE(plan.sampled.size() == 2);
  CHECK(facts(plan.sampled[0]) == std::vector<int>{0, 8, 4, 16});
  CHECK(facts(plan.sampled[1]) == std::vector<int>{2, 2, 1, 4});
  REQUIRE(plan.sampled_group(2) != nullptr);
  CHECK(plan.sampled_group(1) == nullptr);
  // Nodes 2 and 3 stand behind nodes 0 and 1, GPU for GPU.
  CHECK(plan.representative == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7});
  // An expert-data-parallel group whose stand-ins are not the data-parallel ones (node 3's GPU 0 would
  // stand behind node 1's GPU 0 in one group and node 0's in the other): nothing is sampled.
  const trace::Trace crossed = moe_replicas({{0, 4, 12, 8}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
  CHECK(
      engine::sample_replicas(crossed, "dp", 4, true, engine::plan_lockstep(crossed, "", 4)).sampled.empty());
}

TEST_CASE("replica sampling does not apply where the sample would not see the whole job's traffic") {
  // Pipeline pairs joining a sampled replica to one left out: the sample would wait on a rank not simulated.
  const trace::Trace crossed =
      two_pipelines({{0, 12}, {1, 13}, {2, 14}, {3, 15}, {4, 8}, {5, 9}, {6, 10}, {7, 11}});
  CHECK(
      engine::sample_replicas(crossed, "dp", 2, true, engine::plan_lockstep(crossed, "", 2)).sampled.empty());
  // A node holding a sampled rank and one left out (node 1 holds rank 2, position 1 of the first
  // communicator, and rank 3, position 2 of the second), so the node's NICs would carry only part of their
  // traffic.
  trace::Trace mixed_node;
  mixed_node.world_size = 16;
  mixed_node.programs.resize(1);
  mixed_node.rank_program.assign(16, 0);
  mixed_node.groups.push_back({"dp", {{0, 2, 4, 6, 8, 10, 12, 14}, {1, 5, 3, 7, 9, 11, 13, 15}}});
  mixed_node.groups.push_back({"pp", {{0, 1}, {2, 5}, {4, 3}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}});
  CHECK(engine::sample_replicas(mixed_node, "dp", 2, true, engine::plan_lockstep(mixed_node, "", 2))
            .sampled.empty());
  const trace::Trace t =
      two_pipelines({{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
  // Too few replicas for a sample of two nodes to save anything (4 GPUs per node: 2 nodes per communicator).
  CHECK(engine::sample_replicas(t, "dp", 4, true, engine::plan_lockstep(t, "", 4)).sampled.empty());
  // Replicas already folded (--fidelity fast on a layout that cannot be sampled) stay folded.
  engine::LockstepPlan folded = engine::plan_lockstep(t, "", 2);
  folded.folded_group = 0;
  CHECK(engine::sample_replicas(t, "dp", 2, true, folded).sampled.empty());
}

}  // namespace simtrain
