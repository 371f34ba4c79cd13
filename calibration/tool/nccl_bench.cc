// NCCL collectives over all GPUs visible to this process: one communicator per GPU from ncclCommInitAll,
// every round launched from this thread inside ncclGroupStart/End (nccl-tests' -g mode, equivalent to one
// thread per GPU), float data, sizes as nccl-tests' -b 8 -e 1G. Time is the slowest GPU's; bus bandwidth
// follows nccl-tests (bus_bandwidth.h). With one GPU, all-reduce, all-gather, reduce-scatter and all-to-all
// move nothing between GPUs (nccl-tests reports bus bandwidth 0): they are timed but not recorded.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/bus_bandwidth.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"
#include "calibration/tool/shape_grid.h"

namespace simtrain::calibration::tool {
namespace {

// Per GPU: its communicator, stream and send and receive buffers of the largest size.
struct Rank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  DeviceBuffer send, recv;
};

class Communicators {
 public:
  Communicators(int count, std::size_t buffer_bytes, RandomSource& random)
      : ranks_(static_cast<std::size_t>(count)) {
    std::vector<ncclComm_t> comms(ranks_.size());
    std::vector<int> devices;
    for (int d = 0; d < count; ++d) devices.push_back(d);
    const ncclResult_t status = ncclCommInitAll(comms.data(), count, devices.data());
    if (status != ncclSuccess)
      throw Error("NCCL init failed on " + std::to_string(count) + " GPU(s): " + ncclGetErrorString(status));
    for (int d = 0; d < count; ++d) {
      Rank& rank = ranks_[static_cast<std::size_t>(d)];
      rank.device = d;
      rank.comm = comms[static_cast<std::size_t>(d)];
      check_cuda(cudaSetDevice(d), "cudaSetDevice");
      check_cuda(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking), "cudaStreamCreate");
      rank.send = DeviceBuffer(buffer_bytes);
      rank.recv = DeviceBuffer(buffer_bytes);
      random.fill(rank.send, DType::FP32);
    }
  }
  ~Communicators() {
    for (Rank& rank : ranks_) {
      cudaSetDevice(rank.device);
      if (rank.comm != nullptr) ncclCommDestroy(rank.comm);
      if (rank.stream != nullptr) cudaStreamDestroy(rank.stream);
      rank.send = DeviceBuffer();
      rank.recv = DeviceBuffer();
    }
  }
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  int size() const { return static_cast<int>(ranks_.size()); }
  const std::vector<Rank>& ranks() const { return ranks_; }
  std::vector<int> devices() const {
    std::vector<int> list;
    for (const Rank& rank : ranks_) list.push_back(rank.device);
    return list;
  }
  std::vector<cudaStream_t> streams() const {
    std::vector<cudaStream_t> list;
    for (const Rank& rank : ranks_) list.push_back(rank.stream);
    return list;
  }

 private:
  std::vector<Rank> ranks_;
};

// Launches one round of `op` on every rank; `count` is the element count of the largest buffer.
void launch(const std::string& op, const Communicators& comms, std::size_t count) {
  const int n = comms.size();
  const std::size_t part = count / static_cast<std::size_t>(n);
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < n; ++r) {
    const Rank& rank = comms.ranks()[static_cast<std::size_t>(r)];
    const void* in = rank.send.get();
    void* out = rank.recv.get();
    if (op == "all_reduce") {
      check_nccl(ncclAllReduce(in, out, count, ncclFloat, ncclSum, rank.comm, rank.stream), "ncclAllReduce");
    } else if (op == "all_gather") {
      check_nccl(ncclAllGather(in, out, part, ncclFloat, rank.comm, rank.stream), "ncclAllGather");
    } else if (op == "reduce_scatter") {
      check_nccl(ncclReduceScatter(in, out, part, ncclFloat, ncclSum, rank.comm, rank.stream),
                 "ncclReduceScatter");
    } else if (op == "broadcast") {
      check_nccl(ncclBroadcast(in, out, count, ncclFloat, 0, rank.comm, rank.stream), "ncclBroadcast");
    } else if (op == "all_to_all") {
      for (int peer = 0; peer < n; ++peer) {
        const std::size_t offset = static_cast<std::size_t>(peer) * part * sizeof(float);
        check_nccl(ncclSend(rank.send.at(offset), part, ncclFloat, peer, rank.comm, rank.stream), "ncclSend");
        check_nccl(ncclRecv(rank.recv.at(offset), part, ncclFloat, peer, rank.comm, rank.stream), "ncclRecv");
      }
    } else {  // send_recv: a ring, each rank sending to the next and receiving from the previous
      check_nccl(ncclSend(in, count, ncclFloat, (r + 1) % n, rank.comm, rank.stream), "ncclSend");
      check_nccl(ncclRecv(out, count, ncclFloat, (r + n - 1) % n, rank.comm, rank.stream), "ncclRecv");
    }
  }
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

}  // namespace

void measure_nccl(const BenchContext& ctx, CalibrationProfile& profile) {
  const int gpus = ctx.device.visible_devices;
  const std::vector<double> sizes = collective_sizes_bytes(ctx.quick);
  const Communicators comms(gpus, static_cast<std::size_t>(sizes.back()), ctx.random);
  const char* ops[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "send_recv"};
  // NCCL does not report the algorithm it picked; a forced one (NCCL_ALGO) is recorded.
  const char* forced = std::getenv("NCCL_ALGO");
  const std::string algorithm = forced != nullptr ? forced : "";
  ctx.progress.begin("nccl", static_cast<int>(sizes.size() * std::size(ops)));
  for (const char* op : ops) {
    const bool moves_data = bus_bandwidth_factor(op, gpus) > 0;
    for (double bytes : sizes) {
      const auto count = static_cast<std::size_t>(bytes) / sizeof(float);
      char what[96];
      std::snprintf(what, sizeof what, "%s %.0f bytes x %d GPU(s)", op, bytes, gpus);
      if (count == 0 || count % static_cast<std::size_t>(gpus) != 0) {
        ctx.progress.step(std::string(what) + ": skipped (not a whole number of floats per GPU)");
        continue;
      }
      const double time_s = time_launches_on(comms.devices(), comms.streams(), ctx.plan, [&] {
                              launch(op, comms, count);
                            }).median_s;
      char result[96];
      if (moves_data) {
        const double bus_Bps = bus_bandwidth_Bps(op, gpus, bytes, time_s);
        profile.collectives.push_back({op, bytes, gpus, 1, algorithm, time_s, bus_Bps});
        std::snprintf(result, sizeof result, ": %.4g us, bus %.4g GB/s", time_s * 1e6, bus_Bps / 1e9);
      } else {
        std::snprintf(result, sizeof result, ": %.4g us (one GPU: not recorded)", time_s * 1e6);
      }
      ctx.progress.step(what + std::string(result));
    }
  }
  if (gpus == 1)
    ctx.progress.warn(
        "nccl: one GPU, so only broadcast and send_recv rows; calibrate multi-GPU collectives with "
        "`simtrain profile import nccl-tests`");
  check_cuda(cudaSetDevice(ctx.device.index), "cudaSetDevice");
}

}  // namespace simtrain::calibration::tool
