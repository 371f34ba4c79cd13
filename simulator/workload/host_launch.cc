// Implements host_launch.h.
#include "simulator/workload/host_launch.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace simtrain::workload {

void add_host_launches(trace::Program& program, double dispatch_per_kernel_s) {
  if (!(dispatch_per_kernel_s > 0)) throw Error("host dispatch_per_kernel_s: must be positive");
  if (std::find(program.streams.begin(), program.streams.end(), "host") != program.streams.end())
    throw Error("program " + program.name + " already has a host stream");
  const auto host_stream = static_cast<std::uint8_t>(program.streams.size());
  program.streams.push_back("host");

  std::vector<trace::Op> ops = std::move(program.ops);
  program.ops.clear();
  program.ops.reserve(2 * ops.size());
  std::vector<std::uint32_t> new_index(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    trace::Op op = std::move(ops[i]);
    for (std::uint32_t& dep : op.deps) dep = new_index[dep];
    if (op.type == trace::OpType::Compute || op.type == trace::OpType::Collective) {
      trace::Op launch;
      launch.name = "host";
      launch.type = trace::OpType::Compute;
      launch.stream = host_stream;
      launch.compute.kind = trace::ComputeKind::Host;
      launch.compute.duration_s = dispatch_per_kernel_s;
      op.deps.push_back(trace::append(program, std::move(launch)));
    }
    new_index[i] = trace::append(program, std::move(op));
  }
}

}  // namespace simtrain::workload
