#include "simulator/cost/nccl_channels.h"

#include <algorithm>

namespace simtrain::cost {

int nccl_collective_channels(int topology_channels, int min_channels) {
  if (topology_channels <= 0) return topology_channels;
  return std::min(std::max(topology_channels, min_channels), kNcclMaxChannels);
}

double nccl_channel_limited_efficiency(double line_efficiency, int channels, int nics, double nic_Bps,
                                       double channel_Bps) {
  if (channel_Bps <= 0 || channels <= 0 || nics <= 0 || nic_Bps <= 0) return line_efficiency;
  const double per_nic = static_cast<double>(channels) / nics;
  return std::min(line_efficiency, per_nic * channel_Bps / nic_Bps);
}

}  // namespace simtrain::cost
