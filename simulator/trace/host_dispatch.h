// The host thread's time between kernel launches, as a recorded step implies it without the profiler.
//
// torch.profiler slows the host down: with record_shapes a ResNet-50 step that takes 20.7-29.6 ms spans
// 130-156 ms profiled. The slowdown has two parts: a fixed cost per recorded event (the profiler's own
// bookkeeping and shape capture, inside every operator and runtime call), and a general slowdown of
// everything else. So the host's work between two launches is estimated as
//
//     speed_fraction x (sum over events of max(0, self time - kProfilerCostPerEvent_s) + time no event covers)
//
// where the uncovered time is Python between operators. Both constants were fitted to the seven H200 steps
// of traces/pytorch/ (fit and leave-one-out errors in docs/host_dispatch.md); a user with an unprofiled
// step time of the machine replaces speed_fraction by calibrate_speed_fraction().
#pragma once

#include <cstdint>
#include <vector>

namespace simtrain::trace {

// The profiler's cost per recorded event (operator or runtime call), in seconds.
inline constexpr double kProfilerCostPerEvent_s = 8e-6;
// Unprofiled host time per second of profiled host work left after the per-event cost.
inline constexpr double kDefaultHostSpeedFraction = 0.334;

// One event on a launching host thread: an operator or a CUDA runtime call. Times in µs.
struct HostEvent {
  double start_us = 0;
  double end_us = 0;
  std::int64_t thread = 0;
};

// The profiled host work (seconds, before the speed fraction) of each stretch of the host timeline: stretch
// i holds the events that start after boundaries[i-1] and at or before boundaries[i] (a launch or a
// synchronisation, by start time), plus the time in it no event covers; a last stretch runs from the last
// boundary to `window_end_us`. `events` are sorted by start (longer first on ties), `boundaries` ascending.
// Returns boundaries.size() + 1 values.
std::vector<double> host_work_per_stretch(const std::vector<HostEvent>& events,
                                          const std::vector<double>& boundaries, double window_start_us,
                                          double window_end_us);

// The speed fraction under which a step whose host work is `host_work_s` (the sum of
// host_work_per_stretch) takes `step_time_s` unprofiled, assuming the host sets the pace. Throws Error when
// the GPU's busy time `gpu_busy_s` is over 80% of the step: such a step is GPU-bound, and its time says
// little about the host.
double calibrate_speed_fraction(double host_work_s, double gpu_busy_s, double step_time_s);

}  // namespace simtrain::trace
