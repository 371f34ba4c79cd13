// Piecewise latency-bandwidth fits of collective tables: an exact minimax segmentation (fewest regimes within
// the tolerance) over per-segment constrained least squares, and the inversion of the cost model's
// collective formulas into NCCL efficiencies.
#include "calibration/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "common/error.h"

namespace simtrain::calibration {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Point {
  double bytes = 0;
  double bus_bytes = 0;
  double time_s = 0;
};

struct Line {
  double latency_s = 0;
  double seconds_per_bus_byte = 0;
  double max_relative_error = kInfinity;
};

double relative_error(const Line& line, const Point& p) {
  return std::abs(line.latency_s + line.seconds_per_bus_byte * p.bus_bytes - p.time_s) / p.time_s;
}

// Least squares of time relative to the measured time (every point counts alike, from microseconds to
// seconds) over points [first, last], with latency >= 0 and seconds per byte >= 0. The objective is a
// convex quadratic, so the constrained optimum is the unconstrained one if feasible, else the best of the
// two boundary solutions (latency 0, or bandwidth term 0).
Line fit_line(const std::vector<Point>& points, int first, int last) {
  // Scaled to O(1) numbers: a = latency / t_ref, b = seconds_per_bus_byte * x_ref / t_ref.
  const double t_ref = points[last].time_s, x_ref = points[last].bus_bytes;
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (int i = first; i <= last; ++i) {
    const double u = t_ref / points[i].time_s, v = points[i].bus_bytes / x_ref * t_ref / points[i].time_s;
    uu += u * u, uv += u * v, vv += v * v, u1 += u, v1 += v;
  }
  auto objective = [&](double a, double b) {
    double sum = 0;
    for (int i = first; i <= last; ++i) {
      const double u = t_ref / points[i].time_s, v = points[i].bus_bytes / x_ref * t_ref / points[i].time_s;
      sum += (a * u + b * v - 1) * (a * u + b * v - 1);
    }
    return sum;
  };
  std::vector<std::pair<double, double>> candidates = {{0, v1 / vv}, {u1 / uu, 0}};
  if (const double det = uu * vv - uv * uv; det > 1e-12 * uu * vv) {
    const double a = (u1 * vv - v1 * uv) / det, b = (v1 * uu - u1 * uv) / det;
    if (a >= 0 && b >= 0) candidates = {{a, b}};
  }
  auto best = std::min_element(candidates.begin(), candidates.end(), [&](const auto& x, const auto& y) {
    return objective(x.first, x.second) < objective(y.first, y.second);
  });
  Line line{best->first * t_ref, best->second * t_ref / x_ref, 0};
  for (int i = first; i <= last; ++i)
    line.max_relative_error = std::max(line.max_relative_error, relative_error(line, points[i]));
  return line;
}

int steps_of(const std::string& op, int ranks) {
  if (op == "all_reduce") return 2 * (ranks - 1);
  if (op == "all_to_all" || op == "send_recv") return 1;
  return ranks - 1;  // all_gather, reduce_scatter: ring steps; broadcast, reduce: pipelined chain
}

}  // namespace

double nccl_bus_bandwidth_factor(const std::string& op, int ranks) {
  const double n = ranks;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "send_recv") return 1;
  throw Error("unknown collective '" + op + "'");
}

