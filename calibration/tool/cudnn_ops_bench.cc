// Memory-bound cuDNN kernels of training, forward and backward, keyed as the simulator keys them: batch norm
// (training mode, per-channel statistics) and max pooling by input elements, ReLU by elements, log-softmax
// (the loss) by {rows, cols}. Layer norm has no legacy-API kernel and is left to the roofline.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/cudnn_handles.h"
#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"

namespace simtrain::calibration::tool {
namespace {

// Rotating sets of `tensors` equal tensors of `tensor_bytes`, filled with random values.
struct Operands {
  std::size_t tensor_bytes;
  int tensors;
  int sets;
  DeviceBuffer memory;

  Operands(const BenchContext& ctx, double elements, DType dtype, int count)
      : tensor_bytes(aligned(static_cast<std::size_t>(elements) * bytes_per_element(dtype))), tensors(count) {
    const double set_bytes = static_cast<double>(tensor_bytes) * tensors;
    if (set_bytes > ctx.budget_bytes) throw Unsupported("operands exceed the memory budget");
    sets = rotation_sets(set_bytes, ctx.device.l2_bytes, ctx.budget_bytes);
    memory = DeviceBuffer(tensor_bytes * tensors * sets);
    ctx.random.fill(memory, dtype);
  }
  void* tensor(int launch, int which) const {
    return memory.at((static_cast<std::size_t>(launch % sets) * tensors + which) * tensor_bytes);
  }
};

using Timed = std::pair<double, double>;  // forward, backward seconds

// Through the *Ex entry points with their workspace and reserve space, as PyTorch's cudnn_batch_norm calls
// them: without a workspace cuDNN has no fast NHWC kernel and runs an order of magnitude slower.
Timed batch_norm(const BenchContext& ctx, cudnnHandle_t h, const TensorShape& s, DType dtype) {
  const TensorDescriptor x = tensor_descriptor(dtype, s.n, s.c, s.h, s.w);
  // PyTorch's choice of mode: persistent for channels-last (NHWC) training, plain spatial otherwise.
  const cudnnBatchNormMode_t mode =
      cudnn_layout(dtype) == CUDNN_TENSOR_NHWC ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
  const cudnnBatchNormOps_t ops = CUDNN_BATCHNORM_OPS_BN;
  TensorDescriptor stats;
  check_cudnn(cudnnCreateTensorDescriptor(stats.out()), "cudnnCreateTensorDescriptor");
  check_cudnn(cudnnDeriveBNTensorDescriptor(stats.get(), x.get(), mode), "cudnnDeriveBNTensorDescriptor");
  std::size_t forward_workspace = 0, backward_workspace = 0, reserve = 0;
  check_cudnn(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
                  h, mode, ops, x.get(), nullptr, x.get(), stats.get(), nullptr, &forward_workspace),
              "cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize");
  check_cudnn(
      cudnnGetBatchNormalizationBackwardExWorkspaceSize(h, mode, ops, x.get(), x.get(), x.get(), nullptr,
                                                        x.get(), stats.get(), nullptr, &backward_workspace),
      "cudnnGetBatchNormalizationBackwardExWorkspaceSize");
  check_cudnn(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(h, mode, ops, nullptr, x.get(), &reserve),
              "cudnnGetBatchNormalizationTrainingExReserveSpaceSize");
  const DeviceBuffer workspace(aligned(std::max<std::size_t>({forward_workspace, backward_workspace, 1})));
  const DeviceBuffer reserve_space(aligned(std::max<std::size_t>(reserve, 1)));
  const Operands data(ctx, static_cast<double>(s.elements()), dtype, 3);  // x, y (= dy), dx
  // scale, bias, running mean and variance, saved mean and inverse variance, dscale, dbias: fp32 per channel.
  const DeviceBuffer params(aligned(s.c * 4) * 8);
  ctx.random.fill(params, DType::FP32);
  auto param = [&](int i) { return params.at(aligned(s.c * 4) * i); };
  const float one = 1, zero = 0;
  const double eps = 1e-5;
  const double forward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(
            cudnnBatchNormalizationForwardTrainingEx(
                h, mode, ops, &one, &zero, x.get(), data.tensor(i, 0), nullptr, nullptr, x.get(),
                data.tensor(i, 1), stats.get(), param(0), param(1), 0.1, param(2), param(3), eps, param(4),
                param(5), nullptr, workspace.get(), forward_workspace, reserve_space.get(), reserve),
            "cudnnBatchNormalizationForwardTrainingEx");
      }).median_s;
  const double backward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(cudnnBatchNormalizationBackwardEx(
                        h, mode, ops, &one, &zero, &one, &zero, x.get(), data.tensor(i, 0), x.get(),
                        data.tensor(i, 1), x.get(), data.tensor(i, 1), nullptr, nullptr, x.get(),
                        data.tensor(i, 2), stats.get(), param(0), param(1), param(6), param(7), eps, param(4),
                        param(5), nullptr, workspace.get(), backward_workspace, reserve_space.get(), reserve),
                    "cudnnBatchNormalizationBackwardEx");
      }).median_s;
  return {forward, backward};
}

