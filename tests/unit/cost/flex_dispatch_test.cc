// Specification of the flex MoE dispatcher's all-to-all inside one NVLink domain (collective_algorithm.h):
// planned from what a trace carries (every top-k copy of every token) on the GPUs of HybridEP's and DeepEP's
// published runs, it takes the time those runs measured.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "calibration/spec_profiles.h"
#include "simulator/cost/collective_algorithm.h"
#include "tests/support/reference_csv.h"

namespace simtrain {
namespace {

using trace::CollectiveKind;

// The runs' setting (the table's source line): 4,096 tokens per rank of hidden 7,168, top-8; HybridEP's with
// 8 experts per rank, DeepEP's H800 run with DeepSeek-V3's 256 experts on its 8 ranks.
constexpr double kTokens = 4096, kHidden = 7168, kTopK = 8;

TEST_CASE("a flex dispatch planned from its top-k copies takes the time HybridEP's and DeepEP's runs took") {
  int checked = 0;
  for (const testing::CsvRow& row : testing::reference_rows("kernels/moe_flex_dispatch_nvlink.csv")) {
    if (row.at("measurement") != "torch_api") continue;
    const bool hopper = row.at("gpu") == "H800";
    const int n = std::stoi(row.at("ranks"));
    const int experts = hopper ? 256 : 8 * n;
    const double line_Bps = std::stod(row.at("nvlink_GBps")) * 1e9;
    std::vector<int> members(n);
    std::iota(members.begin(), members.end(), 0);
    const cost::CommunicatorPlacement placement = cost::place_communicator(members, n);
    cost::CollectiveLayout layout{&members, &placement, 0, n, line_Bps, 0};
    layout.node_dedup = {.top_k = static_cast<std::uint16_t>(kTopK),
                         .experts = static_cast<std::uint32_t>(experts)};
    const calibration::Efficiencies efficiencies =
        calibration::spec_profile(hopper ? "h100-sxm5" : "b200")->efficiencies;
    // What the trace carries: every copy, 2 bytes an element (the runs' bandwidths count 2 bytes too).
    const double trace_bytes = kTokens * kTopK * kHidden * 2;
    const double planned_s =
        cost::plan_collective(CollectiveKind::AllToAll, trace_bytes, layout, efficiencies)
            .intra_node_before_s -
        efficiencies.nccl_step_latency_s;
    // What the runs counted: each token once per rank that holds one of its experts, the rank's own included,
    // n (1 - C(E - E/n, k) / C(E, k)) rows per token on average under their uniformly random routing.
    double miss = 1;
    for (int i = 0; i < kTopK; ++i) miss *= (experts - double(experts) / n - i) / (experts - i);
    const double counted_bytes = kTokens * n * (1 - miss) * kHidden * 2;
    for (const char* column : {"dispatch_bf16_GBps", "dispatch_fp8_GBps", "combine_GBps"}) {
      if (row.at(column).empty() || (!hopper && std::string(column) == "dispatch_fp8_GBps")) continue;
      CAPTURE(row.at("gpu"));
      CAPTURE(n);
      CAPTURE(column);
      const double measured_s = counted_bytes / (std::stod(row.at(column)) * 1e9);
      // Blackwell's figure is the GB200 runs' median (their spread +-13%); B200's run is held out of it.
      CHECK(std::abs(planned_s / measured_s - 1) < (row.at("gpu") == "GB200" ? 0.13 : 0.02));
      ++checked;
    }
  }
  CHECK(checked == 24);  // 20 GB200, 2 B200, 2 H800
}

}  // namespace
}  // namespace simtrain