CollectiveFit fit_collective(const std::vector<CollectiveMeasurement>& table,
                             const CollectiveFitOptions& options) {
  if (table.empty()) throw Error("collective fit: empty table");
  if (table.front().ranks < 2) throw Error("collective fit: a table of one rank moves no bus traffic");
  CollectiveFit fit;
  fit.op = table.front().op;
  fit.ranks = table.front().ranks;
  fit.nodes = table.front().nodes;
  fit.algorithm = table.front().algorithm;
  fit.bus_factor = nccl_bus_bandwidth_factor(fit.op, fit.ranks);
  std::map<double, std::vector<double>> times;  // by size
  for (const CollectiveMeasurement& m : table) {
    if (m.op != fit.op || m.ranks != fit.ranks || m.nodes != fit.nodes)
      throw Error("collective fit: a table mixes " + fit.op + " on " + std::to_string(fit.ranks) +
                  " ranks with " + m.op + " on " + std::to_string(m.ranks));
    if (m.bytes > 0 && m.time_s > 0) times[m.bytes].push_back(m.time_s);
  }
  if (times.empty()) throw Error("collective fit: no point with positive bytes and time for " + fit.op);
  std::vector<Point> points;
  for (auto& [bytes, ts] : times) {
    std::sort(ts.begin(), ts.end());
    const std::size_t h = ts.size() / 2;
    const double median = ts.size() % 2 ? ts[h] : (ts[h - 1] + ts[h]) / 2;
    points.push_back({bytes, bytes * fit.bus_factor, median});
  }
  const int n = static_cast<int>(points.size());
  fit.min_bytes = points.front().bytes;
  fit.max_bytes = points.back().bytes;

  std::vector<std::vector<Line>> lines(n, std::vector<Line>(n));
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) lines[i][j] = fit_line(points, i, j);
  // worst[k][j]: the smallest possible max error covering points [0, j) with k regimes; from[k][j]: where
  // the last of them starts.
  std::vector<std::vector<double>> worst(n + 1, std::vector<double>(n + 1, kInfinity));
  std::vector<std::vector<int>> from(n + 1, std::vector<int>(n + 1, -1));
  worst[0][0] = 0;
  int chosen = 0;
  double chosen_error = kInfinity;
  for (int k = 1; k <= n; ++k) {
    for (int j = 1; j <= n; ++j)
      for (int i = k - 1; i < j; ++i) {
        const double e = std::max(worst[k - 1][i], lines[i][j - 1].max_relative_error);
        if (e < worst[k][j]) worst[k][j] = e, from[k][j] = i;
      }
    if (worst[k][n] < chosen_error - 1e-12) chosen = k, chosen_error = worst[k][n];
    if (chosen_error <= options.tolerance) break;
  }
  fit.max_relative_error = chosen_error;
  for (int k = chosen, j = n; k > 0; j = from[k][j], --k) {
    const int i = from[k][j];
    const Line& line = lines[i][j - 1];
    const double from_bytes = i == 0 ? 0 : std::sqrt(points[i - 1].bytes * points[i].bytes);
    fit.regimes.push_back({from_bytes, line.latency_s,
                           line.seconds_per_bus_byte > 0 ? 1 / line.seconds_per_bus_byte : kInfinity});
  }
  std::reverse(fit.regimes.begin(), fit.regimes.end());
  return fit;
}

std::vector<CollectiveFit> fit_collectives(const std::vector<CollectiveMeasurement>& measurements,
                                           const CollectiveFitOptions& options) {
  std::map<std::tuple<std::string, int, int, std::string>, std::vector<CollectiveMeasurement>> tables;
  for (const CollectiveMeasurement& m : measurements)
    tables[{m.op, m.ranks, m.nodes, m.algorithm}].push_back(m);
  std::vector<CollectiveFit> fits;
  for (const auto& [key, table] : tables) fits.push_back(fit_collective(table, options));
  return fits;
}

double predicted_time_s(const CollectiveFit& fit, double bytes) {
  if (fit.regimes.empty()) throw Error("collective fit for " + fit.op + " has no regimes");
  // The last regime starting at or below `bytes` (the first one starts at 0).
  auto after = std::upper_bound(fit.regimes.begin(), fit.regimes.end(), bytes,
                                [](double b, const CollectiveRegime& r) { return b < r.from_bytes; });
  const CollectiveRegime& r = after == fit.regimes.begin() ? *after : *std::prev(after);
  const double bandwidth_s =
      std::isinf(r.bus_bandwidth_Bps) ? 0 : bytes * fit.bus_factor / r.bus_bandwidth_Bps;
  return r.latency_s + bandwidth_s;
}

double predicted_bus_bandwidth_Bps(const CollectiveFit& fit, double bytes) {
  return bytes * fit.bus_factor / predicted_time_s(fit, bytes);
}

