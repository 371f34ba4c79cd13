// simtrain collective's sendrecv (nccl-tests' sendrecv_perf) against its closed form: every rank sends the
// buffer to the next rank and receives the previous rank's, so the slowest pair (at a node boundary: the
// GPU's NIC share, or NCCL's point-to-point channels) sets the time.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>

#include "calibration/spec_profiles.h"
#include "simulator/cost/collective_algorithm.h"
#include "simulator/cost/nccl_p2p_proxy.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/run/collective_sweep.h"
#include "simulator/run/simulation.h"
#include "tests/support/child_process.h"

using namespace simtrain;

namespace {

constexpr double kBytes = 1 << 30;

// The simulated time of a 1 GiB sendrecv over every GPU of `nodes` nodes (SimGrid: one engine per process).
double sendrecv_s(int nodes) {
  return testing::in_child_process([&] {
    run::CollectiveSweepRequest request;
    request.kind = trace::CollectiveKind::SendRecv;
    request.sizes_bytes = {kBytes};
    request.gpus = 8 * nodes;
    request.run.platform = "dgx-h100";
    request.run.nodes = nodes;
    return run::simulate_collective_sweep(request).at(0).time_s;
  });
}

calibration::Efficiencies dgx_h100_efficiencies() {
  const platform::ClusterSpec spec = platform::load_cluster_spec("dgx-h100");
  calibration::CalibrationProfile profile = calibration::load_profile(spec.gpu);
  run::apply_platform_to_profile(spec, profile);
  return profile.efficiencies;
}

}  // namespace

TEST_CASE("NCCL's point-to-point channels per network peer: 4 for a 400G NIC, halved as ranks grow") {
  // ceil(50 GB/s / 14 GB/s) = 4 channels; 16 p2p channels hold 8 peers per batch.
  CHECK(cost::nccl_p2p_channels_per_net_peer(16, 16, 50e9, 1) == 4);   // 4 x ceil(16/8) = 8 <= 16
  CHECK(cost::nccl_p2p_channels_per_net_peer(32, 16, 50e9, 1) == 4);   // 4 x 4 = 16
  CHECK(cost::nccl_p2p_channels_per_net_peer(40, 16, 50e9, 1) == 2);   // 4 x 5 > 16, 2 x 5 = 10
  CHECK(cost::nccl_p2p_channels_per_net_peer(80, 16, 50e9, 1) == 1);   // 2 x 10 > 16
  CHECK(cost::nccl_p2p_channels_per_net_peer(80, 32, 50e9, 1) == 2);   // 2 x 10 <= 32
  CHECK(cost::nccl_p2p_channels_per_net_peer(16, 16, 25e9, 1) == 2);   // ceil(25 / 14)
  CHECK(cost::nccl_p2p_channels_per_net_peer(16, 16, 100e9, 2) == 8);  // ceil(100 / 14) = 8 > 2 NICs
  CHECK(cost::nccl_p2p_channels_per_net_peer(16, 12, 50e9, 1) == 4);   // 12 channels round up to 16
}

TEST_CASE("sendrecv on 2 nodes: the buffer over the least of NVLink and the GPU's NIC share, plus latency") {
  const calibration::Efficiencies e = dgx_h100_efficiencies();
  // 16 ranks: 4 channels of 14 GB/s to the next node exceed the GPU's 400 Gb/s NIC at the point-to-point
  // efficiency the spec gives, or what NCCL's proxy moves there, whichever is less.
  const double p2p = platform::load_cluster_spec("dgx-h100").nics.nccl_p2p_efficiency;
  REQUIRE(p2p > 0);
  const double proxy_Bps = cost::kNcclP2pNetChunkBytes / cost::kNcclP2pProxyChunkDefault_s;
  const double pair_Bps = std::min({450e9 * e.nccl_intra_node, 50e9 * p2p, proxy_Bps});
  const double time_s = sendrecv_s(2);
  // What the latency adds (the route's 1-2 us and NCCL's step latency) stays under 0.1% of 24 ms.
  CHECK(time_s == testing::Approx(kBytes / pair_Bps).epsilon(1e-3));
  CHECK(time_s > kBytes / pair_Bps);
  CHECK(cost::bus_bandwidth_factor(trace::CollectiveKind::SendRecv, 16) == 1);  // nccl-tests: busbw = algbw
}

TEST_CASE("sendrecv on 10 nodes: one point-to-point channel per network peer, 14 GB/s") {
  // 80 ranks: NCCL halves the channels per peer to 1, which moves 14 GB/s (P2P_PER_CHANNEL_NET_BW).
  CHECK(sendrecv_s(10) == testing::Approx(kBytes / 14e9).epsilon(1e-3));
}
