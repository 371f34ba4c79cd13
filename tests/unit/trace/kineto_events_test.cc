// Specification of the Kineto event reader: what it keeps, what it counts, what it refuses.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/trace/kineto_events.h"
#include "tests/unit/trace/kineto_fixtures.h"

namespace simtrain::trace {

using testing::KinetoDoc;

TEST_CASE("a Chrome trace's operators, runtime calls, kernels and steps are read and sorted by time") {
  KinetoDoc d;
  d.launch("gemm_kernel", 20, 30, 5, 42).op("aten::mm", 10, 15, {{"Input Dims", {{64, 32}, {32, 16}}},
                                                                {"Input type", {"c10::Half", "c10::Half"}}});
  d.step(3, 0, 100).step(2, -100, 100);
  d.add({{"ph", "f"}, {"cat", "ac2g"}, {"name", "ac2g"}, {"id", 1}});
  const KinetoTrace t = parse_kineto(d.doc(), "t.json");
  REQUIRE(t.steps.size() == 2);
  CHECK(t.steps[0].number == 2);
  CHECK(t.steps[1].end_us == 100);
  REQUIRE(t.cpu_ops.size() == 1);
  CHECK(t.cpu_ops[0].input_dims == std::vector<std::vector<std::int64_t>>{{64, 32}, {32, 16}});
  REQUIRE(t.runtime_calls.size() == 1);
  CHECK(t.runtime_calls[0].correlation == 42);
  REQUIRE(t.gpu_activities.size() == 1);
  CHECK(t.gpu_activities[0].stream == 7);
  CHECK(t.gpu_activities[0].duration_us == 5);
  CHECK(t.gpu_name == "NVIDIA H200");
  CHECK(t.unknown_kinds.empty());
}

TEST_CASE("event kinds the importer does not use are counted, not refused") {
  KinetoDoc d;
  d.add({{"ph", "X"}, {"cat", "gpu_frobnicate"}, {"name", "x"}, {"ts", 0}, {"dur", 1}});
  d.add({{"ph", "X"}, {"cat", "gpu_frobnicate"}, {"name", "y"}, {"ts", 1}, {"dur", 1}});
  d.add({{"ph", "Q"}, {"name", "z"}});
  const KinetoTrace t = parse_kineto(d.doc(), "t.json");
  CHECK(t.unknown_kinds.at("gpu_frobnicate") == 2);
  CHECK(t.unknown_kinds.at("ph Q") == 1);
}

TEST_CASE("a kernel without a correlation id or stream is an error naming the event") {
  KinetoDoc d;
  d.add({{"ph", "X"}, {"cat", "kernel"}, {"name", "k"}, {"ts", 0}, {"dur", 1}, {"args", {{"stream", 7}}}});
  CHECK_THROWS_WITH_AS(parse_kineto(d.doc(), "t.json"),
                       doctest::Contains("t.json: traceEvents[0] ('k').args.correlation: missing"), Error);
}

TEST_CASE("negative durations, non-numeric times and malformed shapes are errors") {
  KinetoDoc negative;
  negative.op("aten::add", 0, -1);
  CHECK_THROWS_WITH_AS(parse_kineto(negative.doc(), "t.json"), doctest::Contains("dur: out of range"), Error);
  KinetoDoc text_time;
  text_time.add({{"ph", "X"}, {"cat", "cpu_op"}, {"name", "a"}, {"ts", "soon"}, {"dur", 1}, {"tid", 1}});
  CHECK_THROWS_WITH_AS(parse_kineto(text_time.doc(), "t.json"), doctest::Contains("ts: missing or not a number"),
                       Error);
  KinetoDoc shapes;
  shapes.op("aten::mm", 0, 1, {{"Input Dims", {{-4, 2}}}});
  CHECK_THROWS_WITH_AS(parse_kineto(shapes.doc(), "t.json"), doctest::Contains("Input Dims"), Error);
}

TEST_CASE("a document without traceEvents is not a Chrome trace") {
  CHECK_FALSE(looks_like_kineto(nlohmann::json::object()));
  CHECK_FALSE(looks_like_kineto(nlohmann::json::array()));
  CHECK_THROWS_AS(parse_kineto(nlohmann::json{{"schema", "x"}}, "t.json"), Error);
}

TEST_CASE("a collective's communicator and sizes are read from record_param_comms") {
  KinetoDoc d;
  d.op("record_param_comms", 0, 10,
       {{"Collective name", "allreduce"}, {"In msg nelems", 1024}, {"Out msg nelems", 1024}, {"dtype", "Float"},
        {"Process Group Ranks", "[0, 1, 2, 3]"}, {"Process Group Name", "0"}});
  const KinetoTrace t = parse_kineto(d.doc(), "t.json");
  REQUIRE(t.cpu_ops.size() == 1);
  CHECK(t.cpu_ops[0].collective == "allreduce");
  CHECK(t.cpu_ops[0].in_elements == 1024);
  CHECK(t.cpu_ops[0].process_group_ranks == std::vector<int>{0, 1, 2, 3});
}

}  // namespace simtrain::trace
