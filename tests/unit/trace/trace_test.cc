// Specification of the Trace model (simulator/trace/trace.h): enum names, the communicator index, and
// every invariant validate() enforces, each shown by breaking one field of a valid trace.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/error.h"
#include "simulator/trace/trace.h"
#include "tests/unit/trace/trace_fixtures.h"

namespace simtrain::trace {
namespace {

using testing::two_rank_ddp;
using testing::two_stage_pipeline;

// The Error validate() throws for `trace`; fails the test when it throws none.
Error validation_error(const Trace& trace) {
  try {
    validate(trace, "sample.json");
  } catch (const Error& e) {
    return e;
  }
  FAIL("validate() accepted an invalid trace");
  return Error("unreachable");
}

TEST_CASE("enum names are snake_case and parse back to the same value") {
  CHECK(to_string(OpType::Recv) == "recv");
  CHECK(to_string(ComputeKind::BatchNorm) == "batch_norm");
  CHECK(to_string(ComputeKind::LayerNorm) == "layer_norm");
  CHECK(to_string(Pass::BackwardWeight) == "backward_weight");
  CHECK(to_string(CollectiveKind::ReduceScatter) == "reduce_scatter");
  CHECK(to_string(CollectiveKind::AllToAll) == "all_to_all");

  for (const char* name : {"compute", "collective", "send", "recv"}) {
    OpType value{};
    REQUIRE(parse(name, value));
    CHECK(to_string(value) == name);
  }
  for (const char* name : {"gemm", "conv", "batch_norm", "layer_norm", "pool", "activation", "softmax",
                           "attention", "elementwise", "embedding", "optimizer", "other"}) {
    ComputeKind value{};
    REQUIRE(parse(name, value));
    CHECK(to_string(value) == name);
  }
  for (const char* name : {"forward", "backward_data", "backward_weight", "update", "other"}) {
    Pass value{};
    REQUIRE(parse(name, value));
    CHECK(to_string(value) == name);
  }
  for (const char* name :
       {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "reduce"}) {
    CollectiveKind value{};
    REQUIRE(parse(name, value));
    CHECK(to_string(value) == name);
  }
}

TEST_CASE("parse rejects unknown names and leaves the output untouched") {
  ComputeKind kind = ComputeKind::Conv;
  CHECK_FALSE(parse("matmul", kind));
  CHECK_FALSE(parse("Gemm", kind));  // names are case-sensitive
  CHECK(kind == ComputeKind::Conv);
  CollectiveKind collective = CollectiveKind::Reduce;
  CHECK_FALSE(parse("allreduce", collective));
  CHECK(collective == CollectiveKind::Reduce);
}

TEST_CASE("CommunicatorIndex finds each rank's communicator and position in every group") {
  const Trace trace = two_stage_pipeline();  // pp: {0,2},{1,3}; dp: {0,1},{2,3}
  const CommunicatorIndex index(trace);
  CHECK(index.communicator(0, 3) == std::vector<int>{1, 3});
  CHECK(index.position(0, 3) == 1);
  CHECK(index.communicator(0, 0) == std::vector<int>{0, 2});
  CHECK(index.position(0, 0) == 0);
  CHECK(index.communicator(1, 2) == std::vector<int>{2, 3});
  CHECK(index.position(1, 2) == 0);
}

TEST_CASE("CommunicatorIndex keeps communicator order, not rank order, as the position") {
  Trace trace = two_rank_ddp();
  trace.groups[0].communicators = {{1, 0}};
  const CommunicatorIndex index(trace);
  CHECK(index.position(0, 1) == 0);
  CHECK(index.position(0, 0) == 1);
}

TEST_CASE("CommunicatorIndex throws for a rank that is in no communicator of the group") {
  Trace trace = two_stage_pipeline();
  trace.groups[1].communicators = {{0, 1}};  // ranks 2 and 3 have no dp communicator
  const CommunicatorIndex index(trace);
  CHECK_THROWS_WITH_AS(index.communicator(1, 2), "rank 2 is in no communicator of group \"dp\"", Error);
  CHECK_THROWS_AS(index.position(1, 3), Error);
  CHECK_THROWS_AS(index.communicator(7, 0), Error);  // no such group
}

TEST_CASE("validate accepts the sample traces") {
  CHECK_NOTHROW(validate(two_rank_ddp(), "ddp"));
  CHECK_NOTHROW(validate(two_stage_pipeline(), "pipeline"));
}

TEST_CASE("validate names the origin and the field path of the problem") {
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[3].deps = {1, 4};
  const Error e = validation_error(trace);
  CHECK(e.file() == "sample.json");
  CHECK(e.field() == "programs[0].ops[3].deps[1]");
  CHECK(std::string(e.what()).starts_with("sample.json: programs[0].ops[3].deps[1]: "));
}

TEST_CASE("validate rejects a world without ranks") {
  Trace trace = two_rank_ddp();
  trace.world_size = 0;
  CHECK(validation_error(trace).field() == "world_size");
}

TEST_CASE("validate rejects a rank_program that does not have one entry per rank") {
  Trace trace = two_rank_ddp();
  trace.rank_program = {0};
  CHECK(validation_error(trace).field() == "rank_program");
}

TEST_CASE("validate rejects a rank running a program that does not exist") {
  Trace trace = two_rank_ddp();
  trace.rank_program[1] = 1;
  CHECK(validation_error(trace).field() == "rank_program[1]");
}

TEST_CASE("validate rejects an op on a stream the program does not declare") {
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[4].stream = 2;
  CHECK(validation_error(trace).field() == "programs[0].ops[4].stream");
}

TEST_CASE("validate rejects dependencies on the op itself or on later ops") {
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[2].deps = {2};
  CHECK(validation_error(trace).field() == "programs[0].ops[2].deps[0]");
  trace.programs[0].ops[2].deps = {0, 3};
  CHECK(validation_error(trace).field() == "programs[0].ops[2].deps[1]");
}

TEST_CASE("validate rejects collective and point-to-point ops naming a group that does not exist") {
  Trace collective = two_rank_ddp();
  collective.programs[0].ops[3].collective.group = 1;
  CHECK(validation_error(collective).field() == "programs[0].ops[3].group");

  Trace p2p = two_stage_pipeline();
  p2p.programs[1].ops[0].p2p.group = 2;
  CHECK(validation_error(p2p).field() == "programs[1].ops[0].group");
}

TEST_CASE("validate rejects negative or non-finite sizes") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Trace trace = two_stage_pipeline();
  trace.programs[0].ops[0].compute.flops = -1;
  CHECK(validation_error(trace).field() == "programs[0].ops[0].flops");
  trace = two_stage_pipeline();
  trace.programs[0].ops[0].compute.bytes = nan;
  CHECK(validation_error(trace).field() == "programs[0].ops[0].bytes");
  trace = two_stage_pipeline();
  trace.programs[0].ops[0].compute.duration_s = inf;
  CHECK(validation_error(trace).field() == "programs[0].ops[0].duration_s");
  trace = two_stage_pipeline();
  trace.programs[0].ops[1].p2p.bytes = -8;
  CHECK(validation_error(trace).field() == "programs[0].ops[1].bytes");
  trace = two_stage_pipeline();
  trace.programs[1].ops[2].collective.bytes = inf;
  CHECK(validation_error(trace).field() == "programs[1].ops[2].bytes");
  trace = two_stage_pipeline();
  trace.programs[1].ops[1].compute.shape = {4, -1};
  CHECK(validation_error(trace).field() == "programs[1].ops[1].shape[1]");
  trace = two_stage_pipeline();
  trace.metadata.peak_memory_bytes = -1;
  CHECK(validation_error(trace).field() == "metadata.peak_memory_bytes");
}

TEST_CASE("validate accepts zero sizes and an unmeasured duration of -1") {
  Trace trace = two_rank_ddp();
  trace.programs[0].ops[0].compute.flops = 0;
  trace.programs[0].ops[0].compute.bytes = 0;
  trace.programs[0].ops[3].collective.bytes = 0;
  REQUIRE(trace.programs[0].ops[0].compute.duration_s == -1);
  CHECK_NOTHROW(validate(trace, "zero"));
}

TEST_CASE("validate rejects communicator ranks outside the world") {
  Trace trace = two_rank_ddp();
  trace.groups[0].communicators = {{0, 2}};
  CHECK(validation_error(trace).field() == "groups[0].communicators[0][1]");
  trace.groups[0].communicators = {{-1, 0, 1}};
  CHECK(validation_error(trace).field() == "groups[0].communicators[0][0]");
}

TEST_CASE("validate rejects a rank listed twice in one communicator or in two communicators of a group") {
  Trace trace = two_rank_ddp();
  trace.groups[0].communicators = {{0, 1, 0}};
  CHECK(validation_error(trace).field() == "groups[0].communicators[0][2]");
  trace.groups[0].communicators = {{0, 1}, {1}};
  CHECK(validation_error(trace).field() == "groups[0].communicators[1][0]");
}

TEST_CASE("validate allows one rank in communicators of different groups") {
  Trace trace = two_rank_ddp();
  trace.groups.push_back({.name = "world", .communicators = {{1, 0}}});
  CHECK_NOTHROW(validate(trace, "two groups"));
}

TEST_CASE("validate rejects an empty communicator") {
  Trace trace = two_rank_ddp();
  trace.groups[0].communicators = {{0, 1}, {}};
  CHECK(validation_error(trace).field() == "groups[0].communicators[1]");
}

TEST_CASE("validate rejects a program whose ranks have no communicator in a group it uses") {
  Trace trace = two_rank_ddp();
  trace.groups[0].communicators = {{0}};  // rank 1 runs the all-reduce but has no dp communicator
  const Error e = validation_error(trace);
  CHECK(e.field() == "programs[0].ops[3].group");
  CHECK(e.message().find("rank 1") != std::string::npos);
}

// two_stage_pipeline with ranks interleaved (0 and 2 run stage0, 1 and 3 stage1), so that each dp
// communicator ({0, 1}, {2, 3}) holds one rank of each program, and stage0 given `collective` on dp.
Trace mixed_dp_communicators(const CollectiveSpec& collective) {
  Trace trace = two_stage_pipeline();
  trace.rank_program = {0, 1, 0, 1};
  trace.groups[0].communicators = {{0, 1}, {2, 3}};  // pp: each stage0 rank with a stage1 rank
  Op op{.name = "grads.collective", .type = OpType::Collective, .stream = 1, .deps = {}};
  op.collective = collective;
  trace.programs[0].ops.push_back(op);
  return trace;
}

TEST_CASE("validate accepts ranks of different programs that issue the same collectives on a communicator") {
  const CollectiveSpec same{
      .kind = CollectiveKind::AllGather, .dtype = DType::FP32, .bytes = 123456789.125, .group = 1};
  CHECK_NOTHROW(validate(mixed_dp_communicators(same), "sample.json"));
}

TEST_CASE("validate rejects ranks of one communicator issuing different collectives at the same position") {
  CollectiveSpec spec{
      .kind = CollectiveKind::AllReduce, .dtype = DType::FP32, .bytes = 123456789.125, .group = 1};
  SUBCASE("a different kind") {
    const Error e = validation_error(mixed_dp_communicators(spec));
    CHECK(e.file() == "sample.json");
    CHECK(e.field() == "programs[1].ops[2]");
    CHECK(e.message() ==
          "ranks 0 and 1 of communicator 0 of group \"dp\" disagree on their collective #0: all_reduce of "
          "123456789.125 bytes (program 0) vs all_gather of 123456789.125 bytes (program 1)");
  }
  SUBCASE("a different size") {
    spec.kind = CollectiveKind::AllGather;
    spec.bytes = 1024;
    const Error e = validation_error(mixed_dp_communicators(spec));
    CHECK(e.message().find("all_gather of 1024 bytes (program 0) vs all_gather of 123456789.125 bytes") !=
          std::string::npos);
  }
  SUBCASE("one rank issuing a collective the other does not") {
    Trace trace = mixed_dp_communicators(spec);
    trace.programs[0].ops.pop_back();
    const Error e = validation_error(trace);
    CHECK(e.field() == "programs[1].ops[2]");
    CHECK(e.message().find("nothing (program 0) vs all_gather") != std::string::npos);
  }
}

TEST_CASE("validate bounds the world and the per-group rank tables before they are allocated") {
  Trace trace = two_rank_ddp();
  trace.world_size = (1 << 20) + 1;
  CHECK(validation_error(trace).field() == "world_size");
  trace = two_rank_ddp();
  trace.world_size = 1 << 20;
  trace.rank_program.assign(1 << 20, 0);
  trace.groups.resize(40, trace.groups[0]);  // 40 groups x 2^20 ranks: 2^25 entries and more
  const Error e = validation_error(trace);
  CHECK(e.field() == "groups");
  CHECK(e.message().find("exceed the limit") != std::string::npos);
}

}  // namespace
}  // namespace simtrain::trace
