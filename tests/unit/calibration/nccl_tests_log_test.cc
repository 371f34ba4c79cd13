// Specification of nccl_tests_log.h on real nccl-tests output (tests/unit/calibration/data/nccl-tests/, each
// with its source): the three header styles, multi-run logs, mpirun tag prefixes, the -J JSON layout, and
// line-numbered errors on logs that were cut short or garbled (variants made here by editing real text).
#include "calibration/nccl_tests_log.h"

#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <tuple>

#include "common/error.h"

namespace simtrain::calibration {
namespace {

const std::string kData = std::string(SIMTRAIN_SOURCE_DIR) + "/tests/unit/calibration/data/nccl-tests/";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// 1-based line of the first line containing `needle`.
int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Parses and returns the error it must raise.
Error parse_error(const std::string& text, const NcclTestsLogHints& hints = {}) {
  try {
    parse_nccl_tests_log(text, "log.txt", hints);
  } catch (const Error& e) {
    return e;
  }
  FAIL("no error raised");
  return Error("unreachable");
}

TEST_CASE("the oldest header style: runs named by echoed commands, error column, no root or redop column") {
  const std::string path = kData + "dgx2_v100_12gpu_old_format.log";
  const NcclTestsLog log = read_nccl_tests_log(path);
  REQUIRE(log.runs.size() == 2);

  const NcclTestsRun& all_reduce = log.runs[0];
  CHECK(all_reduce.op == "all_reduce");
  CHECK(all_reduce.binary == "all_reduce_perf");  // from "Running: ... ./build/all_reduce_perf -b 8 ..."
  CHECK(all_reduce.ranks == 12);
  CHECK(all_reduce.nodes == 1);
  CHECK(all_reduce.gpu == "Tesla V100-SXM3-32GB");
  CHECK(all_reduce.algorithm.empty());
  REQUIRE(all_reduce.rows.size() == 31);
  const NcclTestsRow& first = all_reduce.rows.front();
  CHECK(first.bytes == 8);
  CHECK(first.count == 2);
  CHECK(first.type == "float");
  CHECK(first.redop == "sum");
  CHECK(first.root == -1);
  CHECK(first.out_of_place == NcclTestsTiming{61.03, 0.00, 0.00, 2e-07});
  CHECK(first.in_place == NcclTestsTiming{61.04, 0.00, 0.00, 1e-07});
  CHECK(first.line == 21);
  // Times printed without decimals once they pass 5 digits.
  CHECK(all_reduce.rows.back().out_of_place == NcclTestsTiming{127453, 67.40, 123.56, 2e-07});
  CHECK(all_reduce.avg_bus_bandwidth_GBps == 42.5578);

  const NcclTestsRun& broadcast = log.runs[1];
  CHECK(broadcast.op == "broadcast");
  CHECK(broadcast.first_line == line_of(slurp(path), "# nThread 1 nGpus 12") + 54);  // the second header
  REQUIRE(broadcast.rows.size() == 31);
  CHECK(broadcast.rows[17].bytes == 1048576);
  CHECK(broadcast.rows[17].redop.empty());
  CHECK(broadcast.rows[17].root == 0);
  CHECK(broadcast.rows[17].out_of_place.busbw_GBps == 14.05);
  CHECK(broadcast.avg_bus_bandwidth_GBps == 41.2456);
}

TEST_CASE("the middle header style: the operation comes from the file name when the log names none") {
  const std::string path = kData + "oci_a100_2node16gpu_all_reduce_perf.log";
  const NcclTestsLog log = read_nccl_tests_log(path);
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& run = log.runs[0];
  CHECK(run.op == "all_reduce");
  CHECK(run.binary.empty());
  CHECK(run.ranks == 16);
  CHECK(run.nodes == 2);  // nccl-allreduce-job0-mpiworker-0 and -1
  CHECK(run.gpu == "NVIDIA A100-SXM4-40GB");
  REQUIRE(run.rows.size() == 31);
  CHECK(run.rows[18].out_of_place == NcclTestsTiming{99.19, 21.14, 39.64, 0});
  CHECK(run.rows[18].in_place == NcclTestsTiming{100.1, 20.94, 39.27, 0});
  CHECK(run.avg_bus_bandwidth_GBps == 66.4834);

  // The same text without a file name or hint cannot say which collective it measured.
  const std::string text = slurp(path);
  const Error e = parse_error(text);
  CHECK(e.line() == line_of(text, "# nThread"));
  CHECK(e.field() == "op");
  CHECK(parse_nccl_tests_log(text, "x", {.op = "all_reduce"}).runs[0].op == "all_reduce");
}

TEST_CASE("the newest header style behind mpirun --tag-output prefixes") {
  const NcclTestsLog log = read_nccl_tests_log(kData + "rtx5090_2rank_tagged_output.log");
  REQUIRE(log.runs.size() == 1);
  const NcclTestsRun& run = log.runs[0];
  CHECK(run.op == "all_reduce");
  CHECK(run.binary == "all_reduce_perf_mpi");  // "# Collective test starting: all_reduce_perf_mpi"
  CHECK(run.ranks == 2);
  CHECK(run.nodes == 1);  // both ranks on host "lab"
  CHECK(run.gpu == "NVIDIA GeForce RTX 5090");
  REQUIRE(run.rows.size() == 8);
  CHECK(run.rows[5].out_of_place == NcclTestsTiming{14977.1, 2.24, 2.24, 0});
  CHECK(run.avg_bus_bandwidth_GBps == 1.57614);
}

TEST_CASE("N/A in the #wrong column (run with -c 0) is an absent count, not an error") {
  std::string text = slurp(kData + "rtx5090_2rank_tagged_output.log");
  text = replaced(text, "0.24    0.24       0  4365.21    0.24    0.24       0",
                  "0.24    0.24     N/A  4365.21    0.24    0.24     N/A");
  // The log is kept: a reference into the temporary parse result would dangle past this statement.
  const NcclTestsLog log = parse_nccl_tests_log(text, "x");
  const NcclTestsRow& row = log.runs[0].rows[0];
  CHECK_FALSE(row.out_of_place.wrong.has_value());
  CHECK_FALSE(row.in_place.wrong.has_value());
  CHECK(row.in_place.time_us == 4365.21);
}

TEST_CASE("NCCL_ALGO on the command that starts a run is that run's algorithm, and only that run's") {
  std::string text = slurp(kData + "dgx2_v100_12gpu_old_format.log");
  text = replaced(text, "LD_PRELOAD=", "NCCL_ALGO=Ring LD_PRELOAD=");
  const NcclTestsLog log = parse_nccl_tests_log(text, "x");
  CHECK(log.runs[0].algorithm == "Ring");
  CHECK(log.runs[1].algorithm.empty());
}

TEST_CASE("measurements: one per row with bytes, from the out-of-place half, in seconds and bytes/s") {
  const auto measurements =
      to_collective_measurements(read_nccl_tests_log(kData + "dgx2_v100_12gpu_old_format.log"));
  REQUIRE(measurements.size() == 62);
  const CollectiveMeasurement& m = measurements[17];  // all_reduce of 1 MiB
  CHECK(m.op == "all_reduce");
  CHECK(m.bytes == 1048576);
  CHECK(m.ranks == 12);
  CHECK(m.nodes == 1);
  CHECK(m.time_s == simtrain::testing::Approx(89.15e-6).epsilon(1e-12));
  // Bus bandwidth comes from size and time (2(n-1)/n * bytes / time), not from the printed column, which
  // rounds small messages to 0.00; here it agrees with the printed 21.56 GB/s to its 4 digits.
  CHECK(m.bus_bandwidth_Bps == simtrain::testing::Approx(2.0 * 11 / 12 * 1048576 / 89.15e-6).epsilon(1e-12));
  CHECK(m.bus_bandwidth_Bps == simtrain::testing::Approx(21.56e9).epsilon(5e-4));
  CHECK(measurements[31].op == "broadcast");
}

TEST_CASE("truncated and garbled logs are rejected with the line and field at fault") {
  const std::string text = slurp(kData + "oci_a100_2node16gpu_all_reduce_perf.log");
  const NcclTestsLogHints hints{.op = "all_reduce_perf"};
  const int mib_row = line_of(text, "     1048576        262144");

  SUBCASE("a data row cut in the middle") {
    const std::string cut = text.substr(0, text.find("85.58   12") + 10);
    const Error e = parse_error(cut, hints);
    CHECK(e.line() == mib_row);
    CHECK(e.field() == "busbw (out-of-place)");
    CHECK(e.message().find("cut short") != std::string::npos);
  }
  SUBCASE("a log cut between two rows: no footer") {
    const std::string cut = text.substr(0, text.find('\n', text.find("     1048576")) + 1);
    const Error e = parse_error(cut, hints);
    CHECK(e.line() == mib_row + 1);
    CHECK(e.message().find("footer") != std::string::npos);
  }
  SUBCASE("a non-numeric field") {
    const Error e = parse_error(replaced(text, "12.25   22.97", "12.25   22.9x"), hints);
    CHECK(e.line() == mib_row);
    CHECK(e.field() == "busbw (out-of-place)");
    CHECK(e.message() == "'22.9x' is not a number");
  }
  SUBCASE("a run that failed mid-table (line as printed in NVIDIA/nccl-tests issue #355)") {
    const std::string failed =
        text.substr(0, text.find("     1048576")) +
        "     2097152         32768     float    none      -1 node0: Test CUDA failure "
        "common.cu:389 'an illegal memory access was encountered'\n";
    const Error e = parse_error(failed, hints);
    CHECK(e.line() == mib_row);
    CHECK(e.field() == "time (out-of-place)");
  }
  SUBCASE("a table without data rows") {
    const std::string empty =
        text.substr(0, text.find("           8             2")) + text.substr(text.find("# Out of bounds"));
    const Error e = parse_error(empty, hints);
    CHECK(e.line() == line_of(empty, "# Avg bus bandwidth"));
    CHECK(e.message() == "the table has no data rows");
  }
  SUBCASE("data rows without the column header") {
    const std::string headless = replaced(text, "#       size         count      type   redop    root", "#");
    const Error e = parse_error(headless, hints);
    CHECK(e.line() == line_of(headless, "           8             2"));
  }
  SUBCASE("no table at all") {
    const Error e =
        parse_error("Warning: Permanently added 'x' (ED25519) to the list of known hosts.\n", hints);
    CHECK(e.message() == "no nccl-tests result table found");
  }
  SUBCASE("an excerpt without the device list needs ranks and nodes") {
    const std::string excerpt = text.substr(text.find("#\n#   "));
    CHECK(parse_error(excerpt, hints).field() == "ranks");
    const NcclTestsRun run =
        parse_nccl_tests_log(excerpt, "x", {.op = "all_reduce", .ranks = 16, .nodes = 2}).runs[0];
    CHECK(run.ranks == 16);
    CHECK(run.rows.size() == 31);
  }
  SUBCASE("a binary simtrain does not model") {
    CHECK(parse_error(text, {.op = "hypercube_perf"}).message().find("not a collective") !=
          std::string::npos);
  }
}

TEST_CASE("a size of -1 or nan is a line-numbered error, not a row silently skipped") {
  const std::string text = slurp(kData + "rtx5090_2rank_tagged_output.log");
  const int first_row = line_of(text, "     1048576        262144");
  for (const std::string size : {"-1", "nan", "-0.5"}) {
    CAPTURE(size);
    const Error e =
        parse_error(replaced(text, "     1048576        262144", "     " + size + "        262144"));
    CHECK(e.line() == first_row);
    CHECK(e.field() == "size");
  }
  const Error negative = parse_error(replaced(text, "     1048576        262144", "     -1        262144"));
  CHECK(negative.message() == "must be a finite number >= 0, got -1");
  // A time of 10^308 us would become an infinite measurement: bounded like profile durations.
  const Error huge = parse_error(replaced(text, "4366.46", "1e308"));
  CHECK(huge.field() == "time (out-of-place)");
  CHECK(huge.message().find("at most") != std::string::npos);
}

TEST_CASE("a rank beyond what simtrain simulates is an error, not an integer overflow") {
  const std::string text = slurp(kData + "rtx5090_2rank_tagged_output.log");
  const Error e = parse_error(replaced(text, "#  Rank  1", "#  Rank 2147483647"));
  CHECK(e.line() == line_of(text, "#  Rank  1"));
  CHECK(e.field() == "Rank");
  CHECK(e.message().find("2147483647 is outside [0, 1048576)") != std::string::npos);
}

// No real -J file was found in public material; this document follows the writer in nccl-tests' src/util.cu
// (JSON_FILE_VERSION 2): one device entry per process, root printed as "%6i", nwrong null without -c.
TEST_CASE("the -J JSON file: setup from args, env and config.devices; rows from results") {
  const std::string json = R"({"version":2,"start_time":"2025-01-01 00:00:00",
    "args":["./build/all_gather_perf","-b","8","-e","16","-g","4"],"env":["NCCL_ALGO=Ring","HOME=/root"],
    "nccl_version":22105,"config":{"nthreads":1,"ngpus":4,"minimum_bytes":8,"maximum_bytes":16,
    "step_factor":2,"warmup_iters":5,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,
    "blocking_collectives":"false","per_iter_timing":"false","parallel_init":"false",
    "devices":[{"rank":0,"group":0,"pid":1,"hostname":"a","device":0,"device_hex":"0000:07:00",
    "device_info":"NVIDIA H100 80GB HBM3"},{"rank":4,"group":0,"pid":2,"hostname":"b","device":0,
    "device_hex":"0000:07:00","device_info":"NVIDIA H100 80GB HBM3"}]},
    "results":[{"size":8,"count":0,"type":"float","redop":"none","root":"    -1",
      "out_of_place":{"time":20.5,"alg_bw":0.0,"bus_bw":0.0,"nwrong":0.0},
      "in_place":{"time":19.75,"alg_bw":0.0,"bus_bw":0.0,"nwrong":null},"actual_iterations":20,"experiment_name":""},
     {"size":16,"count":0,"type":"float","redop":"none","root":"    -1",
      "out_of_place":{"time":21.0,"alg_bw":0.000762,"bus_bw":0.000667,"nwrong":0.0},
      "in_place":{"time":20.0,"alg_bw":0.0008,"bus_bw":0.0007,"nwrong":0.0}}],
    "out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":0.0003,"okay":"unchecked"},
    "errors":[],"end_time":"2025-01-01 00:00:01"})";
  const NcclTestsRun run = parse_nccl_tests_log(json, "x.json").runs.at(0);
  CHECK(run.op == "all_gather");
  CHECK(run.ranks == 8);  // 2 processes x 1 thread x 4 GPUs
  CHECK(run.nodes == 2);
  CHECK(run.algorithm == "Ring");
  CHECK(run.gpu == "NVIDIA H100 80GB HBM3");
  REQUIRE(run.rows.size() == 2);
  CHECK(run.rows[0].root == -1);
  CHECK(run.rows[0].in_place == NcclTestsTiming{19.75, 0, 0, std::nullopt});
  CHECK(run.rows[1].out_of_place.busbw_GBps == 0.000667);

  const std::string broken = replaced(json, R"("bus_bw":0.0007,)", "");
  try {
    parse_nccl_tests_log(broken, "x.json");
    FAIL("no error raised");
  } catch (const Error& e) {
    CHECK(e.field() == "results[1].in_place.bus_bw");
  }
  CHECK_THROWS_AS(parse_nccl_tests_log(json.substr(0, json.size() / 2), "x.json"), Error);  // cut short

  // Out-of-range numbers name the file and line (nlohmann reports 1e999 without a position), and values
  // that would overflow the conversions to integers are rejected naming the field.
  try {
    parse_nccl_tests_log(replaced(json, R"("size":16,)", R"("size":1e999,)"), "x.json");
    FAIL("no error raised");
  } catch (const Error& e) {
    CHECK(e.file() == "x.json");
    CHECK(e.line() == line_of(json, R"("size":16,)"));
    CHECK(e.message().starts_with("invalid JSON: "));
  }
  for (const auto& [from, to, field] :
       {std::tuple{R"("size":16,)", R"("size":1e300,)", "results[1].size"},
        std::tuple{R"("ngpus":4,)", R"("ngpus":1e300,)", "config.ngpus"},
        std::tuple{R"("time":21.0,)", R"("time":1e300,)", "results[1].out_of_place.time"}}) {
    CAPTURE(field);
    try {
      parse_nccl_tests_log(replaced(json, from, to), "x.json");
      FAIL("no error raised");
    } catch (const Error& e) {
      CHECK(e.field() == field);
    }
  }
}

TEST_CASE("binary names map to op names; directories and the _mpi suffix do not matter") {
  CHECK(nccl_tests_op_name("./build/all_reduce_perf") == "all_reduce");
  CHECK(nccl_tests_op_name("/opt/nccl-tests/alltoall_perf_mpi") == "all_to_all");
  CHECK(nccl_tests_op_name("sendrecv_perf") == "send_recv");
  CHECK(nccl_tests_op_name("reduce_perf") == "reduce");
  CHECK(nccl_tests_op_name("reduce_scatter") == "reduce_scatter");
  CHECK_FALSE(nccl_tests_op_name("gather_perf").has_value());
}

}  // namespace
}  // namespace simtrain::calibration
