// Bus bandwidth as nccl-tests defines it (doc/PERFORMANCE.md there): the algorithm bandwidth (bytes / time)
// times a factor per collective that makes the figure comparable with the hardware's link bandwidth.
#pragma once

#include <string_view>

namespace simtrain::calibration::tool {

// all_reduce 2(n-1)/n; all_gather, reduce_scatter and all_to_all (n-1)/n; broadcast, reduce and send_recv 1.
// Throws Error for an unknown op or ranks < 1.
double bus_bandwidth_factor(std::string_view op, int ranks);

// bytes / time_s x factor. `bytes` is nccl-tests' "size": the largest buffer of one rank (the gathered
// output of all_gather, the input of reduce_scatter).
double bus_bandwidth_Bps(std::string_view op, int ranks, double bytes, double time_s);

}  // namespace simtrain::calibration::tool
