// Timing GPU work with CUDA events: warm-up launches, then samples of back-to-back launches, summarised by
// their median (timing_stats.h decides how many).
#pragma once

#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "calibration/tool/timing_stats.h"

namespace simtrain::calibration::tool {

// A pair of CUDA events, destroyed with the object.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the stop event; seconds between the two.
  double elapsed_s();

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Times `launch(i)` on `stream`, where i counts every launch (warm-up included) so that the callee can
// rotate among operand sets. Returns the per-launch time of each sample, summarised.
TimingSummary time_launches(cudaStream_t stream, const TimingPlan& plan,
                            const std::function<void(int)>& launch);

// The same for work spread over several devices' streams (NCCL): a sample lasts from the earliest start to
// the latest stop, measured on each device by its own events.
TimingSummary time_launches_on(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams,
                               const TimingPlan& plan, const std::function<void()>& launch_all);

}  // namespace simtrain::calibration::tool
