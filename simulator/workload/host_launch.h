// The host thread in front of a generated program: each kernel and collective is launched by the rank's CPU
// thread after a fixed dispatch cost, on a "host" stream of ComputeKind::Host ops. The engine runs that
// stream as it runs an imported trace's host (engine/replay.cc), so a host that falls behind leaves the GPU
// idle and the Result's breakdown.host_bound_s says how long.
#pragma once

#include <vector>

#include "simulator/trace/trace.h"
#include "simulator/workload/host_profile.h"

namespace simtrain::workload {

// What the host does for one op of a program: the kernels the framework launches for it (a grouped GEMM
// of one GEMM per local expert is several; an op inside a captured CUDA graph none of its own), whether
// the host then blocks until the op has run (a device-to-host copy it reads, such as the token counts a
// dropless MoE dispatcher needs before its all-to-all), and whether it first blocks until everything issued
// before the op has run, on every stream (torch.cuda.synchronize, as Megatron-Core calls after each batched
// pipeline send and receive).
struct HostLaunch {
  double launches = 1;        // operators dispatched (Python, PyTorch's dispatcher, the launch)
  double looped_kernels = 0;  // further kernels their C++ code launches in a loop (launch call only)
  bool host_waits = false;
  bool device_sync = false;
};

// Rewrites `program` so that every compute and collective op waits for a host op of
// `host.dispatch_per_kernel_s` seconds issued just before it, the host ops running one after another in
// issue order. Dependencies are kept (renumbered). Throws Error when the dispatch cost is not positive or
// the program already has a "host" stream.
void add_host_launches(trace::Program& program, const HostProfile& host);
// The same with `per_op[i]` describing op i (per_op.size() == program.ops.size()): its host op lasts
// launches x dispatch_per_kernel_s + looped_kernels x host.looped_launch_s() (none when both are zero),
// a host_waits op holds back the host ops after it until it has ended, and a device_sync op's host op waits
// for the last op issued before it on every stream (a stream runs its ops in issue order).
void add_host_launches(trace::Program& program, const HostProfile& host,
                       const std::vector<HostLaunch>& per_op);

}  // namespace simtrain::workload
