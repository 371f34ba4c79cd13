// How many channels NCCL's topology search gives a node's NICs, as NCCL 2.18 to 2.29 derive them for GPUs of
// Hopper and later: src/graph/search.cc (ncclTopoCompute, ncclTopoDupChannels) and src/graph/connect.cc
// (ncclTopoPostset). The count decides how many CTAs a collective runs on and, where a spec gives a
// channel's rate, what share of the NICs it reaches (cost/nccl_channels.h).
#include <algorithm>
#include <iterator>

#include "simulator/platform/cluster_spec.h"

namespace simtrain::platform {
namespace {

// NCCL's ring speeds across nodes in GB/s (search.cc, sm100SpeedArrayInter: sm90's list with 96 on top).
// The search starts at the fastest speed the path to a NIC carries. 96 GB/s exists in NCCL's Blackwell list
// only, and only 800 Gb/s NICs reach it, which only Blackwell systems carry.
constexpr double kRingSpeedsGBps[] = {96.0, 48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                      17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

double ring_speed_GBps(double nic_Bps) {
  const double nic_GBps = nic_Bps / 1e9;
  for (double speed : kRingSpeedsGBps)
    if (speed <= nic_GBps) return speed;
  return kRingSpeedsGBps[std::size(kRingSpeedsGBps) - 1];
}

}  // namespace

int NicSpec::nccl_channels() const {
  if (count <= 0) return 0;
  // One ring per NIC: each ring takes a NIC's worth of the speed the search settled on.
  int rings = count;
  // ncclTopoDupChannels: no copies of rings under 25 GB/s, nor (compute capability above 8.0) of more than
  // four rings under 50 GB/s; else twice the rings at half the speed each. (On Ampere and older NCCL copies
  // more than four rings too where they reach 25 GB/s; no shipped spec pairs those GPUs with such NICs.)
  const double speed = ring_speed_GBps(bandwidth_Bps);
  if (speed >= 25.0 && !(speed < 50.0 && rings > 4)) rings *= 2;
  // ncclTopoPostset copies every channel once more (connect.cc, nChannels * 2, up to MAXCHANNELS = 64 in
  // 2.29). simtrain stops at 32, the ring search's own limit (init.cc, MAXCHANNELS / 2): only nodes of more
  // than 16 NICs reach it (AWS p5's 32 EFA NICs; a GB200 or GB300 rack, which a spec models as one node of
  // 64 GPUs and NICs where NCCL sees hosts of four), and how NCCL spreads those has not been checked.
  return std::min(rings * 2, 32);
}

}  // namespace simtrain::platform
