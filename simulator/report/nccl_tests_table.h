// nccl-tests' text output, exactly as its perf binaries print it (the `# nThread ... nGpus ...` header, the
// `# Using devices` list, out-of-place and in-place column groups, the `# Avg bus bandwidth` footer), so that
// a simulated sweep reads side by side with a real log and goes through any nccl-tests reader, simtrain's
// own importer included. Nothing is validated in a simulation: #wrong is "N/A", as nccl-tests prints it
// with -c 0.
#pragma once

#include <string>
#include <vector>

namespace simtrain::report {

// The benchmark's settings, as the header line echoes them.
struct NcclTestsHeader {
  std::string binary;       // "all_reduce_perf": named on nccl-tests' first line, which says the collective
  int threads = 1;          // -t
  int gpus_per_thread = 1;  // -g
  double min_bytes = 0;     // -b
  double max_bytes = 0;     // -e
  double step_factor = 2;   // -f; used when step_bytes is 0
  double step_bytes = 0;    // -i
  int warmup_iters = 5;     // -w
  int iters = 20;           // -n
  int agg_iters = 1;        // -m
  int validation = 1;       // -c
  int graph = 0;            // -G
};

// One GPU of the device list.
struct NcclTestsDevice {
  int rank = 0;
  int process = 0;  // printed as "Pid": ranks of one process share it
  std::string host;
  int device = 0;  // CUDA device index on its host
  std::string name;
};

// One message size; the simulation times out-of-place and in-place alike.
struct NcclTestsLine {
  double size_bytes = 0;
  double count = 0;
  std::string type;   // "float", "half", ...
  std::string redop;  // "sum", ... or "none"
  int root = -1;
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
};

// The whole output of one run: header, device list, table, footer.
std::string nccl_tests_text(const NcclTestsHeader& header, const std::vector<NcclTestsDevice>& devices,
                            const std::vector<NcclTestsLine>& lines);

}  // namespace simtrain::report
