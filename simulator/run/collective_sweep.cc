// Implements collective_sweep.h: a one-program trace of back-to-back collectives over one communicator,
// replayed once, each collective timed on rank 0 from the timeline events.
#include "simulator/run/collective_sweep.h"

#include <cmath>

#include "common/error.h"
#include "simulator/cost/collective_algorithm.h"

namespace simtrain::run {

std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor) {
  if (!(min_bytes >= 1) || !(max_bytes >= min_bytes) || !std::isfinite(max_bytes))
    throw Error("-b/-e: need 1 <= min <= max bytes, finite");
  if (!(factor >= 2)) throw Error("-f: the size factor must be at least 2");
  std::vector<double> sizes;
  for (double size = min_bytes; size <= max_bytes; size *= factor) sizes.push_back(size);
  return sizes;
}

std::vector<double> sweep_sizes_by_step(double min_bytes, double max_bytes, double step_bytes) {
  if (!(min_bytes >= 1) || !(max_bytes >= min_bytes) || !std::isfinite(max_bytes))
    throw Error("-b/-e: need 1 <= min <= max bytes, finite");
  if (!(step_bytes >= 1)) throw Error("-i: the size step must be at least 1 byte");
  if ((max_bytes - min_bytes) / step_bytes >= kMaxSweepSizes)
    throw Error("-i: more than " + std::to_string(kMaxSweepSizes) + " sizes from -b to -e");
  std::vector<double> sizes;
  for (double size = min_bytes; size <= max_bytes; size += step_bytes) sizes.push_back(size);
  return sizes;
}

std::vector<CollectiveSample> simulate_collective_sweep(const CollectiveSweepRequest& request) {
  if (request.gpus < 2) throw Error("--gpus: a collective needs at least 2 GPUs");
  if (request.sizes_bytes.empty()) throw Error("no message sizes to simulate");
  trace::Program program;
  program.name = "collective";
  program.streams = {"comm"};
  for (std::size_t i = 0; i < request.sizes_bytes.size(); ++i) {
    trace::Op op;
    op.name = std::string(trace::to_string(request.kind)) + "." + std::to_string(i);
    op.type = trace::OpType::Collective;
    op.stream = 0;
    if (i > 0) op.deps = {static_cast<std::uint32_t>(i - 1)};
    op.collective.kind = request.kind;
    op.collective.dtype = request.dtype;
    op.collective.bytes = request.sizes_bytes[i];
    op.collective.group = 0;
    trace::append(program, std::move(op));
  }
  trace::Trace trace = trace::single_program_trace(std::move(program), request.gpus, "world");
  trace.metadata.model = "collective";
  trace.metadata.generator = "simtrain collective";
  trace.metadata.parallelism = std::string(trace::to_string(request.kind));

  RunRequest run = request.run;
  run.workload.reset();
  run.parallel.reset();
  run.trace_paths.clear();
  run.trace = std::move(trace);
  run.timeline_ranks = 1;
  run.allow_oom = true;
  const RunOutput out = simulate(run);

  std::vector<CollectiveSample> samples(request.sizes_bytes.size());
  for (const engine::OpEvent& event : out.replay.events) {
    if (event.rank != 0 || event.op >= samples.size()) continue;
    CollectiveSample& s = samples[event.op];
    s.size_bytes = request.sizes_bytes[event.op];
    s.time_s = event.end_s - event.start_s;
    s.algbw_Bps = s.time_s > 0 ? s.size_bytes / s.time_s : 0;
    s.busbw_Bps = s.algbw_Bps * cost::bus_bandwidth_factor(request.kind, request.gpus);
    if (event.algorithm) s.algorithm = cost::to_string(*event.algorithm);
    if (event.protocol) s.protocol = cost::to_string(*event.protocol);
  }
  return samples;
}

}  // namespace simtrain::run
