// Long steps from two short ones. A training step of M micro-batches repeats the same work per micro-batch
// once its pipeline schedule is in its steady state: each further micro-batch (each further round of pp
// micro-batches, interleaved) adds one period, so the iteration time and every part of its breakdown are
// linear in M from there on. A step of hundreds of micro-batches (Megatron-Bridge's Llama 3.1 405B: 384 per
// replica) is therefore simulated at two sizes inside the steady state, `fewer` and `more`, and the replay's
// figures are extrapolated linearly to M. Measured against simulating every micro-batch in the README
// ("Micro-batch extrapolation"); `simtrain run --simulate-every-micro-batch` turns it off, and a timeline,
// which shows every op, always simulates every micro-batch.
#pragma once

#include <optional>

#include "simulator/engine/replay.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::run {

struct MicroBatchSample {
  int micro_batches = 0;  // per step and data-parallel replica, of the configuration asked for
  int fewer = 0;          // the two step sizes simulated
  int more = 0;
};

// The two step sizes to simulate for `config`: 2 x pp and 3 x pp micro-batches (4 and 6 without a
// pipeline), multiples of pp as interleaved schedules need, past the pipeline's warm-up and cool-down.
// nullopt when the step has no more micro-batches than simulating both would take.
std::optional<MicroBatchSample> plan_micro_batch_sample(const workload::ParallelConfig& config);

// `config` with its global batch set to `micro_batches` micro-batches per data-parallel replica.
workload::ParallelConfig with_micro_batches(const workload::ParallelConfig& config, int micro_batches);

// The replay of the whole step, from the replays of `sample.fewer` and `sample.more` micro-batches: the
// makespan and every rank's times and collective counts extrapolated linearly (times no lower than 0), the
// counts of simulated flows and compute intervals those of both replays together, the rest from `more`.
// Throws Error when the two replays do not describe the same ranks.
engine::ReplayResult extrapolate_replay(const engine::ReplayResult& fewer, const engine::ReplayResult& more,
                                        const MicroBatchSample& sample);

}  // namespace simtrain::run
