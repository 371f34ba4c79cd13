// Event-based timing loops.
#include "calibration/tool/gpu_timer.h"

#include <algorithm>
#include <memory>

#include "calibration/tool/gpu_status.h"

namespace simtrain::calibration::tool {

EventPair::EventPair() {
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
}

EventPair::~EventPair() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void EventPair::start(cudaStream_t stream) { check_cuda(cudaEventRecord(start_, stream), "cudaEventRecord"); }
void EventPair::stop(cudaStream_t stream) { check_cuda(cudaEventRecord(stop_, stream), "cudaEventRecord"); }

double EventPair::elapsed_s() {
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms * 1e-3;
}

TimingSummary time_launches(cudaStream_t stream, const TimingPlan& plan,
                            const std::function<void(int)>& launch) {
  int counter = 0;
  for (int i = 0; i < plan.warmup_launches; ++i) launch(counter++);
  check_cuda(cudaStreamSynchronize(stream), "warm-up");
  EventPair events;
  events.start(stream);
  launch(counter++);
  events.stop(stream);
  // Event resolution is ~0.5 us: a zero reading means "very short".
  const double estimate_s = std::max(events.elapsed_s(), 1e-7);
  const int launches = launches_per_sample(estimate_s, plan);
  const int samples = samples_to_take(estimate_s, launches, plan);
  std::vector<double> per_launch_s;
  for (int s = 0; s < samples; ++s) {
    events.start(stream);
    for (int i = 0; i < launches; ++i) launch(counter++);
    events.stop(stream);
    per_launch_s.push_back(std::max(events.elapsed_s(), 1e-9) / launches);
  }
  check_cuda(cudaGetLastError(), "kernel launch");
  return summarize(per_launch_s);
}

TimingSummary time_launches_on(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams,
                               const TimingPlan& plan, const std::function<void()>& launch_all) {
  auto synchronize = [&] {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      check_cuda(cudaSetDevice(devices[d]), "cudaSetDevice");
      check_cuda(cudaStreamSynchronize(streams[d]), "cudaStreamSynchronize");
    }
  };
  std::vector<std::unique_ptr<EventPair>> events;
  for (int device : devices) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    events.push_back(std::make_unique<EventPair>());
  }
  // One sample of `launches` rounds: the slowest device's span.
  auto sample = [&](int launches) {
    for (std::size_t d = 0; d < devices.size(); ++d) {
      check_cuda(cudaSetDevice(devices[d]), "cudaSetDevice");
      events[d]->start(streams[d]);
    }
    for (int i = 0; i < launches; ++i) launch_all();
    double slowest_s = 0;
    for (std::size_t d = 0; d < devices.size(); ++d) {
      check_cuda(cudaSetDevice(devices[d]), "cudaSetDevice");
      events[d]->stop(streams[d]);
    }
    for (std::size_t d = 0; d < devices.size(); ++d) {
      check_cuda(cudaSetDevice(devices[d]), "cudaSetDevice");
      slowest_s = std::max(slowest_s, events[d]->elapsed_s());
    }
    return std::max(slowest_s, 1e-9) / launches;
  };
  for (int i = 0; i < plan.warmup_launches; ++i) launch_all();
  synchronize();
  const double estimate_s = std::max(sample(1), 1e-7);
  const int launches = launches_per_sample(estimate_s, plan);
  const int samples = samples_to_take(estimate_s, launches, plan);
  std::vector<double> per_launch_s;
  for (int s = 0; s < samples; ++s) per_launch_s.push_back(sample(launches));
  return summarize(per_launch_s);
}

}  // namespace simtrain::calibration::tool
