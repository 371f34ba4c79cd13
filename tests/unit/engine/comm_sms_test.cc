// Collectives hold SMs while they run (ReplayOptions::gpu_sm_count): the kernels beside them run at the
// share of the GPU left to them, checked against the closed form of a two-rank all-reduce under an
// independent op on a uniform network (as in ddp_overlap_test.cc).
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <functional>

#include "simulator/cost/compute_cost.h"
#include "simulator/engine/replay.h"
#include "tests/support/child_process.h"

namespace simtrain {
namespace {

constexpr double kNicBandwidth = 25e9;
constexpr double kRouteLatency = 4e-6;
constexpr double kGradientBytes = 25e6;
constexpr double kAllReduceS = 2 * kRouteLatency + kGradientBytes / kNicBandwidth;
// One NIC per node gives NCCL 2 channels (ClusterSpec::nics.nccl_channels()): 2 of 8 SMs.
constexpr int kSms = 8;
constexpr double kHeld = 2.0 / kSms;
// The replay stops slowing kernels once what is left of them is below 1e-4 of their work.
constexpr double kRel = 1e-4;

constexpr std::uint8_t kCompute = 0, kComm = 1;

platform::ClusterSpec uniform_cluster(int nodes) {
  platform::ClusterSpec spec;
  spec.name = "uniform-star";
  spec.nodes = nodes;
  spec.gpus_per_node = 1;
  spec.gpu = "a100-sxm4-80gb";
  spec.intra_node = {platform::IntraNodeFabric::NVSwitch, 10 * kNicBandwidth, 0.0};
  spec.nics = {1, kNicBandwidth, kRouteLatency / 2};
  return spec;
}

// Backward (1 ms), then the gradient all-reduce on the comm stream beside an independent op of
// `independent_s` on the compute stream, on both ranks.
trace::Trace overlapped_trace() {
  trace::Op backward, all_reduce, independent;
  backward.name = "backward";
  backward.stream = kCompute;
  all_reduce.name = "grads.all_reduce";
  all_reduce.type = trace::OpType::Collective;
  all_reduce.stream = kComm;
  all_reduce.deps = {0};
  all_reduce.collective.bytes = kGradientBytes;
  independent.name = "independent";
  independent.stream = kCompute;
  trace::Trace t;
  t.world_size = 2;
  for (int r = 0; r < 2; ++r) {
    t.programs.push_back(
        {"rank" + std::to_string(r), {"compute", "comm"}, {backward, all_reduce, independent}});
    t.rank_program.push_back(r);
  }
  t.groups.push_back({"world", {{0, 1}}});
  return t;
}

// Rank `rank`'s end, with an independent op of `independent_s` and the GPU's SM count `sms` (0: none held).
double rank_end_s(double independent_s, int sms, int rank) {
  return testing::in_child_process([&] {
    const trace::Trace t = overlapped_trace();
    cost::ProgramCosts costs;
    costs.duration_s = {{1e-3, 0, independent_s}, {1e-3, 0, independent_s}};
    calibration::Efficiencies ideal;
    ideal.nccl_intra_node = ideal.nccl_inter_node = 1.0;
    ideal.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = uniform_cluster(2);
    engine::ReplayOptions options;
    options.gpu_sm_count = sms;
    return engine::replay(t, costs, ideal, source, options).ranks[rank].end_s;
  });
}

}  // namespace

TEST_CASE("kernels beside a collective run on the SMs it leaves them") {
  // 2 ms of work from 1 ms on: at 1 - 2/8 of the GPU while the all-reduce runs, then at full speed.
  CHECK(rank_end_s(2e-3, kSms, 0) ==
        simtrain::testing::Approx(1e-3 + kAllReduceS + (2e-3 - (1 - kHeld) * kAllReduceS)).epsilon(kRel));
  // 0.5 ms of work ends under the all-reduce, slowed throughout; the rank ends with the all-reduce.
  CHECK(rank_end_s(0.5e-3, kSms, 0) == simtrain::testing::Approx(1e-3 + kAllReduceS).epsilon(kRel));
  // Without SM counts the kernels run as if alone.
  CHECK(rank_end_s(2e-3, 0, 0) == simtrain::testing::Approx(3e-3).epsilon(1e-9));
}

TEST_CASE("kernels that end under a collective are stretched by the SMs it holds") {
  // The all-reduce ends last on rank 1 either way; the independent op's own end shows in compute_s.
  const double slowed = testing::in_child_process([&] {
    const trace::Trace t = overlapped_trace();
    cost::ProgramCosts costs;
    costs.duration_s = {{1e-3, 0, 0.5e-3}, {1e-3, 0, 0.5e-3}};
    calibration::Efficiencies ideal;
    ideal.nccl_intra_node = ideal.nccl_inter_node = 1.0;
    ideal.nccl_step_latency_s = 0;
    engine::PlatformSource source;
    source.spec = uniform_cluster(2);
    engine::ReplayOptions options;
    options.gpu_sm_count = kSms;
    return engine::replay(t, costs, ideal, source, options).ranks[1].compute_s;
  });
  CHECK(slowed == simtrain::testing::Approx(1e-3 + 0.5e-3 / (1 - kHeld)).epsilon(kRel));
}

}  // namespace simtrain
