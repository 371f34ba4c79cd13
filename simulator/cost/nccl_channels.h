// How many channels NCCL runs a collective on across the network, and what that caps its throughput at.
// NCCL splits a collective over channels, each driven by one CTA on every GPU and one network connection per
// peer; its topology search gives one ring per NIC and duplicates them (two channels per NIC), and
// NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS add copies of those rings. On the H100 InfiniBand tables of
// validation/reference/nccl/multinode/, the default's two channels per NIC reach 0.82 of the NICs where runs
// with 24 or 32 channels (three or four per NIC) reach 0.95-0.98: a channel moves at most a fixed rate, so
// a NIC's throughput is the least of its line rate's achievable share and its channels' rates together.
// docs/collective_model.md says how the two figures were fitted.
#pragma once

namespace simtrain::cost {

// NCCL's MAXCHANNELS (src/include/device.h, 2.18 to 2.29).
inline constexpr int kNcclMaxChannels = 64;

// The channels a collective runs on across nodes: the topology's (`topology_channels`, two per NIC) or
// NCCL_MIN_NCHANNELS' `min_channels` (0: unset), whichever is more, at most MAXCHANNELS (connect.cc's
// copyChannels duplicates rings up to the minimum). 0 stays 0: a platform without NICs has none.
int nccl_collective_channels(int topology_channels, int min_channels);

// What NCCL reaches of a NIC's bandwidth across nodes: `line_efficiency` (the share of the line rate the
// transport carries as data) or, when `channel_Bps` > 0, the least of that and channels / nics channels of
// channel_Bps each over the NIC's `nic_Bps`. The channels are spread evenly over the node's `nics` NICs.
double nccl_channel_limited_efficiency(double line_efficiency, int channels, int nics, double nic_Bps,
                                       double channel_Bps);

}  // namespace simtrain::cost
