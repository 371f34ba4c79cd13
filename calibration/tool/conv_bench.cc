// Convolution times with cuDNN's legacy API. The algorithm is the fastest that cudnnFind*AlgorithmEx reports
// on the real buffers, with up to 1 GiB of workspace, as PyTorch chooses under cudnn.benchmark = True; the
// time recorded is our own median of that algorithm, not Find's single run.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "calibration/tool/benches.h"
#include "calibration/tool/cudnn_handles.h"
#include "calibration/tool/element_encoding.h"
#include "calibration/tool/gpu_status.h"
#include "calibration/tool/gpu_timer.h"

namespace simtrain::calibration::tool {
namespace {

constexpr int kMaxAlgorithms = 16;

// fp32 on the CUDA cores only, tf32 where cuDNN may use TF32 tensor cores, 16-bit on tensor cores.
cudnnMathType_t math_type(DType dtype) {
  switch (dtype) {
    case DType::FP32:
      return CUDNN_FMA_MATH;
    case DType::TF32:
      return CUDNN_DEFAULT_MATH;
    default:
      return CUDNN_TENSOR_OP_MATH;
  }
}

// Descriptors and operand sets of one convolution, rotated so that consecutive launches miss L2.
struct Convolution {
  ConvShape shape;
  DType dtype;
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  std::size_t x_bytes = 0, y_bytes = 0, w_bytes = 0;
  int sets = 1;
  DeviceBuffer inputs;  // per set: x, w, y (each is an input of one pass and the output of another)

  Convolution(const BenchContext& ctx, const ConvShape& s, DType d)
      : shape(s),
        dtype(d),
        x(tensor_descriptor(d, s.n, s.c, s.h, s.w)),
        y(tensor_descriptor(d, s.n, s.k, s.out_h(), s.out_w())) {
    check_cudnn(cudnnCreateFilterDescriptor(w.out()), "cudnnCreateFilterDescriptor");
    check_cudnn(
        cudnnSetFilter4dDescriptor(w.get(), cudnn_data_type(d), cudnn_layout(d), static_cast<int>(s.k),
                                   static_cast<int>(s.c), static_cast<int>(s.r), static_cast<int>(s.s)),
        "cudnnSetFilter4dDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(conv.out()), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnSetConvolution2dDescriptor(conv.get(), static_cast<int>(s.pad), static_cast<int>(s.pad),
                                                static_cast<int>(s.stride), static_cast<int>(s.stride), 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionMathType(conv.get(), math_type(d)), "cudnnSetConvolutionMathType");
    const std::size_t e = static_cast<std::size_t>(bytes_per_element(d));
    x_bytes = aligned(s.n * s.c * s.h * s.w * e);
    y_bytes = aligned(s.n * s.k * s.out_h() * s.out_w() * e);
    w_bytes = aligned(s.k * s.c * s.r * s.s * e);
    const double set_bytes = static_cast<double>(x_bytes + y_bytes + w_bytes);
    if (set_bytes > ctx.budget_bytes) throw Unsupported("operands exceed the memory budget");
    sets = rotation_sets(set_bytes, ctx.device.l2_bytes, ctx.budget_bytes);
    inputs = DeviceBuffer((x_bytes + w_bytes + y_bytes) * sets);
    ctx.random.fill(inputs, d == DType::TF32 ? DType::FP32 : d);
  }
  void* x_of(int i) const { return inputs.at(set(i)); }
  void* w_of(int i) const { return inputs.at(set(i) + x_bytes); }
  void* y_of(int i) const { return inputs.at(set(i) + x_bytes + w_bytes); }