Timed max_pool(const BenchContext& ctx, cudnnHandle_t h, const PoolShape& p, DType dtype) {
  const TensorDescriptor x = tensor_descriptor(dtype, p.input.n, p.input.c, p.input.h, p.input.w);
  const TensorDescriptor y = tensor_descriptor(dtype, p.input.n, p.input.c, p.out_h(), p.out_w());
  PoolingDescriptor pool;
  check_cudnn(cudnnCreatePoolingDescriptor(pool.out()), "cudnnCreatePoolingDescriptor");
  const int window = static_cast<int>(p.window), pad = static_cast<int>(p.pad),
            stride = static_cast<int>(p.stride);
  check_cudnn(cudnnSetPooling2dDescriptor(pool.get(), CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, window,
                                          window, pad, pad, stride, stride),
              "cudnnSetPooling2dDescriptor");
  // x and dx at the input's size; y and dy fit in the same slots.
  const Operands data(ctx, static_cast<double>(p.input.elements()), dtype, 4);
  const float one = 1, zero = 0;
  const double forward = time_launches(ctx.stream, ctx.plan, [&](int i) {
                           check_cudnn(cudnnPoolingForward(h, pool.get(), &one, x.get(), data.tensor(i, 0),
                                                           &zero, y.get(), data.tensor(i, 1)),
                                       "cudnnPoolingForward");
                         }).median_s;
  const double backward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(
            cudnnPoolingBackward(h, pool.get(), &one, y.get(), data.tensor(i, 1), y.get(), data.tensor(i, 2),
                                 x.get(), data.tensor(i, 0), &zero, x.get(), data.tensor(i, 3)),
            "cudnnPoolingBackward");
      }).median_s;
  return {forward, backward};
}

Timed relu(const BenchContext& ctx, cudnnHandle_t h, std::int64_t elements, DType dtype) {
  const TensorDescriptor x = tensor_descriptor(dtype, 1, 1, 1, elements);
  ActivationDescriptor act;
  check_cudnn(cudnnCreateActivationDescriptor(act.out()), "cudnnCreateActivationDescriptor");
  check_cudnn(cudnnSetActivationDescriptor(act.get(), CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0),
              "cudnnSetActivationDescriptor");
  const Operands data(ctx, static_cast<double>(elements), dtype, 3);  // x (= y), dy, dx
  const float one = 1, zero = 0;
  const double forward = time_launches(ctx.stream, ctx.plan, [&](int i) {
                           check_cudnn(cudnnActivationForward(h, act.get(), &one, x.get(), data.tensor(i, 0),
                                                              &zero, x.get(), data.tensor(i, 2)),
                                       "cudnnActivationForward");
                         }).median_s;
  const double backward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(cudnnActivationBackward(h, act.get(), &one, x.get(), data.tensor(i, 0), x.get(),
                                            data.tensor(i, 1), x.get(), data.tensor(i, 0), &zero, x.get(),
                                            data.tensor(i, 2)),
                    "cudnnActivationBackward");
      }).median_s;
  return {forward, backward};
}

