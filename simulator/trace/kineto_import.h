// Kineto (torch.profiler) traces into the Trace: one recorded training step per rank, replayed as it ran.
//
// Per rank, the step's program has a `host` stream and one stream per CUDA stream the step used:
//  - the host stream holds the launching threads' work between consecutive launches and synchronisations
//    (ComputeKind::Host ops, timed without the profiler's overhead: host_dispatch.h);
//  - each GPU activity (kernel, memcpy, memset) becomes an op of its stream at its recorded duration plus
//    the GPU's gap between back-to-back kernels (measured in the trace), depending on the host op that
//    launched it, so a GPU the host cannot feed waits;
//  - a host synchronisation (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize, `.item()`)
//    makes the next host op wait for the work launched before it; a stream waiting on another's event
//    (Kineto's cuda_sync "Wait on Stream") makes its next op wait for the other stream's last op;
//  - NCCL kernels launched by c10d's record_param_comms become collectives on the recorded communicator.
// With ImportOptions::data_parallel_ranks, a one-rank trace is scaled out as PyTorch DDP runs it
// (ddp_buckets.h) or, with ImportOptions::sharding, as FSDP does (fsdp_units.h).
#pragma once

#include <string>
#include <vector>

#include "simulator/trace/kineto_events.h"
#include "simulator/trace/trace.h"
#include "simulator/trace/trace_import.h"

namespace simtrain::trace {

// The Trace of one step of `ranks` (one parsed file per rank). Throws Error naming the file and event
// when a GPU activity in the step has no launch, the step has no GPU work, --step names no window, ...
Trace import_kineto(const std::vector<KinetoTrace>& ranks, const ImportOptions& options,
                    ImportReport& report);

// The simtrain profile name of a GPU as CUDA names it ("NVIDIA H200" -> "h200-sxm"), empty when unknown.
std::string profile_for_device_name(const std::string& device_name);

}  // namespace simtrain::trace
