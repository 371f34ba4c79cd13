// Implements host_launch.h.
#include "simulator/workload/host_launch.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace simtrain::workload {

void add_host_launches(trace::Program& program, const HostProfile& host) {
  std::vector<HostLaunch> per_op(program.ops.size());
  for (std::size_t i = 0; i < per_op.size(); ++i) {
    const trace::OpType type = program.ops[i].type;
    if (type != trace::OpType::Compute && type != trace::OpType::Collective) per_op[i].launches = 0;
  }
  add_host_launches(program, host, per_op);
}

void add_host_launches(trace::Program& program, const HostProfile& host,
                       const std::vector<HostLaunch>& per_op) {
  if (per_op.size() != program.ops.size())
    throw Error("program " + program.name + ": host launches given for " + std::to_string(per_op.size()) +
                " of " + std::to_string(program.ops.size()) + " ops");
  if (!(host.dispatch_per_kernel_s > 0)) throw Error("host dispatch_per_kernel_s: must be positive");
  if (std::find(program.streams.begin(), program.streams.end(), "host") != program.streams.end())
    throw Error("program " + program.name + " already has a host stream");
  const auto host_stream = static_cast<std::uint8_t>(program.streams.size());
  program.streams.push_back("host");

  std::vector<trace::Op> ops = std::move(program.ops);
  program.ops.clear();
  program.ops.reserve(2 * ops.size());
  std::vector<std::uint32_t> new_index(ops.size());
  std::vector<std::uint32_t> waited;  // ops the next host op waits for
  std::vector<std::optional<std::uint32_t>> last_on_stream(program.streams.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    trace::Op op = std::move(ops[i]);
    for (std::uint32_t& dep : op.deps) dep = new_index[dep];
    const HostLaunch& launch_of = per_op[i];
    const double host_s =
        launch_of.launches * host.dispatch_per_kernel_s + launch_of.looped_kernels * host.looped_launch_s();
    if (launch_of.device_sync)
      for (const std::optional<std::uint32_t>& last : last_on_stream)
        if (last) waited.push_back(*last);
    if (host_s > 0 || launch_of.device_sync) {
      trace::Op launch;
      launch.name = "host";
      launch.type = trace::OpType::Compute;
      launch.stream = host_stream;
      launch.deps = std::move(waited);
      waited.clear();
      launch.compute.kind = trace::ComputeKind::Host;
      launch.compute.duration_s = host_s;
      op.deps.push_back(trace::append(program, std::move(launch)));
    }
    const std::uint8_t stream = op.stream;
    new_index[i] = trace::append(program, std::move(op));
    last_on_stream.at(stream) = new_index[i];
    if (launch_of.host_waits) waited.push_back(new_index[i]);
  }
}

}  // namespace simtrain::workload