NcclEfficiencyEstimate estimate_nccl_efficiency(const CollectiveFit& fit, const CollectiveLinks& links,
                                                const Efficiencies& known) {
  const std::string what =
      fit.op + " on " + std::to_string(fit.ranks) + " ranks, " + std::to_string(fit.nodes) + " node(s)";
  if (links.intra_node_bandwidth_Bps <= 0) throw Error(what + ": the intra-node bandwidth is needed");
  const double bus_bandwidth = predicted_bus_bandwidth_Bps(fit, fit.max_bytes);
  const bool small = fit.min_bytes <= 64 * 1024;
  NcclEfficiencyEstimate estimate;
  if (fit.nodes <= 1) {
    estimate.bus_bandwidth_efficiency = bus_bandwidth / links.intra_node_bandwidth_Bps;
    const int steps = steps_of(fit.op, fit.ranks);
    if (small && steps > 0)
      estimate.step_latency_s =
          std::max(0.0, fit.regimes.front().latency_s / steps - links.intra_node_latency_s);
    return estimate;
  }
  if (fit.op != "all_reduce" && fit.op != "all_gather" && fit.op != "reduce_scatter")
    throw Error(what +
                ": only all_reduce, all_gather and reduce_scatter tables give inter-node efficiencies");
  if (fit.ranks % fit.nodes != 0) throw Error(what + ": ranks are not spread evenly over the nodes");
  if (links.inter_node_bandwidth_Bps <= 0) throw Error(what + ": the inter-node (NIC) bandwidth is needed");
  const double l = fit.ranks / fit.nodes, m = fit.nodes, n = fit.ranks,
               passes = fit.op == "all_reduce" ? 2 : 1;
  const double seconds_per_byte = fit.bus_factor / bus_bandwidth;
  const double intra_per_byte =
      passes * (l - 1) / l / (links.intra_node_bandwidth_Bps * known.nccl_intra_node);
  // The intra-node phases pipeline with the inter-node ring (the slower sets the pace), so the table says
  // something about the NICs only when it is slower than the intra-node phases alone.
  if (seconds_per_byte > intra_per_byte)
    estimate.bus_bandwidth_efficiency =
        passes * (n - 1) / n / (links.inter_node_bandwidth_Bps * seconds_per_byte);
  const double intra_steps = passes * (l - 1), inter_steps = passes * (m - 1);
  if (small)
    estimate.step_latency_s =
        std::max(0.0, (fit.regimes.front().latency_s - intra_steps * links.intra_node_latency_s -
                       inter_steps * links.inter_node_latency_s) /
                          (intra_steps + inter_steps));
  return estimate;
}

Efficiencies efficiencies_from_fits(const std::vector<CollectiveFit>& fits, const CollectiveLinks& links,
                                    Efficiencies start) {
  // The most telling table of a kind: all_reduce first, then the most ranks, then the largest messages.
  auto best = [&](bool multi_node) -> const CollectiveFit* {
    const CollectiveFit* chosen = nullptr;
    auto rank = [](const CollectiveFit& f) {
      return std::make_tuple(f.op == "all_reduce", f.ranks, f.max_bytes);
    };
    for (const CollectiveFit& f : fits) {
      const bool usable = multi_node ? f.nodes > 1 && (f.op == "all_reduce" || f.op == "all_gather" ||
                                                       f.op == "reduce_scatter")
                                     : f.nodes <= 1 && f.ranks > 1;
      if (usable && (!chosen || rank(f) > rank(*chosen))) chosen = &f;
    }
    return chosen;
  };
  if (links.intra_node_bandwidth_Bps <= 0) return start;
  bool have_latency = false;
  if (const CollectiveFit* single = best(false)) {
    const NcclEfficiencyEstimate e = estimate_nccl_efficiency(*single, links, start);
    start.nccl_intra_node = e.bus_bandwidth_efficiency;
    if (e.step_latency_s) start.nccl_step_latency_s = *e.step_latency_s, have_latency = true;
  }
  if (const CollectiveFit* multi = best(true); multi && links.inter_node_bandwidth_Bps > 0) {
    const NcclEfficiencyEstimate e = estimate_nccl_efficiency(*multi, links, start);
    if (e.bus_bandwidth_efficiency > 0) start.nccl_inter_node = e.bus_bandwidth_efficiency;
    if (e.step_latency_s && !have_latency) start.nccl_step_latency_s = *e.step_latency_s;
  }
  return start;
}

}  // namespace simtrain::calibration
