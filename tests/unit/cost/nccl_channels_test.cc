// Specification of NCCL's channel count across nodes and the throughput its channels cap a NIC at.
#include <doctest/doctest.h>

#include "simulator/cost/nccl_channels.h"

namespace simtrain {

TEST_CASE("NCCL_MIN_NCHANNELS raises the topology's channels, up to MAXCHANNELS, and never lowers them") {
  CHECK(cost::nccl_collective_channels(16, 0) == 16);   // DGX H100: two per NIC
  CHECK(cost::nccl_collective_channels(16, 24) == 24);  // NCCL_MIN_CTAS=24
  CHECK(cost::nccl_collective_channels(16, 8) == 16);
  CHECK(cost::nccl_collective_channels(16, 100) == cost::kNcclMaxChannels);
  CHECK(cost::nccl_collective_channels(0, 24) == 0);  // no NICs, no network channels
}

TEST_CASE("a NIC reaches the least of its line share and its channels' rates") {
  const double nic = 50e9, channel = 20.5e9;
  // Two channels per NIC: 41 of 50 GB/s, below the line share.
  CHECK(cost::nccl_channel_limited_efficiency(0.97, 16, 8, nic, channel) == doctest::Approx(0.82));
  // Three or four per NIC: the line share binds.
  CHECK(cost::nccl_channel_limited_efficiency(0.97, 24, 8, nic, channel) == doctest::Approx(0.97));
  CHECK(cost::nccl_channel_limited_efficiency(0.97, 32, 8, nic, channel) == doctest::Approx(0.97));
  // One channel per NIC (32 channels over 32 NICs) at a quarter of the rate.
  CHECK(cost::nccl_channel_limited_efficiency(0.97, 32, 32, 12.5e9, 5e9) == doctest::Approx(0.4));
  // No channel figure: the line share alone.
  CHECK(cost::nccl_channel_limited_efficiency(0.9, 16, 8, nic, 0) == 0.9);
  CHECK(cost::nccl_channel_limited_efficiency(0.9, 0, 8, nic, channel) == 0.9);
}

}  // namespace simtrain
