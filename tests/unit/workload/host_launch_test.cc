// Specification of add_host_launches (host_launch.h): a host op in front of every kernel and collective.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "simulator/workload/data_parallel.h"
#include "simulator/workload/host_launch.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

trace::Program program_on(std::vector<std::string> streams) {
  trace::Program program;
  program.name = "p";
  program.streams = std::move(streams);
  return program;
}

trace::Op gemm_kernel() {
  trace::Op kernel;
  kernel.name = "k";
  kernel.type = trace::OpType::Compute;
  kernel.compute.kind = trace::ComputeKind::Gemm;
  return kernel;
}

}  // namespace

TEST_CASE("every kernel waits for its launch, launches run in issue order, dependencies are kept") {
  trace::Program program = program_on({"compute", "comm"});
  const trace::Op kernel = gemm_kernel();
  trace::append(program, kernel);
  trace::Op second = kernel;
  second.deps = {0};
  trace::append(program, second);

  const HostProfile host{.name = "h", .dispatch_per_kernel_s = 3e-5};
  add_host_launches(program, host);
  REQUIRE(program.ops.size() == 4);
  REQUIRE(program.streams.size() == 3);
  CHECK(program.streams[2] == "host");
  CHECK(program.ops[0].compute.kind == trace::ComputeKind::Host);
  CHECK(program.ops[0].compute.duration_s == 3e-5);
  CHECK(program.ops[0].stream == 2);
  CHECK(program.ops[1].deps == std::vector<std::uint32_t>{0});
  CHECK(program.ops[3].deps == std::vector<std::uint32_t>{1, 2});  // the first kernel, then its launch
  CHECK_THROWS_AS(add_host_launches(program, host), Error);        // already has a host
}

TEST_CASE("a generated step with a host profile is launched kernel by kernel") {
  DataParallelConfig config;
  config.gpus = 1;
  const std::size_t ops = generate_data_parallel_trace(config).programs[0].ops.size();
  config.host = HostProfile{.name = "test", .dispatch_per_kernel_s = 2e-5};
  const trace::Program with_host = generate_data_parallel_trace(config).programs[0];
  CHECK(with_host.ops.size() == 2 * ops);
}

TEST_CASE("per-op launches: dispatches and looped kernels price the host op; a waited op holds the host") {
  trace::Program program = program_on({"compute"});
  const trace::Op kernel = gemm_kernel();
  for (int i = 0; i < 3; ++i) trace::append(program, kernel);

  const HostProfile host{.name = "h", .dispatch_per_kernel_s = 3e-5, .launch_call_s = 1e-5};
  add_host_launches(program, host,
                    {{.launches = 1, .looped_kernels = 3, .host_waits = true}, {.launches = 0}, {}});
  // launch k0 (one dispatch, three looped launches), k1 (no launch of its own: inside a captured graph),
  // launch k2 once k0 has run.
  REQUIRE(program.ops.size() == 5);
  CHECK(program.ops[0].compute.duration_s == simtrain::testing::Approx(3e-5 + 3 * 1e-5));
  CHECK(program.ops[1].deps == std::vector<std::uint32_t>{0});
  CHECK(program.ops[2].deps.empty());
  CHECK(program.ops[3].compute.kind == trace::ComputeKind::Host);
  CHECK(program.ops[3].compute.duration_s == simtrain::testing::Approx(3e-5));
  CHECK(program.ops[3].deps == std::vector<std::uint32_t>{1});  // the host waits for k0
  CHECK(program.ops[4].deps == std::vector<std::uint32_t>{3});

  trace::Program fresh = program_on({"compute"});
  trace::append(fresh, kernel);
  trace::append(fresh, kernel);
  CHECK_THROWS_AS(add_host_launches(fresh, host, {{}}), Error);  // one entry for two ops
}

TEST_CASE("a device synchronisation holds the host until the last op of every stream has run") {
  trace::Program program = program_on({"compute", "send"});
  const trace::Op kernel = gemm_kernel();
  trace::Op send;
  send.name = "s";
  send.type = trace::OpType::Send;
  send.stream = 1;
  trace::append(program, kernel);  // k0
  trace::append(program, kernel);  // k1
  trace::append(program, send);    // s
  trace::append(program, kernel);  // k3: launched after torch.cuda.synchronize
  trace::append(program, kernel);  // k4

  const HostProfile host{.name = "h", .dispatch_per_kernel_s = 3e-5};
  add_host_launches(program, host, {{}, {}, {}, {.device_sync = true}, {}});
  // host0 k0 host1 k1 host2 s host3 k3 host4 k4: host3 waits for k1 (the compute stream's last op, which
  // ran after k0) and s; the launches after it follow it in issue order.
  REQUIRE(program.ops.size() == 10);
  CHECK(program.ops[6].compute.kind == trace::ComputeKind::Host);
  CHECK(program.ops[6].deps == std::vector<std::uint32_t>{3, 5});
  CHECK(program.ops[8].deps.empty());

  // A synchronisation with nothing to launch (inside a captured graph) still holds the host.
  trace::Program graph = program_on({"compute"});
  trace::append(graph, kernel);
  trace::append(graph, kernel);
  add_host_launches(graph, host, {{}, {.launches = 0, .device_sync = true}});
  REQUIRE(graph.ops.size() == 4);
  CHECK(graph.ops[2].compute.kind == trace::ComputeKind::Host);
  CHECK(graph.ops[2].compute.duration_s == 0);
  CHECK(graph.ops[2].deps == std::vector<std::uint32_t>{1});
  CHECK(graph.ops[3].deps == std::vector<std::uint32_t>{2});
}

TEST_CASE("a profile without a launch call prices looped kernels as full dispatches") {
  CHECK(HostProfile{.dispatch_per_kernel_s = 3e-5}.looped_launch_s() == 3e-5);
  CHECK(HostProfile{.dispatch_per_kernel_s = 3e-5, .launch_call_s = 1e-5}.looped_launch_s() == 1e-5);
}
