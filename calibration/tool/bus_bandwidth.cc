// The nccl-tests bus-bandwidth factors.
#include "calibration/tool/bus_bandwidth.h"

#include <string>

#include "common/error.h"

namespace simtrain::calibration::tool {

double bus_bandwidth_factor(std::string_view op, int ranks) {
  if (ranks < 1) throw Error("bus bandwidth: ranks must be at least 1, got " + std::to_string(ranks));
  const double n = ranks;
  if (op == "all_reduce") return 2 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1) / n;
  if (op == "broadcast" || op == "reduce" || op == "send_recv") return 1;
  throw Error("bus bandwidth: unknown collective '" + std::string(op) + "'");
}

double bus_bandwidth_Bps(std::string_view op, int ranks, double bytes, double time_s) {
  if (!(time_s > 0)) throw Error("bus bandwidth: time must be > 0");
  return bytes / time_s * bus_bandwidth_factor(op, ranks);
}

}  // namespace simtrain::calibration::tool