Timed log_softmax(const BenchContext& ctx, cudnnHandle_t h, const SoftmaxShape& s, DType dtype) {
  // Rows as N, classes as C: CUDNN_SOFTMAX_MODE_INSTANCE normalises over C x H x W of each row.
  TensorDescriptor x;
  check_cudnn(cudnnCreateTensorDescriptor(x.out()), "cudnnCreateTensorDescriptor");
  if (s.rows * s.cols > std::numeric_limits<int>::max()) throw Unsupported("beyond cuDNN's 32-bit sizes");
  check_cudnn(cudnnSetTensor4dDescriptor(x.get(), CUDNN_TENSOR_NCHW, cudnn_data_type(dtype),
                                         static_cast<int>(s.rows), static_cast<int>(s.cols), 1, 1),
              "cudnnSetTensor4dDescriptor");
  const Operands data(ctx, static_cast<double>(s.rows * s.cols), dtype, 3);  // x (= y), dy, dx
  const float one = 1, zero = 0;
  const double forward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, &one, x.get(),
                                        data.tensor(i, 0), &zero, x.get(), data.tensor(i, 2)),
                    "cudnnSoftmaxForward");
      }).median_s;
  const double backward =
      time_launches(ctx.stream, ctx.plan, [&](int i) {
        check_cudnn(cudnnSoftmaxBackward(h, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, &one, x.get(),
                                         data.tensor(i, 0), x.get(), data.tensor(i, 1), &zero, x.get(),
                                         data.tensor(i, 2)),
                    "cudnnSoftmaxBackward");
      }).median_s;
  return {forward, backward};
}

}  // namespace

void measure_cudnn_ops(const BenchContext& ctx, const ShapeSet& shapes, CalibrationProfile& profile) {
  const CudnnHandle handle = make_cudnn_handle(ctx.stream);
  const std::vector<DType> dtypes = activation_dtypes(ctx.dtypes);
  const std::size_t per_dtype =
      shapes.batch_norms.size() + shapes.pools.size() + shapes.activations.size() + shapes.softmaxes.size();
  ctx.progress.begin("cudnn", static_cast<int>(per_dtype * dtypes.size()));
  int skipped = 0;
  // Runs one measurement and records its forward and backward rows.
  auto record = [&](const std::string& kind, const std::vector<std::int64_t>& key, DType dtype,
                    auto&& measure) {
    std::string what = std::string(to_string(dtype)) + " " + kind;
    for (std::int64_t dim : key) what += " " + std::to_string(dim);
    try {
      const auto [forward_s, backward_s] = measure();
      profile.kernels.push_back({kind + "_forward", key, dtype, forward_s});
      profile.kernels.push_back({kind + "_backward_data", key, dtype, backward_s});
      char times[64];
      std::snprintf(times, sizeof times, ": %.4g / %.4g ms", forward_s * 1e3, backward_s * 1e3);
      ctx.progress.step(what + times);
    } catch (const Unsupported& skip) {
      ++skipped;
      ctx.progress.step(what + ": skipped (" + skip.message() + ")");
    }
  };
  for (DType dtype : dtypes) {
    const cudnnHandle_t h = handle.get();
    for (const TensorShape& s : shapes.batch_norms)
      record("batch_norm", {s.elements()}, dtype, [&] { return batch_norm(ctx, h, s, dtype); });
    for (const PoolShape& p : shapes.pools)
      record("pool", {p.input.elements()}, dtype, [&] { return max_pool(ctx, h, p, dtype); });
    for (std::int64_t elements : shapes.activations)
      record("activation", {elements}, dtype, [&] { return relu(ctx, h, elements, dtype); });
    for (const SoftmaxShape& s : shapes.softmaxes)
      record("softmax", {s.rows, s.cols}, dtype, [&] { return log_softmax(ctx, h, s, dtype); });
  }
  if (skipped > 0) ctx.progress.warn("cudnn: " + std::to_string(skipped) + " measurement(s) skipped");
}

std::vector<DType> activation_dtypes(const std::vector<DType>& matmul) {
  std::vector<DType> dtypes;
  for (DType dtype : matmul) {
    if (dtype == DType::FP8) continue;
    const DType activation = dtype == DType::TF32 ? DType::FP32 : dtype;
    if (std::find(dtypes.begin(), dtypes.end(), activation) == dtypes.end()) dtypes.push_back(activation);
  }
  return dtypes;
}

}  // namespace simtrain::calibration::tool
