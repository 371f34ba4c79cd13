// Specification of the Perfetto / Chrome timeline: a process per rank named "rank N", a thread per stream
// named after it, and each op a complete ("X") event with times in microseconds.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "common/error.h"
#include "simulator/report/timeline.h"

namespace simtrain {
namespace {

using nlohmann::json;

// Two ranks running one program: a 1 ms backward kernel on "compute", then an all-reduce on "comm".
trace::Trace test_trace() {
  trace::Trace t;
  t.world_size = 2;
  trace::Program program{"ddp", {"compute", "comm"}, {}};
  trace::Op backward;
  backward.name = "backward";
  backward.compute.kind = trace::ComputeKind::Gemm;
  backward.compute.flops = 2e9;
  backward.compute.bytes = 4e6;
  trace::Op all_reduce;
  all_reduce.name = "grads.all_reduce";
  all_reduce.type = trace::OpType::Collective;
  all_reduce.stream = 1;
  all_reduce.deps = {0};
  all_reduce.collective.bytes = 1e8;
  program.ops = {backward, all_reduce};
  t.programs = {program};
  t.rank_program = {0, 0};
  return t;
}

// Rank 0 only was recorded: backward over [0, 1 ms], the all-reduce over [1 ms, 2.5 ms].
engine::ReplayResult test_replay() {
  engine::ReplayResult r;
  r.makespan_s = 2.5e-3;
  r.events = {{0, 0, 0.0, 1e-3}, {0, 1, 1e-3, 2.5e-3}};
  return r;
}

std::vector<json> events_with(const json& timeline, const std::string& phase) {
  std::vector<json> out;
  for (const json& e : timeline.at("traceEvents"))
    if (e.at("ph") == phase) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("each recorded rank is a process named 'rank N' with a thread named after each stream") {
  const json timeline = report::timeline_json(test_trace(), test_replay());
  const std::vector<json> metadata = events_with(timeline, "M");
  // Only rank 0 has events, so only it gets a process: its name, its sort index, and its two threads.
  REQUIRE(metadata.size() == 4);
  CHECK(metadata[0] ==
        json{{"ph", "M"}, {"name", "process_name"}, {"pid", 0}, {"args", {{"name", "rank 0"}}}});
  CHECK(metadata[1].at("name") == "process_sort_index");
  CHECK(metadata[1].at("args").at("sort_index") == 0);
  CHECK(metadata[2] ==
        json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", 0}, {"args", {{"name", "compute"}}}});
  CHECK(metadata[3] ==
        json{{"ph", "M"}, {"name", "thread_name"}, {"pid", 0}, {"tid", 1}, {"args", {{"name", "comm"}}}});
}

TEST_CASE("each op is a complete event on its rank and stream with ts and dur in microseconds") {
  const json timeline = report::timeline_json(test_trace(), test_replay());
  const std::vector<json> ops = events_with(timeline, "X");
  REQUIRE(ops.size() == 2);
  // Microseconds of round milliseconds: 1e-3 s * 1e6 may round in the last bit, so compare to 1e-9.
  CHECK(ops[0].at("name") == "backward");
  CHECK(ops[0].at("cat") == "compute");
  CHECK(ops[0].at("pid") == 0);
  CHECK(ops[0].at("tid") == 0);
  CHECK(ops[0].at("ts").get<double>() == 0.0);
  CHECK(ops[0].at("dur").get<double>() == simtrain::testing::Approx(1000.0).epsilon(1e-9));
  CHECK(ops[0].at("args") == json{{"kind", "gemm"}, {"flops", 2e9}, {"bytes", 4e6}});

  CHECK(ops[1].at("name") == "grads.all_reduce");
  CHECK(ops[1].at("cat") == "collective");
  CHECK(ops[1].at("tid") == 1);
  CHECK(ops[1].at("ts").get<double>() == simtrain::testing::Approx(1000.0).epsilon(1e-9));
  CHECK(ops[1].at("dur").get<double>() == simtrain::testing::Approx(1500.0).epsilon(1e-9));
  CHECK(ops[1].at("args") == json{{"op", "all_reduce"}, {"bytes", 1e8}});
}

TEST_CASE("a replay without recorded events gives a timeline without events") {
  const json timeline = report::timeline_json(test_trace(), engine::ReplayResult{});
  CHECK(timeline.at("traceEvents").empty());
  CHECK(timeline.at("displayTimeUnit") == "ms");
}

TEST_CASE("the timeline file holds the timeline JSON; an unwritable path is an Error") {
  const auto dir = std::filesystem::temp_directory_path() / ("simtrain-timeline-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "timeline.json").string();
  report::write_timeline_file(test_trace(), test_replay(), path);
  std::ifstream in(path);
  CHECK(json::parse(in) == report::timeline_json(test_trace(), test_replay()));
  CHECK_THROWS_AS(
      report::write_timeline_file(test_trace(), test_replay(), (dir / "missing" / "t.json").string()), Error);
  std::filesystem::remove_all(dir);
}

}  // namespace simtrain
