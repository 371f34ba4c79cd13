// Implements host_dispatch.h.
#include "simulator/trace/host_dispatch.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/error.h"

namespace simtrain::trace {

std::vector<double> host_work_per_stretch(const std::vector<HostEvent>& events,
                                          const std::vector<double>& boundaries, double window_start_us,
                                          double window_end_us) {
  std::vector<double> work(boundaries.size() + 1, 0.0);
  const auto stretch_of = [&](double t) {
    return static_cast<std::size_t>(std::lower_bound(boundaries.begin(), boundaries.end(), t) -
                                    boundaries.begin());
  };
  // Self time: an event's duration less its direct children's, each thread nesting on its own.
  std::vector<double> self(events.size(), 0.0);
  std::map<std::int64_t, std::vector<std::size_t>> open;  // per thread, the enclosing events
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto& stack = open[events[i].thread];
    while (!stack.empty() && events[stack.back()].end_us <= events[i].start_us) stack.pop_back();
    self[i] += events[i].end_us - events[i].start_us;
    if (!stack.empty()) self[stack.back()] -= events[i].end_us - events[i].start_us;
    stack.push_back(i);
  }
  for (std::size_t i = 0; i < events.size(); ++i)
    work[stretch_of(events[i].start_us)] += std::max(0.0, self[i] * 1e-6 - kProfilerCostPerEvent_s);

  // Python between operators: the stretch's time that no top-level event of any launching thread covers.
  std::vector<std::pair<double, double>> covered;
  for (const HostEvent& e : events) {
    if (!covered.empty() && e.start_us <= covered.back().second)
      covered.back().second = std::max(covered.back().second, e.end_us);
    else
      covered.emplace_back(e.start_us, e.end_us);
  }
  std::vector<double> edges;
  edges.push_back(window_start_us);
  for (double b : boundaries) edges.push_back(std::clamp(b, window_start_us, window_end_us));
  edges.push_back(std::max(window_end_us, edges.back()));
  std::size_t c = 0;
  for (std::size_t s = 0; s + 1 < edges.size(); ++s) {
    const double from = edges[s], to = edges[s + 1];
    double uncovered = std::max(0.0, to - from);
    while (c < covered.size() && covered[c].second <= from) ++c;
    for (std::size_t k = c; k < covered.size() && covered[k].first < to; ++k)
      uncovered -= std::min(to, covered[k].second) - std::max(from, covered[k].first);
    work[s] += std::max(0.0, uncovered) * 1e-6;
  }
  return work;
}

double calibrate_speed_fraction(double host_work_s, double gpu_busy_s, double step_time_s) {
  if (!(step_time_s > 0) || step_time_s > 1e6) throw Error("--host-step-time: must be a positive time");
  if (gpu_busy_s > 0.8 * step_time_s)
    throw Error(fmt::format("--host-step-time {:.4g} ms: the GPU is busy {:.4g} ms of it, so the step is "
                            "GPU-bound and its time does not tell the host's speed; calibrate with a "
                            "host-bound step (a smaller batch)",
                            step_time_s * 1e3, gpu_busy_s * 1e3));
  if (!(host_work_s > 0)) throw Error("--host-step-time: the trace records no host work to calibrate");
  return step_time_s / host_work_s;
}

}  // namespace simtrain::trace
