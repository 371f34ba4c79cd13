// Implements fsdp_units.h.
#include "simulator/trace/fsdp_units.h"

#include <algorithm>

namespace simtrain::trace {

std::vector<FsdpUnit> plan_fsdp_units(const std::vector<GradientReady>& gradients, double min_unit_params,
                                      std::size_t backward_start) {
  std::vector<FsdpUnit> units;
  FsdpUnit open;
  double open_params = 0;
  std::size_t next_first = backward_start;
  for (const GradientReady& g : gradients) {
    if (open.gradients == 0) {
      open.backward_first = next_first;
      open.dtype = g.dtype;
    }
    open.bytes += g.bytes;
    open_params += g.bytes / bytes_per_element(g.dtype);
    open.ready_after = std::max(open.ready_after, g.ready_after);
    ++open.gradients;
    if (open_params >= min_unit_params) {
      next_first = open.ready_after + 1;
      units.push_back(open);
      open = FsdpUnit{};
      open_params = 0;
    }
  }
  if (open.gradients > 0) units.push_back(open);
  return units;
}

void place_fsdp_forward(std::vector<FsdpUnit>& units, const std::vector<double>& activity_seconds,
                        std::size_t backward_start) {
  if (units.empty()) return;
  const std::size_t forward_end = std::min(backward_start, activity_seconds.size());
  const auto seconds_in = [&](std::size_t first, std::size_t end) {
    double sum = 0;
    for (std::size_t i = first; i < std::min(end, activity_seconds.size()); ++i) sum += activity_seconds[i];
    return sum;
  };
  std::vector<double> backward(units.size());
  double backward_total = 0;
  for (std::size_t u = 0; u < units.size(); ++u) {
    backward[u] = seconds_in(units[u].backward_first, units[u].ready_after + 1);
    backward_total += backward[u];
  }
  const double forward_total = seconds_in(0, forward_end);
  // Walk the forward from its start, giving the units in reverse backward order their shares.
  std::size_t activity = 0;
  double elapsed = 0;
  double share_before = 0;
  for (std::size_t k = units.size(); k-- > 0;) {
    const double start = backward_total > 0 ? forward_total * share_before / backward_total : 0;
    while (activity < forward_end && elapsed + activity_seconds[activity] * 0.5 < start)
      elapsed += activity_seconds[activity++];
    // Units never share a first activity while the forward has one left for each of them.
    const std::size_t floor = k + 1 < units.size() ? units[k + 1].forward_first + 1 : 0;
    const std::size_t ceiling = forward_end > k + 1 ? forward_end - 1 - k : 0;
    units[k].forward_first = std::min(std::max(activity, floor), ceiling);
    share_before += backward[k];
  }
}

}  // namespace simtrain::trace
