// Memory-bound throughput over buffer sizes: device copy (cudaMemcpyAsync), elementwise (cuBLAS saxpy: reads
// x and y, writes y), reduction (cuBLAS sasum: reads x) and host<->device copies from pinned memory.
// Bandwidth counts every byte read and written, as STREAM does; "bytes" is the size of one buffer.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"
#include "calibration/tool/shape_grid.h"

namespace simtrain::calibration::tool {
namespace {

// Host copies stop at 1 GiB: pinning more host memory is slow and their rate has long levelled off.
constexpr double kMaxHostCopyBytes = 1024.0 * (1 << 20);

// Rotating pairs of device buffers (x, y) of `bytes` each.
struct BufferPairs {
  std::size_t bytes;
  int sets;
  DeviceBuffer memory;
  BufferPairs(const BenchContext& ctx, double size)
      : bytes(aligned(static_cast<std::size_t>(size))),
        sets(rotation_sets(2.0 * static_cast<double>(bytes), ctx.device.l2_bytes, ctx.budget_bytes)) {
    if (2.0 * static_cast<double>(bytes) > ctx.budget_bytes)
      throw Unsupported("buffers exceed the memory budget");
    memory = DeviceBuffer(2 * bytes * sets);
    ctx.random.fill(memory, DType::FP32);
  }
  void* x(int i) const { return memory.at(static_cast<std::size_t>(i % sets) * 2 * bytes); }
  void* y(int i) const { return memory.at((static_cast<std::size_t>(i % sets) * 2 + 1) * bytes); }
};

}  // namespace

void measure_memory(const BenchContext& ctx, CalibrationProfile& profile) {
  cublasHandle_t blas = nullptr;
  check_cublas(cublasCreate(&blas), "cublasCreate");
  const std::unique_ptr<cublasContext, cublasStatus_t (*)(cublasHandle_t)> owner(blas, cublasDestroy);
  check_cublas(cublasSetStream(blas, ctx.stream), "cublasSetStream");
  // Results stay on the device, so that sasum does not synchronise with the host after every call.
  check_cublas(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  const DeviceBuffer scalars(256);
  const float two = 2;
  check_cuda(cudaMemcpy(scalars.get(), &two, sizeof two, cudaMemcpyHostToDevice), "cudaMemcpy");
  const float* alpha = static_cast<const float*>(scalars.get());
  float* sum = static_cast<float*>(scalars.at(128));

  const std::vector<double> sizes = memory_sizes_bytes(ctx.quick);
  int total = 0;
  for (double size : sizes) total += size > kMaxHostCopyBytes ? 3 : 5;
  ctx.progress.begin("memory", total);
  auto record = [&](const std::string& op, double bytes, double moved, double time_s) {
    profile.memory.push_back({op, bytes, moved / time_s});
    char text[96];
    std::snprintf(text, sizeof text, "%s %.0f bytes: %.4g GB/s", op.c_str(), bytes, moved / time_s / 1e9);
    ctx.progress.step(text);
  };
  for (double size : sizes) {
    try {
      const BufferPairs buffers(ctx, size);
      const auto n = static_cast<int>(buffers.bytes / 4);
      const double b = static_cast<double>(buffers.bytes);
      record("device_copy", b, 2 * b, time_launches(ctx.stream, ctx.plan, [&](int i) {
                                        check_cuda(cudaMemcpyAsync(buffers.y(i), buffers.x(i), buffers.bytes,
                                                                   cudaMemcpyDeviceToDevice, ctx.stream),
                                                   "cudaMemcpyAsync");
                                      }).median_s);
      record("elementwise", b, 3 * b,
             time_launches(ctx.stream, ctx.plan, [&](int i) {
               check_cublas(cublasSaxpy(blas, n, alpha, static_cast<const float*>(buffers.x(i)), 1,
                                        static_cast<float*>(buffers.y(i)), 1),
                            "cublasSaxpy");
             }).median_s);
      record("reduction", b, b, time_launches(ctx.stream, ctx.plan, [&](int i) {
                                  check_cublas(
                                      cublasSasum(blas, n, static_cast<const float*>(buffers.x(i)), 1, sum),
                                      "cublasSasum");
                                }).median_s);
      if (size > kMaxHostCopyBytes) continue;
      const PinnedBuffer host(buffers.bytes);
      record("h2d", b, b, time_launches(ctx.stream, ctx.plan, [&](int i) {
                            check_cuda(cudaMemcpyAsync(buffers.x(i), host.get(), buffers.bytes,
                                                       cudaMemcpyHostToDevice, ctx.stream),
                                       "cudaMemcpyAsync");
                          }).median_s);
      record("d2h", b, b, time_launches(ctx.stream, ctx.plan, [&](int i) {
                            check_cuda(cudaMemcpyAsync(host.get(), buffers.x(i), buffers.bytes,
                                                       cudaMemcpyDeviceToHost, ctx.stream),
                                       "cudaMemcpyAsync");
                          }).median_s);
    } catch (const Unsupported& skip) {
      ctx.progress.warn("memory " + std::to_string(static_cast<long long>(size)) + " bytes: skipped (" +
                        skip.message() + ")");
    }
  }
  // PCIe (or C2C) rate per direction: the best host copy.
  for (const MemoryBandwidthMeasurement& m : profile.memory)
    if (m.op == "h2d" || m.op == "d2h")
      profile.device.pcie_bandwidth_Bps = std::max(profile.device.pcie_bandwidth_Bps, m.bandwidth_Bps);
}

double measure_copy_bandwidth(const BenchContext& ctx) {
  const BufferPairs buffers(ctx, 1024.0 * (1 << 20));
  const double b = static_cast<double>(buffers.bytes);
  const double time_s = time_launches(ctx.stream, ctx.plan, [&](int i) {
                          check_cuda(cudaMemcpyAsync(buffers.y(i), buffers.x(i), buffers.bytes,
                                                     cudaMemcpyDeviceToDevice, ctx.stream),
                                     "cudaMemcpyAsync");
                        }).median_s;
  return 2 * b / time_s;
}

}  // namespace simtrain::calibration::tool