 private:
  std::size_t set(int i) const { return static_cast<std::size_t>(i % sets) * (x_bytes + w_bytes + y_bytes); }
};

// The first successful result of a Find call, which lists algorithms fastest first.
template <typename Perf>
auto best_algorithm(const Perf* results, int count) {
  for (int i = 0; i < count; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS) return results[i].algo;
  throw Unsupported("cuDNN found no algorithm");
}

double time_pass(const BenchContext& ctx, cudnnHandle_t handle, const Convolution& c, const std::string& pass,
                 const DeviceBuffer& workspace) {
  const float alpha = 1, beta = 0;
  void* ws = workspace.get();
  const std::size_t ws_bytes = workspace.bytes();
  int found = 0;
  if (pass == "forward") {
    cudnnConvolutionFwdAlgoPerf_t results[kMaxAlgorithms];
    check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(handle, c.x.get(), c.x_of(0), c.w.get(), c.w_of(0),
                                                       c.conv.get(), c.y.get(), c.y_of(0), kMaxAlgorithms,
                                                       &found, results, ws, ws_bytes),
                "cudnnFindConvolutionForwardAlgorithmEx");
    const auto algo = best_algorithm(results, found);
    return time_launches(ctx.stream, ctx.plan,
                         [&](int i) {
                           check_cudnn(cudnnConvolutionForward(handle, &alpha, c.x.get(), c.x_of(i),
                                                               c.w.get(), c.w_of(i), c.conv.get(), algo, ws,
                                                               ws_bytes, &beta, c.y.get(), c.y_of(i)),
                                       "cudnnConvolutionForward");
                         })
        .median_s;
  }
  if (pass == "backward_data") {
    cudnnConvolutionBwdDataAlgoPerf_t results[kMaxAlgorithms];
    check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(handle, c.w.get(), c.w_of(0), c.y.get(),
                                                            c.y_of(0), c.conv.get(), c.x.get(), c.x_of(0),
                                                            kMaxAlgorithms, &found, results, ws, ws_bytes),
                "cudnnFindConvolutionBackwardDataAlgorithmEx");
    const auto algo = best_algorithm(results, found);
    return time_launches(ctx.stream, ctx.plan,
                         [&](int i) {
                           check_cudnn(cudnnConvolutionBackwardData(
                                           handle, &alpha, c.w.get(), c.w_of(i), c.y.get(), c.y_of(i),
                                           c.conv.get(), algo, ws, ws_bytes, &beta, c.x.get(), c.x_of(i)),
                                       "cudnnConvolutionBackwardData");
                         })
        .median_s;
  }
  cudnnConvolutionBwdFilterAlgoPerf_t results[kMaxAlgorithms];
  check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(handle, c.x.get(), c.x_of(0), c.y.get(),
                                                            c.y_of(0), c.conv.get(), c.w.get(), c.w_of(0),
                                                            kMaxAlgorithms, &found, results, ws, ws_bytes),
              "cudnnFindConvolutionBackwardFilterAlgorithmEx");
  const auto algo = best_algorithm(results, found);
  return time_launches(ctx.stream, ctx.plan,
                       [&](int i) {
                         check_cudnn(cudnnConvolutionBackwardFilter(
                                         handle, &alpha, c.x.get(), c.x_of(i), c.y.get(), c.y_of(i),
                                         c.conv.get(), algo, ws, ws_bytes, &beta, c.w.get(), c.w_of(i)),
                                     "cudnnConvolutionBackwardFilter");
                       })
      .median_s;
}

std::string describe(const ConvShape& s, DType dtype, const std::string& pass) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %s n%lld c%lld %lldx%lld k%lld %lldx%lld/%lld p%lld",
                std::string(to_string(dtype)).c_str(), pass.c_str(), static_cast<long long>(s.n),
                static_cast<long long>(s.c), static_cast<long long>(s.h), static_cast<long long>(s.w),
                static_cast<long long>(s.k), static_cast<long long>(s.r), static_cast<long long>(s.s),
                static_cast<long long>(s.stride), static_cast<long long>(s.pad));
  return text;
}

}  // namespace

void measure_conv(const BenchContext& ctx, const std::vector<ConvShape>& shapes,
                  CalibrationProfile& profile) {
  const CudnnHandle handle = make_cudnn_handle(ctx.stream);
  const DeviceBuffer workspace(
      static_cast<std::size_t>(std::min(1024.0 * (1 << 20), 0.25 * ctx.budget_bytes)));
  const char* passes[] = {"forward", "backward_data", "backward_weight"};
  std::vector<DType> dtypes;
  for (DType dtype : ctx.dtypes)
    if (dtype != DType::FP8) dtypes.push_back(dtype);  // no fp8 convolutions in cuDNN's legacy API
  ctx.progress.begin("conv", static_cast<int>(shapes.size() * dtypes.size() * 3));
  int skipped = 0;
  for (DType dtype : dtypes) {
    for (const ConvShape& shape : shapes) {
      std::unique_ptr<Convolution> conv;
      for (const char* pass : passes) {
        const std::string what = describe(shape, dtype, pass);
        try {
          if (!conv) conv = std::make_unique<Convolution>(ctx, shape, dtype);
          const double time_s = time_pass(ctx, handle.get(), *conv, pass, workspace);
          profile.kernels.push_back({std::string("conv_") + pass, shape.key(), dtype, time_s});
          char rate[64];
          std::snprintf(rate, sizeof rate, ": %.4g ms", time_s * 1e3);
          ctx.progress.step(what + rate);
        } catch (const Unsupported& skip) {
          ++skipped;
          ctx.progress.step(what + ": skipped (" + skip.message() + ")");
        }
      }
    }
  }
  if (skipped > 0) ctx.progress.warn("conv: " + std::to_string(skipped) + " measurement(s) skipped");
}

}  // namespace simtrain::calibration::tool
