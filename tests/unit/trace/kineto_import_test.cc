// Specification of the Kineto importer on hand-built steps: the program's streams and dependencies, the
// step window, DDP's scale-out, recorded collectives, and the errors for traces that cannot be replayed.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/trace/host_dispatch.h"
#include "simulator/trace/kineto_import.h"
#include "tests/unit/trace/kineto_fixtures.h"

namespace simtrain::trace {
namespace {

using testing::KinetoDoc;

Trace imported(KinetoDoc& d, const ImportOptions& options = {}) {
  ImportReport report;
  return import_kineto({parse_kineto(d.doc(), "t.json")}, options, report);
}

// One step [0, 1000): mm launches a 50 µs kernel, the host synchronises, then add launches a 10 µs one.
KinetoDoc two_kernels_and_a_sync() {
  KinetoDoc d;
  d.step(1, 0, 1000);
  d.op("aten::mm", 100, 100, {{"Input Dims", {{64, 32}, {32, 16}}}, {"Input type", {"float", "float"}}});
  d.launch("gemm", 150, 300, 50, 1);
  d.runtime("cudaStreamSynchronize", 500, 10, 2);
  d.op("aten::add", 600, 100);
  d.launch("add_kernel", 650, 700, 10, 3);
  return d;
}

}  // namespace

TEST_CASE("each launch is a host op then a kernel on its stream; a sync makes the host wait for the GPU") {
  KinetoDoc d = two_kernels_and_a_sync();
  const Trace t = imported(d);
  REQUIRE(t.programs.size() == 1);
  const Program& p = t.programs[0];
  CHECK(p.streams == std::vector<std::string>{"host", "cuda:7"});
  // host, gemm, host (up to the sync), host (after it), add, host (the rest of the step)
  REQUIRE(p.ops.size() == 6);
  CHECK(p.ops[0].compute.kind == ComputeKind::Host);
  CHECK(p.ops[1].stream == 1);
  CHECK(p.ops[1].deps == std::vector<std::uint32_t>{0});
  CHECK(p.ops[1].compute.kind == ComputeKind::Gemm);
  // Fewer than 16 queued kernel pairs: the default gap between kernels is added to the recorded time.
  CHECK(p.ops[1].compute.duration_s == simtrain::testing::Approx(50e-6 + 1.3e-6));
  CHECK(p.ops[2].deps.empty());
  CHECK(p.ops[3].deps == std::vector<std::uint32_t>{1});  // after the sync: waits for the gemm
  CHECK(p.ops[4].deps == std::vector<std::uint32_t>{3});
  CHECK(p.ops[5].compute.kind == ComputeKind::Host);
  CHECK(t.metadata.recorded_gpu == "h200-sxm");
  CHECK(t.metadata.generator == "kineto import");
}

TEST_CASE("host ops are the profiled host work scaled to the unprofiled host, and by --host-speed") {
  KinetoDoc d = two_kernels_and_a_sync();
  // Stretch 0 is [0, 150]: 100 µs of Python before mm, mm's own 50 µs so far (it starts in this stretch,
  // and its self time is 100 - 1 µs of launch call), and the launch call itself (1 µs, under the cost).
  const double stretch0 = 100e-6 + (99e-6 - kProfilerCostPerEvent_s);
  const Trace t = imported(d);
  CHECK(t.programs[0].ops[0].compute.duration_s ==
        simtrain::testing::Approx(kDefaultHostSpeedFraction * stretch0));
  ImportOptions faster;
  faster.host_speed = 2;
  const Trace fast = imported(d, faster);
  CHECK(fast.programs[0].ops[0].compute.duration_s ==
        simtrain::testing::Approx(kDefaultHostSpeedFraction * stretch0 / 2));
}

TEST_CASE("the last ProfilerStep window is taken unless --step names another") {
  KinetoDoc d;
  d.step(2, 0, 100).step(3, 100, 100);
  d.launch("first", 10, 20, 5, 1).launch("second", 110, 120, 7, 2).launch("second_b", 150, 160, 7, 3);
  CHECK(imported(d).programs[0].ops.size() == 5);  // host, kernel, host, kernel, host
  ImportOptions step2;
  step2.step = 2;
  CHECK(imported(d, step2).programs[0].ops.size() == 3);
  ImportOptions step9;
  step9.step = 9;
  CHECK_THROWS_WITH_AS(imported(d, step9), doctest::Contains("no ProfilerStep#9 window (the trace has 2, 3)"),
                       Error);
}

TEST_CASE("where two windows launched the same kernels, each host stretch is the lesser of the two") {
  // Window 2 spends 100 µs of Python before its launch, window 3 (the one replayed) 400 µs: the noise of the
  // profiled host only adds, so the replay takes 100 µs, unless --step names the window.
  KinetoDoc d;
  d.step(2, 0, 1000).step(3, 1000, 1000);
  d.launch("k", 100, 110, 5, 1).launch("k", 1400, 1410, 5, 2);
  const Trace t = imported(d);
  CHECK(t.programs[0].ops[0].compute.duration_s ==
        simtrain::testing::Approx(kDefaultHostSpeedFraction * 100e-6));
  ImportOptions step3;
  step3.step = 3;
  CHECK(imported(d, step3).programs[0].ops[0].compute.duration_s ==
        simtrain::testing::Approx(kDefaultHostSpeedFraction * 400e-6));
  // Windows that launched different kernels are not compared.
  KinetoDoc other;
  other.step(2, 0, 1000).step(3, 1000, 1000);
  other.launch("k", 100, 110, 5, 1).launch("different", 1400, 1410, 5, 2);
  CHECK(imported(other).programs[0].ops[0].compute.duration_s ==
        simtrain::testing::Approx(kDefaultHostSpeedFraction * 400e-6));
}

TEST_CASE("a trace without ProfilerStep windows is one step, with a warning") {
  KinetoDoc d;
  d.launch("k", 10, 20, 5, 1);
  ImportReport report;
  const Trace t = import_kineto({parse_kineto(d.doc(), "t.json")}, {}, report);
  CHECK(t.programs[0].ops.size() == 3);
  REQUIRE_FALSE(report.warnings.empty());
  CHECK(report.warnings[0].find("no ProfilerStep#N window") != std::string::npos);
}

TEST_CASE("a kernel in the step that nothing launched is an error naming it") {
  KinetoDoc d;
  d.step(1, 0, 100);
  d.launch("k", 10, 20, 5, 1);
  d.kernel("orphan", 40, 5, 99);
  CHECK_THROWS_WITH_AS(imported(d),
                       doctest::Contains("t.json: traceEvents[3] ('orphan'): no CUDA runtime call "
                                         "launched it (correlation 99)"),
                       Error);
}

TEST_CASE("a step without GPU work is an error") {
  KinetoDoc d;
  d.step(1, 0, 100);
  d.op("aten::empty", 10, 5);
  CHECK_THROWS_WITH_AS(imported(d), doctest::Contains("no GPU kernels"), Error);
}

TEST_CASE(
    "scaled out as DDP: buckets all-reduced when their last gradient is ready, waited for after backward") {
  KinetoDoc d;
  d.step(1, 0, 1000);
  d.op("aten::conv2d", 5, 5, {{"Input Dims", {{32, 3, 224, 224}}}, {"Input type", {"c10::Half"}}});
  d.launch("fwd", 10, 20, 5, 1);
  d.launch("bwd_a", 100, 110, 5, 2);
  // A 4 MiB fp32 gradient is complete after bwd_a: the first bucket (1 MiB cap) closes on it.
  d.op("torch::autograd::AccumulateGrad", 120, 10,
       {{"Input Dims", {{1024, 1024}}}, {"Input type", {"float"}}}, 2);
  d.launch("bwd_b", 200, 210, 5, 3);
  d.op("torch::autograd::AccumulateGrad", 220, 10, {{"Input Dims", {{256}}}, {"Input type", {"float"}}}, 2);
  d.launch("optimizer", 300, 310, 5, 4);
  ImportOptions ddp;
  ddp.data_parallel_ranks = 4;
  const Trace t = imported(d, ddp);
  CHECK(t.world_size == 4);
  CHECK(t.metadata.parallelism == "ddp");
  CHECK(t.metadata.samples_per_iteration == 4 * 32);
  REQUIRE(t.groups.size() == 1);
  CHECK(t.groups[0].communicators[0] == std::vector<int>{0, 1, 2, 3});
  std::vector<std::uint32_t> reduces;
  const Program& p = t.programs[0];
  for (std::uint32_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].type == OpType::Collective) reduces.push_back(i);
  REQUIRE(reduces.size() == 2);
  CHECK(p.ops[reduces[0]].collective.bytes == 4.0 * 1024 * 1024);
  CHECK(p.ops[p.ops[reduces[0]].deps[0]].name == "bwd_a");
  CHECK(p.ops[reduces[1]].collective.bytes == 1024);
  // The optimizer's kernel waits for both all-reduces.
  const Op& optimizer = p.ops[p.ops.size() - 2];
  CHECK(optimizer.name == "optimizer");
  CHECK(std::find(optimizer.deps.begin(), optimizer.deps.end(), reduces[0]) != optimizer.deps.end());
  CHECK(std::find(optimizer.deps.begin(), optimizer.deps.end(), reduces[1]) != optimizer.deps.end());
}

