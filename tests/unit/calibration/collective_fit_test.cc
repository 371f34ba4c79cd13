// Specification of collective_fit.h: fitted curves reproduce every published table in
// validation/reference/nccl/ (issue 3: bus bandwidth within 5% from 1 MiB up), recover the latency and
// bandwidth of synthetic alpha-beta tables exactly, and invert into the cost model's NCCL efficiencies.
#include "calibration/collective_fit.h"

#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "calibration/nccl_tests_log.h"
#include "common/error.h"

namespace simtrain::calibration {
namespace {

const std::string kReference = std::string(SIMTRAIN_REFERENCE_DIR) + "/nccl/";

struct ReferenceRow {
  double bytes = 0, time_us = 0, busbw_GBps = 0;
};

// The tables of one reference CSV, by (ranks, nodes). Files without n_ranks/nodes columns hold one table,
// whose setup their comment header states (passed in).
std::map<std::pair<int, int>, std::vector<ReferenceRow>> read_reference(const std::string& file, int ranks,
                                                                        int nodes) {
  std::ifstream in(kReference + file);
  REQUIRE(in);
  std::map<std::pair<int, int>, std::vector<ReferenceRow>> tables;
  std::vector<std::string> columns;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (columns.empty()) {
      columns = cells;
      continue;
    }
    auto cell = [&](const std::string& name) {
      const auto at = std::find(columns.begin(), columns.end(), name);
      REQUIRE(at != columns.end());
      return std::stod(cells[at - columns.begin()]);
    };
    const bool per_row = std::find(columns.begin(), columns.end(), "n_ranks") != columns.end();
    const std::pair<int, int> key =
        per_row ? std::pair(int(cell("n_ranks")), int(cell("nodes"))) : std::pair(ranks, nodes);
    tables[key].push_back({cell("size_bytes"), cell("time_us"), cell("busbw_GBps")});
  }
  return tables;
}

std::vector<CollectiveMeasurement> all_reduce_table(const std::vector<ReferenceRow>& rows, int ranks,
                                                    int nodes) {
  std::vector<CollectiveMeasurement> table;
  for (const ReferenceRow& r : rows)
    table.push_back({"all_reduce", r.bytes, ranks, nodes, "", r.time_us * 1e-6, r.busbw_GBps * 1e9});
  return table;
}

// Issue 3's requirement, on every published table. time_us is published (AWS) or derived from the published
// bus bandwidth with the all-reduce factor 2(n-1)/n (Azure, DeepBench, as their headers say), so fitting
// time and comparing bus bandwidth checks the published figure either way.
TEST_CASE("fitted curves reproduce every reference table's bus bandwidth within 5% from 1 MiB up") {
  struct File {
    std::string name;
    int ranks, nodes;  // from the file's comment header; ignored where rows carry n_ranks and nodes
  };
  const File files[] = {{"azure_nda100v4_8xA100_1node_allreduce.csv", 8, 1},
                        {"azure_ndh100v5_8xH100_1node_allreduce_nvls.csv", 8, 1},
                        {"azure_ndh200v5_8xH200_1node_allreduce_nvls.csv", 8, 1},
                        {"aws_p4de_a100_2node16gpu_efa_allreduce.csv", 16, 2},
                        {"deepbench_p100_pcie_allreduce.csv", 0, 0}};
  int tables_checked = 0;
  for (const File& file : files) {
    for (const auto& [setup, rows] : read_reference(file.name, file.ranks, file.nodes)) {
      const auto [ranks, nodes] = setup;
      const CollectiveFit fit = fit_collective(all_reduce_table(rows, ranks, nodes));
      double worst = 0;
      for (const ReferenceRow& r : rows) {
        if (r.bytes < 1 << 20) continue;
        const double predicted = predicted_bus_bandwidth_Bps(fit, r.bytes) / 1e9;
        worst = std::max(worst, std::abs(predicted / r.busbw_GBps - 1));
      }
      MESSAGE(file.name << " (" << ranks << " ranks, " << nodes << " nodes): " << fit.regimes.size()
                        << " regimes, max busbw error >= 1 MiB " << worst * 100 << "%");
      CHECK(worst <= 0.05);
      ++tables_checked;
    }
  }
  CHECK(tables_checked == 8);  // 4 single-table files + DeepBench's 2, 4, 8 and 16 ranks
}

// t = alpha + bus bytes / beta, exactly: no second regime is needed and the parameters come back to
// rounding (1e-9 relative).
TEST_CASE("a pure latency-bandwidth table is one regime with its latency and bandwidth") {
  std::vector<CollectiveMeasurement> table;
  const double factor = nccl_bus_bandwidth_factor("all_reduce", 8);
  for (double bytes = 8; bytes <= 1 << 30; bytes *= 2)
    table.push_back({"all_reduce", bytes, 8, 1, "", 10e-6 + bytes * factor / 100e9, 0});
  const CollectiveFit fit = fit_collective(table);
  REQUIRE(fit.regimes.size() == 1);
  CHECK(fit.regimes[0].latency_s == simtrain::testing::Approx(10e-6).epsilon(1e-9));
  CHECK(fit.regimes[0].bus_bandwidth_Bps == simtrain::testing::Approx(100e9).epsilon(1e-9));
  CHECK(fit.max_relative_error < 1e-9);
  CHECK(predicted_bus_bandwidth_Bps(fit, 1 << 30) ==
        simtrain::testing::Approx((1 << 30) * factor / predicted_time_s(fit, 1 << 30)));
}

TEST_CASE("a protocol switch becomes a regime boundary between the two measured sizes around it") {
  // Below 64 KiB a low-latency, low-bandwidth protocol; from 64 KiB on a high-bandwidth one.
  std::vector<CollectiveMeasurement> table;
  for (double bytes = 1024; bytes <= 1 << 28; bytes *= 2) {
    const double bus = bytes * nccl_bus_bandwidth_factor("all_gather", 4);
    const double t = bytes < 65536 ? 5e-6 + bus / 10e9 : 20e-6 + bus / 200e9;
    table.push_back({"all_gather", bytes, 4, 1, "", t, 0});
  }
  const CollectiveFit fit = fit_collective(table);
  REQUIRE(fit.regimes.size() == 2);
  CHECK(fit.regimes[1].from_bytes == simtrain::testing::Approx(std::sqrt(32768.0 * 65536.0)));
  CHECK(fit.regimes[0].latency_s == simtrain::testing::Approx(5e-6).epsilon(1e-9));
  CHECK(fit.regimes[1].bus_bandwidth_Bps == simtrain::testing::Approx(200e9).epsilon(1e-9));
  // Beyond the measured range the outer regimes extend.
  CHECK(predicted_time_s(fit, 1) == simtrain::testing::Approx(5e-6 + 0.75 / 10e9));
}

TEST_CASE("repeated sizes are merged by their median; tables that mix setups are rejected") {
  std::vector<CollectiveMeasurement> table = {{"broadcast", 1e6, 2, 1, "", 10e-6, 0},
                                              {"broadcast", 1e6, 2, 1, "", 11e-6, 0},
                                              {"broadcast", 1e6, 2, 1, "", 50e-6, 0},
                                              {"broadcast", 2e6, 2, 1, "", 20e-6, 0}};
  CHECK(predicted_time_s(fit_collective(table), 1e6) == simtrain::testing::Approx(11e-6).epsilon(1e-6));
  table.push_back({"broadcast", 4e6, 4, 1, "", 40e-6, 0});
  CHECK_THROWS_AS(fit_collective(table), Error);
  CHECK_THROWS_AS(nccl_bus_bandwidth_factor("gather", 4), Error);
  CHECK(fit_collectives(table).size() == 2);  // grouped by ranks
}

// Tables made with the cost model's own formulas (collective_fit.h) must give its parameters back. The
// efficiency uses the bus bandwidth at the largest size, where the latency term still costs
// steps * latency / time: 14 * 4.5 us / 7.8 ms = 0.8% for one node, hence the 1% tolerance.
TEST_CASE("efficiencies invert the cost model: intra-node from one node, inter-node from several") {
  const CollectiveLinks links{300e9, 0.5e-6, 50e9, 2e-6};
  Efficiencies truth;
  truth.nccl_intra_node = 0.8;
  truth.nccl_inter_node = 0.9;
  truth.nccl_step_latency_s = 4e-6;

  std::vector<CollectiveMeasurement> single, multi;
  for (double bytes = 1024; bytes <= 1 << 30; bytes *= 4) {
    const double l = 8, m = 2, n = 16;
    single.push_back({"all_reduce", bytes, 8, 1, "",
                      2 * (l - 1) / l * bytes / (300e9 * 0.8) + 2 * (l - 1) * (0.5e-6 + 4e-6), 0});
    multi.push_back(
        {"all_reduce", bytes, 16, 2, "",
         std::max(2 * (l - 1) / l * bytes / (300e9 * 0.8), 2 * (n - 1) / n * bytes / (50e9 * 0.9)) +
             2 * (l - 1) * (0.5e-6 + 4e-6) + 2 * (m - 1) * (2e-6 + 4e-6),
         0});
  }
  const auto one_node = estimate_nccl_efficiency(fit_collective(single), links, truth);
  CHECK(one_node.bus_bandwidth_efficiency == simtrain::testing::Approx(0.8).epsilon(0.01));
  REQUIRE(one_node.step_latency_s);
  CHECK(*one_node.step_latency_s == simtrain::testing::Approx(4e-6).epsilon(1e-6));
  const auto two_nodes = estimate_nccl_efficiency(fit_collective(multi), links, truth);
  CHECK(two_nodes.bus_bandwidth_efficiency == simtrain::testing::Approx(0.9).epsilon(0.01));
  CHECK(*two_nodes.step_latency_s == simtrain::testing::Approx(4e-6).epsilon(1e-6));

  Efficiencies start;  // defaults: 0.80, 0.90, 5 us
  start.nccl_intra_node = 0.5;
  start.nccl_inter_node = 0.5;
  const Efficiencies filled = efficiencies_from_fits(fit_collectives([&] {
                                                       auto all = single;
                                                       all.insert(all.end(), multi.begin(), multi.end());
                                                       return all;
                                                     }()),
                                                     links, start);
  CHECK(filled.nccl_intra_node == simtrain::testing::Approx(0.8).epsilon(0.01));
  CHECK(filled.nccl_inter_node == simtrain::testing::Approx(0.9).epsilon(0.01));
  CHECK(filled.nccl_step_latency_s == simtrain::testing::Approx(4e-6).epsilon(1e-6));
  CHECK(filled.gemm == start.gemm);  // nothing else changes
}

TEST_CASE(
    "a multi-node table no slower than its intra-node phases leaves the inter-node efficiency unknown") {
  // 8 x 2 ranks whose time is exactly the NVLink phases: the NICs could be any speed that keeps up.
  std::vector<CollectiveMeasurement> multi;
  for (double bytes = 1 << 20; bytes <= 1 << 30; bytes *= 4)
    multi.push_back({"all_reduce", bytes, 16, 2, "", 2 * 7.0 / 8 * bytes / (300e9 * 0.8), 0});
  Efficiencies known;
  known.nccl_intra_node = 0.8;
  const auto estimate = estimate_nccl_efficiency(fit_collective(multi), {300e9, 0, 50e9, 0}, known);
  CHECK(estimate.bus_bandwidth_efficiency == 0);
  CHECK(efficiencies_from_fits(fit_collectives(multi), {300e9, 0, 50e9, 0}, known).nccl_inter_node ==
        known.nccl_inter_node);
}

TEST_CASE("on a published table: ND A100 v4 reaches 77% of NVLink3's 300 GB/s per direction") {
  const auto rows = read_reference("azure_nda100v4_8xA100_1node_allreduce.csv", 8, 1).begin()->second;
  const auto estimate = estimate_nccl_efficiency(fit_collective(all_reduce_table(rows, 8, 1)),
                                                 CollectiveLinks{300e9, 0, 0, 0}, Efficiencies{});
  // The fit is within 2% of the 4 GiB row's 230.48 GB/s.
  CHECK(estimate.bus_bandwidth_efficiency == simtrain::testing::Approx(230.48 / 300).epsilon(0.02));
  CHECK(estimate.step_latency_s.has_value());  // the table starts at 1 KiB
}

TEST_CASE("a real log imports straight into fits") {
  const auto log =
      read_nccl_tests_log(std::string(SIMTRAIN_SOURCE_DIR) +
                          "/tests/unit/calibration/data/nccl-tests/dgx2_v100_12gpu_old_format.log");
  const auto fits = fit_collectives(to_collective_measurements(log));
  REQUIRE(fits.size() == 2);  // all_reduce and broadcast on 12 ranks
  for (const CollectiveFit& fit : fits) CHECK(fit.max_relative_error <= 0.02);
}

}  // namespace
}  // namespace simtrain::calibration
