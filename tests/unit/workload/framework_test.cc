// Specification of the frameworks (simulator/workload/framework.h): how each reduces gradients and what it
// adds to a job.
#include <doctest/doctest.h>

#include "simulator/workload/framework.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

std::vector<const trace::Op*> collectives(const trace::Program& program) {
  std::vector<const trace::Op*> ops;
  for (const trace::Op& op : program.ops)
    if (op.type == trace::OpType::Collective) ops.push_back(&op);
  return ops;
}

// The index of the last backward kernel of the step.
std::uint32_t end_of_backward(const trace::Program& program) {
  std::uint32_t last = 0;
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    const trace::Op& op = program.ops[i];
    if (op.type == trace::OpType::Compute &&
        (op.compute.pass == trace::Pass::BackwardData || op.compute.pass == trace::Pass::BackwardWeight))
      last = i;
  }
  return last;
}

}  // namespace

TEST_CASE("DeepSpeed reduces all gradients in one 5e8-element bucket after backward, DDP overlaps five") {
  DataParallelConfig ddp;  // resnet50, 8 GPUs
  DataParallelConfig deepspeed = ddp;
  apply_framework(Framework::DeepSpeed, deepspeed);
  CHECK(deepspeed.bucket_bytes == 2e9);
  CHECK_FALSE(deepspeed.overlap_allreduce);
  const trace::Trace t = generate_data_parallel_trace(deepspeed);
  const auto reduces = collectives(t.programs[0]);
  REQUIRE(reduces.size() == 1);  // 25.6 M parameters fit one bucket
  CHECK(reduces[0]->collective.bytes == 4.0 * 25557032);
  CHECK(reduces[0]->deps == std::vector<std::uint32_t>{end_of_backward(t.programs[0])});
  CHECK(t.metadata.parallelism == "deepspeed");

  const trace::Trace d = generate_data_parallel_trace(ddp);
  CHECK(collectives(d.programs[0]).size() == 5);
  CHECK(collectives(d.programs[0]).front()->deps[0] < end_of_backward(d.programs[0]));  // overlapped
}

TEST_CASE("Ray Train runs DDP's schedule and adds a start-up and a per-step overhead") {
  DataParallelConfig ray;
  apply_framework(Framework::RayTrain, ray);
  CHECK(ray.overlap_allreduce);
  CHECK(ray.bucket_bytes == DataParallelConfig{}.bucket_bytes);
  CHECK(generate_data_parallel_trace(ray).metadata.parallelism == "ray-train");
  const FrameworkOverheads o = default_overheads(Framework::RayTrain);
  CHECK(o.startup_for(16) == 6.0);  // grows with the workers Ray places
  CHECK(o.startup_for(64) > o.startup_for(16));
  CHECK(default_overheads(Framework::PyTorchDDP).startup_for(64) == 3.0);
  CHECK(o.step_overhead == 0.023);
  CHECK(default_overheads(Framework::PyTorchDDP).step_overhead == 0);
}

TEST_CASE("framework names round-trip") {
  for (Framework f : {Framework::PyTorchDDP, Framework::RayTrain, Framework::DeepSpeed})
    CHECK(parse_framework(to_string(f)) == f);
  CHECK_FALSE(parse_framework("horovod"));
}
