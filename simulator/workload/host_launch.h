// The host thread in front of a generated program: each kernel and collective is launched by the rank's CPU
// thread after a fixed dispatch cost, on a "host" stream of ComputeKind::Host ops. The engine runs that
// stream as it runs an imported trace's host (engine/replay.cc), so a host that falls behind leaves the GPU
// idle and the Result's breakdown.host_bound_s says how long.
#pragma once

#include "simulator/trace/trace.h"

namespace simtrain::workload {

// Rewrites `program` so that every compute and collective op waits for a host op of
// `dispatch_per_kernel_s` seconds issued just before it, the host ops running one after another in issue
// order. Dependencies are kept (renumbered). Throws Error when dispatch_per_kernel_s is not positive or the
// program already has a "host" stream.
void add_host_launches(trace::Program& program, double dispatch_per_kernel_s);

}  // namespace simtrain::workload
