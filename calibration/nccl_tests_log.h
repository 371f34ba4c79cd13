// Reading the output of NVIDIA's nccl-tests (all_reduce_perf and its siblings) so that collective benchmarks
// people already ran on their clusters become calibration data: the text tables in every header style from
// nccl-tests 2.0 to 2.18, and the JSON file that `-J` writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/calibration_profile.h"

namespace simtrain::calibration {

// One half (out-of-place or in-place) of a table row, in nccl-tests' own units.
struct NcclTestsTiming {
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  // "#wrong" (newer versions: wrong elements) or "error" (older: max deviation); empty when printed "N/A".
  std::optional<double> wrong;

  bool operator==(const NcclTestsTiming&) const = default;
};

// One message size: one data line of the table.
struct NcclTestsRow {
  std::int64_t bytes = 0;  // "size": the whole buffer (for all-gather, the gathered output)
  std::int64_t count = 0;  // "count", elements
  std::string type;        // "float", "half", ...
  std::string redop;       // "sum", "none", ...; empty when the table has no redop column
  int root = -1;           // -1 when the table has no root column or the op has no root
  NcclTestsTiming out_of_place;
  NcclTestsTiming in_place;
  int line = 0;  // 1-based line of the log

  bool operator==(const NcclTestsRow&) const = default;
};

// One benchmark run: one header, one device list, one table. A log may hold several (a script running
// all_reduce_perf, then broadcast_perf, ...).
struct NcclTestsRun {
  std::string op;         // "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce",
                          // "all_to_all", "send_recv"
  std::string binary;     // e.g. "all_reduce_perf_mpi", when the log names it
  int ranks = 0;          // GPUs taking part (highest "Rank" in the device list + 1)
  int nodes = 0;          // distinct host names in the device list
  std::string gpu;        // device name of rank 0, e.g. "NVIDIA A100-SXM4-80GB"
  std::string algorithm;  // NCCL_ALGO when the log shows it (command line or environment), else empty
  std::vector<NcclTestsRow> rows;
  std::optional<double> avg_bus_bandwidth_GBps;  // the "# Avg bus bandwidth" footer (absent in JSON)
  int first_line = 0;                            // where the run's header starts

  bool operator==(const NcclTestsRun&) const = default;
};

struct NcclTestsLog {
  std::string origin;  // file name, for messages
  std::vector<NcclTestsRun> runs;
};

// What the caller knows that a log may not say.
struct NcclTestsLogHints {
  // The collective, as an op name ("all_reduce") or a binary name ("all_reduce_perf"); used only when the
  // log names no binary (older nccl-tests print none unless the job echoed its command line).
  std::string op;
  // Setup for logs without a "# Using devices" block (excerpts); 0 = unknown, which is an error.
  int ranks = 0;
  int nodes = 0;
};

// Parses nccl-tests stdout (or, when `text` starts with '{', a -J JSON file). Lines may carry mpirun's
// --tag-output prefix ("[1,0]<stdout>:"); lines that are not part of nccl-tests' output (MPI warnings,
// NCCL INFO/WARN, echoed commands) are skipped, except that an echoed command naming a *_perf binary or
// setting NCCL_ALGO is read for the next run. Throws Error(origin, line, field, message) on a truncated or
// garbled log: a data row cut short or with a non-numeric field, a table without rows or without its
// "# Avg bus bandwidth" footer, data without a column header, no table at all, an unknown operation or an
// unknown number of ranks.
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& origin,
                                  const NcclTestsLogHints& hints = {});

// Parses a -J JSON file (one run; ranks = device entries x nthreads x ngpus, since nccl-tests lists one
// device per process). Errors name the JSON path, e.g. "results[3].in_place.bus_bw".
NcclTestsLog parse_nccl_tests_json(const std::string& text, const std::string& origin,
                                   const NcclTestsLogHints& hints = {});

// Reads and parses a file; when neither the log nor `hints` name the operation, a binary name inside the
// file name (e.g. "run3_all_gather_perf.log") does.
NcclTestsLog read_nccl_tests_log(const std::string& path, NcclTestsLogHints hints = {});

// The profile's collective table from a log: one measurement per row and run with a non-empty buffer, from
// the out-of-place half (time, bus bandwidth * 1e9), with the run's ranks, nodes and algorithm.
std::vector<CollectiveMeasurement> to_collective_measurements(const NcclTestsLog& log);

// "all_reduce_perf" or "all_reduce_perf_mpi" (with or without a directory) -> "all_reduce"; an op name
// maps to itself; anything else (gather_perf, hypercube_perf, ...) -> nullopt.
std::optional<std::string> nccl_tests_op_name(std::string_view binary_or_op);

}  // namespace simtrain::calibration
