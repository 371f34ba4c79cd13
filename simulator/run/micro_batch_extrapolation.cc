// Implements micro_batch_extrapolation.h.
#include "simulator/run/micro_batch_extrapolation.h"

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace simtrain::run {
std::optional<MicroBatchSample> plan_micro_batch_sample(const workload::ParallelConfig& config) {
  const int dp = config.data_parallel_size();
  if (config.global_batch <= 0 || dp < 1 || config.micro_batch < 1) return std::nullopt;
  MicroBatchSample sample;
  sample.micro_batches = static_cast<int>(config.global_batch / (1LL * config.micro_batch * dp));
  // A pipeline's warm-up and cool-down take up to pp - 1 micro-batches each (interleaved: about as many), so
  // at 2 x pp every stage has run its steady state; without a pipeline the first micro-batch differs
  // (parameter gathers) and the last carries the gradient reduction. Checked on every Megatron validation row
  // (README, Speed); where the result differs from the full replay, 3 x pp and 4 x pp give the same line.
  sample.fewer = config.pp > 1 ? 2 * config.pp : 4;
  sample.more = config.pp > 1 ? 3 * config.pp : 6;
  if (sample.micro_batches <= sample.fewer + sample.more) return std::nullopt;
  return sample;
}

workload::ParallelConfig with_micro_batches(const workload::ParallelConfig& config, int micro_batches) {
  workload::ParallelConfig shorter = config;
  shorter.global_batch = 1LL * micro_batches * config.micro_batch * config.data_parallel_size();
  return shorter;
}

engine::ReplayResult extrapolate_replay(const engine::ReplayResult& fewer, const engine::ReplayResult& more,
                                        const MicroBatchSample& sample) {
  if (fewer.ranks.size() != more.ranks.size())
    throw Error("micro-batch extrapolation: the two simulated steps have different ranks");
  const double scale = static_cast<double>(sample.micro_batches - sample.more) / (sample.more - sample.fewer);
  const auto line = [scale](double at_fewer, double at_more) {
    return std::max(0.0, at_more + (at_more - at_fewer) * scale);
  };
  engine::ReplayResult whole = more;
  whole.makespan_s = line(fewer.makespan_s, more.makespan_s);
  for (std::size_t i = 0; i < whole.ranks.size(); ++i) {
    const engine::RankTimes& a = fewer.ranks[i];
    engine::RankTimes& b = whole.ranks[i];
    b.end_s = line(a.end_s, b.end_s);
    b.compute_s = line(a.compute_s, b.compute_s);
    b.exposed_comm_s = line(a.exposed_comm_s, b.exposed_comm_s);
    b.idle_s = line(a.idle_s, b.idle_s);
    b.pipeline_bubble_s = line(a.pipeline_bubble_s, b.pipeline_bubble_s);
    b.host_bound_s = line(a.host_bound_s, b.host_bound_s);
    b.offload_bound_s = line(a.offload_bound_s, b.offload_bound_s);
    for (auto& [group, seconds] : b.exposed_by_group_s) {
      const auto found = a.exposed_by_group_s.find(group);
      seconds = line(found == a.exposed_by_group_s.end() ? 0.0 : found->second, seconds);
    }
  }
  for (auto& [name, count] : whole.collective_algorithms) {
    const auto found = fewer.collective_algorithms.find(name);
    const double at_fewer =
        found == fewer.collective_algorithms.end() ? 0.0 : static_cast<double>(found->second);
    count = static_cast<std::uint64_t>(std::llround(line(at_fewer, static_cast<double>(count))));
  }
  whole.flows = fewer.flows + more.flows;
  whole.compute_waits = fewer.compute_waits + more.compute_waits;
  return whole;
}

}  // namespace simtrain::run