TEST_CASE("scaled out as FSDP: each unit gathered before its forward and backward, reduce-scattered after") {
  KinetoDoc d;
  d.step(1, 0, 1000);
  d.launch("fwd_first", 10, 20, 5, 1);
  d.launch("fwd_second", 30, 40, 5, 2);
  // Backward kernels are named after the autograd function that launched them.
  const std::string bwd_second = "autograd::engine::evaluate_function: SecondBackward0";
  const std::string bwd_first = "autograd::engine::evaluate_function: FirstBackward0";
  d.op(bwd_second, 95, 40, nlohmann::json::object(), 2);
  d.launch("k", 100, 110, 5, 3, 7, 2);
  d.op("torch::autograd::AccumulateGrad", 120, 5, {{"Input Dims", {{64, 64}}}, {"Input type", {"float"}}}, 2);
  d.op(bwd_first, 195, 40, nlohmann::json::object(), 2);
  d.launch("k", 200, 210, 5, 4, 7, 2);
  d.op("torch::autograd::AccumulateGrad", 220, 5, {{"Input Dims", {{64, 64}}}, {"Input type", {"float"}}}, 2);
  d.launch("optimizer", 300, 310, 40, 5);
  ImportOptions fsdp;
  fsdp.data_parallel_ranks = 4;
  fsdp.sharding = DataParallelSharding::Fsdp;
  fsdp.fsdp_min_unit_params = 4096;  // one unit per 64x64 gradient
  const Trace t = imported(d, fsdp);
  CHECK(t.metadata.parallelism == "fsdp");
  const Program& p = t.programs[0];
  const auto index_of = [&](const std::string& name) {
    for (std::uint32_t i = 0; i < p.ops.size(); ++i)
      if (p.ops[i].name == name) return i;
    FAIL("no op " << name);
    return 0u;
  };
  const auto waits_for = [&](const std::string& op, const std::string& on) {
    const auto& deps = p.ops[index_of(op)].deps;
    return std::find(deps.begin(), deps.end(), index_of(on)) != deps.end();
  };
  // Unit 0 (the last in forward) is gathered once and kept for backward; unit 1 is gathered again,
  // prefetched when unit 0's backward starts.
  CHECK(waits_for("fwd_first", "fsdp unit 1 forward all-gather"));
  CHECK(waits_for("fwd_second", "fsdp unit 0 forward all-gather"));
  CHECK(waits_for(bwd_first, "fsdp unit 1 backward all-gather"));
  CHECK(p.ops[index_of("fsdp unit 1 backward all-gather")].collective.kind == CollectiveKind::AllGather);
  CHECK(p.ops[index_of("fsdp unit 1 backward all-gather")].collective.bytes == 64 * 64 * 4);
  CHECK(index_of("fsdp unit 1 backward all-gather") < index_of(bwd_second));
  const Op& reduce = p.ops[index_of("fsdp unit 0 reduce-scatter")];
  CHECK(reduce.collective.kind == CollectiveKind::ReduceScatter);
  CHECK(p.ops[reduce.deps[0]].name == bwd_second);
  CHECK(waits_for("optimizer", "fsdp unit 0 reduce-scatter"));
  CHECK(waits_for("optimizer", "fsdp unit 1 reduce-scatter"));
  // The optimizer updates a quarter of the parameters: 40 us / 4, plus the GPU's gap between kernels.
  CHECK(p.ops[index_of("optimizer")].compute.duration_s ==
        simtrain::testing::Approx(10e-6 + 1.3e-6).epsilon(0.01));
}

