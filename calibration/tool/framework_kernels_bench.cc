// The memory-bound kernels of framework_kernels.h timed over buffers well past the L2 cache: the rates at
// which PyTorch's vectorized, unvectorized (mixed-dtype, strided) and multi-tensor optimizer kernels move
// their bytes on this GPU. Rows go to the profile's memory table; efficiency_fit.cc takes the fractions of
// the memory bandwidth from them. "bytes" is the size of the output buffer (the fp32 parameters for the
// optimizer); bandwidth counts every byte read and written.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "calibration/tool/benches.h"
#include "calibration/tool/framework_kernels.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"

namespace simtrain::calibration::tool {
namespace {

// Each operand several times the L2 cache of any GPU the tool knows, so that rates are the HBM's.
constexpr double kSizesBytes[] = {256.0 * (1 << 20), 1024.0 * (1 << 20)};
// The optimizer's tensors: 4 Mi fp32 elements each (a 2,048 x 2,048 weight), many chunks per tensor.
constexpr std::int64_t kParameterTensorElements = 4 << 20;
constexpr std::int64_t kTransposeRows = 8192;

void require_budget(const BenchContext& ctx, double bytes) {
  if (bytes > ctx.budget_bytes) throw Unsupported("buffers exceed the memory budget");
}

}  // namespace

void measure_framework_kernels(const BenchContext& ctx, CalibrationProfile& profile) {
  ctx.progress.begin("framework kernels", 4 * static_cast<int>(std::size(kSizesBytes)));
  auto record = [&](const std::string& op, double bytes, double moved, double time_s) {
    profile.memory.push_back({op, bytes, moved / time_s});
    char text[112];
    std::snprintf(text, sizeof text, "%s %.0f bytes: %.4g GB/s", op.c_str(), bytes, moved / time_s / 1e9);
    ctx.progress.step(text);
  };
  for (const double size : kSizesBytes) {
    try {
      // fp16 c = a + b, vectorized; then fp32 out = fp16 a + fp32 b, unrolled (out is `size` bytes).
      const auto halves = static_cast<std::int64_t>(size / 2) / 8 * 8;
      require_budget(ctx, 3.0 * size);
      {
        const DeviceBuffer a(halves * 2), b(halves * 2), c(halves * 2);
        ctx.random.fill(a, DType::FP16);
        ctx.random.fill(b, DType::FP16);
        record("elementwise_vectorized", 2.0 * halves, 6.0 * halves,
               time_launches(ctx.stream, ctx.plan, [&](int) {
                 check_cuda(launch_vectorized_add(a.get(), b.get(), c.get(), halves, ctx.stream),
                            "vectorized_add_kernel");
               }).median_s);
      }
      const auto floats = static_cast<std::int64_t>(size / 4);
      {
        const DeviceBuffer a(floats * 2), b(floats * 4), out(floats * 4);
        ctx.random.fill(a, DType::FP16);
        ctx.random.fill(b, DType::FP32);
        record("elementwise_unrolled", 4.0 * floats, 10.0 * floats,
               time_launches(ctx.stream, ctx.plan, [&](int) {
                 check_cuda(launch_unrolled_mixed_add(a.get(), static_cast<const float*>(b.get()),
                                                      static_cast<float*>(out.get()), floats, ctx.stream),
                            "unrolled_mixed_add_kernel");
               }).median_s);
      }
      {
        const std::int64_t cols = halves / kTransposeRows, elements = kTransposeRows * cols;
        const DeviceBuffer in(elements * 2), out(elements * 2);
        ctx.random.fill(in, DType::FP16);
        record("elementwise_strided", 2.0 * elements, 4.0 * elements,
               time_launches(ctx.stream, ctx.plan, [&](int) {
                 check_cuda(launch_strided_copy(in.get(), out.get(), kTransposeRows, cols, ctx.stream),
                            "strided_copy_kernel");
               }).median_s);
      }
      {
        // Parameters, gradients and both moments: four buffers of `size`.
        require_budget(ctx, 4.0 * size);
        const std::int64_t tensors = std::max<std::int64_t>(1, floats / kParameterTensorElements);
        const std::int64_t elements = tensors * kParameterTensorElements;
        const DeviceBuffer state(4 * elements * 4);
        ctx.random.fill(state, DType::FP32);
        std::vector<AdamTensor> list;
        for (std::int64_t t = 0; t < tensors; ++t) {
          auto* base = static_cast<float*>(state.get());
          const std::int64_t offset = t * kParameterTensorElements;
          list.push_back({base + offset, base + elements + offset, base + 2 * elements + offset,
                          base + 3 * elements + offset, kParameterTensorElements});
        }
        // Random moments may be negative and the update NaN: the traffic, which is what is timed, is the
        // same.
        record("multi_tensor", 4.0 * elements, 28.0 * elements,
               time_launches(ctx.stream, ctx.plan, [&](int) {
                 check_cuda(launch_multi_tensor_adamw(list, ctx.stream), "multi_tensor_adamw_kernel");
               }).median_s);
      }
    } catch (const Unsupported& skip) {
      ctx.progress.warn("framework kernels " + std::to_string(static_cast<long long>(size)) +
                        " bytes: skipped (" + skip.message() + ")");
    }
  }
}

}  // namespace simtrain::calibration::tool
