// An nccl-tests-style sweep simulated on a platform: one collective over every GPU of the job at each
// message size, one after the other in one simulation, timed as nccl-tests times it.
#pragma once

#include <string>
#include <vector>

#include "simulator/run/simulation.h"

namespace simtrain::run {

struct CollectiveSweepRequest {
  trace::CollectiveKind kind = trace::CollectiveKind::AllReduce;
  DType dtype = DType::FP32;        // the elements' type, as far as the cost of reducing them goes
  std::vector<double> sizes_bytes;  // nccl-tests' "size": the buffer, as CollectiveSpec::bytes counts it
  int gpus = 8;
  RunRequest run;  // platform, nodes, profile; its workload fields are ignored
};

// One row of nccl-tests' output.
struct CollectiveSample {
  double size_bytes = 0;
  double time_s = 0;
  double algbw_Bps = 0;   // size / time
  double busbw_Bps = 0;   // algbw x nccl-tests' bus factor
  std::string algorithm;  // NCCL's algorithm and protocol as simulated ("tree", "ll128"); empty for
                          // all-to-all and sendrecv, point-to-point exchanges
  std::string protocol;
};

// nccl-tests' sizes from -b to -e multiplying by -f (both ends included when reached). Throws Error on
// sizes below 1 byte, min > max or a factor below 2.
std::vector<double> sweep_sizes(double min_bytes, double max_bytes, double factor);
// nccl-tests' sizes from -b to -e adding -i bytes. Throws Error on a step below 1 byte or more than
// kMaxSweepSizes sizes.
std::vector<double> sweep_sizes_by_step(double min_bytes, double max_bytes, double step_bytes);
inline constexpr std::size_t kMaxSweepSizes = 100'000;

// Throws Error on fewer than two GPUs or an empty size list, and whatever simulate() throws.
std::vector<CollectiveSample> simulate_collective_sweep(const CollectiveSweepRequest& request);

}  // namespace simtrain::run