TEST_CASE("FSDP needs the backward pass the autograd engine recorded") {
  KinetoDoc d;
  d.step(1, 0, 1000);
  d.launch("fwd", 10, 20, 5, 1);
  d.launch("bwd", 100, 110, 5, 2);
  d.op("torch::autograd::AccumulateGrad", 120, 10, {{"Input Dims", {{256}}}, {"Input type", {"float"}}}, 2);
  ImportOptions fsdp;
  fsdp.data_parallel_ranks = 8;
  fsdp.sharding = DataParallelSharding::Fsdp;
  CHECK_THROWS_WITH_AS(imported(d, fsdp), doctest::Contains("autograd::engine::evaluate_function"), Error);
}

TEST_CASE("scaling out needs the gradients the trace recorded") {
  KinetoDoc d = two_kernels_and_a_sync();
  ImportOptions ddp;
  ddp.data_parallel_ranks = 8;
  CHECK_THROWS_WITH_AS(imported(d, ddp), doctest::Contains("AccumulateGrad"), Error);
}

TEST_CASE("NCCL kernels of a multi-rank trace become collectives on the recorded communicator") {
  std::vector<KinetoTrace> ranks;
  for (int r = 0; r < 2; ++r) {
    KinetoDoc d;
    d.doc()["distributedInfo"] = {{"rank", r}, {"world_size", 2}};
    d.step(1, 0, 1000);
    d.launch("gemm", 10, 20, 50, 1);
    d.op("record_param_comms", 100, 50,
         {{"Collective name", "allreduce"},
          {"In msg nelems", 1000},
          {"Out msg nelems", 1000},
          {"dtype", "BFloat16"},
          {"Process Group Ranks", "[0, 1]"},
          {"Process Group Name", "0"}});
    d.launch("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 120, 130, 80,
             2, 20);
    ranks.push_back(parse_kineto(d.doc(), "rank" + std::to_string(r) + ".json"));
  }
  ImportReport report;
  const Trace t = import_kineto(ranks, {}, report);
  CHECK(t.world_size == 2);
  REQUIRE(t.programs.size() == 2);
  REQUIRE(t.groups.size() == 1);
  CHECK(t.groups[0].communicators[0] == std::vector<int>{0, 1});
  const Program& p = t.programs[t.rank_program[1]];
  CHECK(p.streams == std::vector<std::string>{"host", "cuda:7", "cuda:20"});
  const Op& reduce = p.ops[3];
  CHECK(reduce.type == OpType::Collective);
  CHECK(reduce.collective.kind == CollectiveKind::AllReduce);
  CHECK(reduce.collective.bytes == 2000);
  CHECK(reduce.collective.dtype == DType::BF16);
}

TEST_CASE("one file per rank: a missing rank's file is an error") {
  KinetoDoc d;
  d.doc()["distributedInfo"] = {{"rank", 0}, {"world_size", 4}};
  d.step(1, 0, 100);
  d.launch("k", 10, 20, 5, 1);
  CHECK_THROWS_WITH_AS(imported(d), doctest::Contains("the job has 4 ranks but 1 trace files were given"),
                       Error);
}

TEST_CASE("GPU names map to simtrain profiles") {
  CHECK(profile_for_device_name("NVIDIA H200") == "h200-sxm");
  CHECK(profile_for_device_name("NVIDIA A100-SXM4-40GB") == "a100-sxm4-40gb");
  CHECK(profile_for_device_name("NVIDIA GeForce RTX 4090").empty());
}

}  // namespace simtrain::trace
