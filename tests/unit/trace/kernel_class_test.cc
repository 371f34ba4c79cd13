// Specification of kernel classification: what the launching operator's name and shapes say a kernel is.
#include <doctest/doctest.h>

#include "simulator/trace/kernel_class.h"

namespace simtrain::trace {
namespace {

KinetoCpuOp op(std::string name, std::vector<std::vector<std::int64_t>> dims, std::vector<std::string> types,
               std::vector<std::string> concrete = {}) {
  KinetoCpuOp o;
  o.name = std::move(name);
  o.input_dims = std::move(dims);
  o.input_types = std::move(types);
  o.concrete_inputs = std::move(concrete);
  return o;
}

KinetoGpuActivity kernel() {
  KinetoGpuActivity a;
  a.name = "sm90_xmma_gemm";
  return a;
}

}  // namespace

TEST_CASE("addmm(bias, a, b) is an m x n x k GEMM in the inputs' dtype") {
  const KinetoCpuOp linear = op("aten::linear", {{32, 2048}}, {"c10::Half"});
  const KinetoCpuOp addmm = op("aten::addmm", {{1000}, {32, 2048}, {2048, 1000}}, {"c10::Half", "c10::Half", "c10::Half"});
  const ComputeSpec spec = classify_activity(kernel(), {&linear, &addmm});
  CHECK(spec.kind == ComputeKind::Gemm);
  CHECK(spec.dtype == DType::FP16);
  CHECK(spec.shape == std::vector<std::int64_t>{32, 1000, 2048});
  CHECK(spec.flops == 2.0 * 32 * 1000 * 2048);
  CHECK(spec.bytes == 2.0 * (32 * 2048 + 2048 * 1000 + 32 * 1000));
}

TEST_CASE("bmm folds its batch into m, keeping the FLOPs") {
  const KinetoCpuOp bmm = op("aten::bmm", {{8, 64, 32}, {8, 32, 16}}, {"c10::BFloat16", "c10::BFloat16"});
  const ComputeSpec spec = classify_activity(kernel(), {&bmm});
  CHECK(spec.shape == std::vector<std::int64_t>{8 * 64, 16, 32});
  CHECK(spec.flops == 2.0 * 8 * 64 * 16 * 32);
  CHECK(spec.dtype == DType::BF16);
}

TEST_CASE("a convolution's shape comes from its input, weight, stride and padding; fp32 runs as TF32") {
  const KinetoCpuOp conv = op("aten::convolution", {{32, 3, 224, 224}, {64, 3, 7, 7}, {}, {}, {}},
                              {"float", "float", "", "ScalarList", "ScalarList"}, {"", "", "", "[2, 2]", "[3, 3]"});
  const ComputeSpec spec = classify_activity(kernel(), {&conv});
  CHECK(spec.kind == ComputeKind::Conv);
  CHECK(spec.dtype == DType::TF32);
  CHECK(spec.shape == std::vector<std::int64_t>{32, 3, 224, 224, 64, 7, 7, 2, 3});
  CHECK(spec.flops == 2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7);
}

TEST_CASE("convolution_backward computes both gradients unless its output mask says otherwise") {
  std::vector<std::string> concrete(11, "");
  concrete[4] = "[1, 1]";
  concrete[5] = "[0, 0]";
  concrete[10] = "[True, True, False]";
  const KinetoCpuOp both = op("aten::convolution_backward", {{32, 2048, 7, 7}, {32, 512, 7, 7}, {2048, 512, 1, 1}},
                              {"c10::Half", "c10::Half", "c10::Half"}, concrete);
  concrete[10] = "[False, True, False]";
  const KinetoCpuOp weight_only = op("aten::convolution_backward", both.input_dims, both.input_types, concrete);
  const double one_pass = 2.0 * 32 * 2048 * 7 * 7 * 512;
  CHECK(classify_activity(kernel(), {&both}).flops == 2 * one_pass);
  CHECK(classify_activity(kernel(), {&weight_only}).flops == one_pass);
}

TEST_CASE("fused attention is {batch, heads, seq, head_dim}; its backward does twice the forward's FLOPs") {
  const KinetoCpuOp fwd = op("aten::_scaled_dot_product_cudnn_attention", {{64, 12, 197, 64}}, {"c10::Half"});
  const KinetoCpuOp bwd = op("aten::_scaled_dot_product_cudnn_attention_backward", {{64, 12, 197, 64}}, {"c10::Half"});
  const ComputeSpec f = classify_activity(kernel(), {&fwd});
  CHECK(f.kind == ComputeKind::Attention);
  CHECK(f.shape == std::vector<std::int64_t>{64, 12, 197, 64});
  CHECK(f.flops == 4.0 * 64 * 12 * 197 * 197 * 64);
  CHECK(classify_activity(kernel(), {&bwd}).flops == 2 * f.flops);
  CHECK(classify_activity(kernel(), {&bwd}).pass == Pass::BackwardData);
}

TEST_CASE("memory-bound operators are sized by their inputs and an output like the largest") {
  const KinetoCpuOp add = op("aten::add", {{1024, 1024}, {1024, 1024}}, {"float", "float"});
  const ComputeSpec spec = classify_activity(kernel(), {&add});
  CHECK(spec.kind == ComputeKind::Elementwise);
  CHECK(spec.bytes == 3.0 * 1024 * 1024 * 4);
  const KinetoCpuOp norm = op("aten::native_layer_norm", {{8, 1024}}, {"c10::BFloat16"});
  CHECK(classify_activity(kernel(), {&norm}).kind == ComputeKind::LayerNorm);
  const KinetoCpuOp adam = op("aten::_fused_adamw_", {{}}, {"TensorList"});
  CHECK(classify_activity(kernel(), {&adam}).kind == ComputeKind::Optimizer);
}

TEST_CASE("copies move their bytes twice, memsets once; an unknown launcher leaves kind other") {
  KinetoGpuActivity copy;
  copy.kind = GpuActivityKind::Memcpy;
  copy.bytes = 100;
  CHECK(classify_activity(copy, {}).bytes == 200);
  KinetoGpuActivity memset = copy;
  memset.kind = GpuActivityKind::Memset;
  CHECK(classify_activity(memset, {}).bytes == 100);
  const KinetoCpuOp annotation = op("my_module.forward", {}, {});
  CHECK(classify_activity(kernel(), {&annotation}).kind == ComputeKind::Other);
}

TEST_CASE("profiler type names map to dtypes and element sizes") {
  DType d = DType::FP32;
  CHECK(dtype_of_profiler_type("c10::BFloat16", d));
  CHECK(d == DType::BF16);
  CHECK(dtype_of_profiler_type("c10::Float8_e4m3fn", d));
  CHECK(d == DType::FP8);
  CHECK_FALSE(dtype_of_profiler_type("long int", d));
  CHECK(element_bytes("long int") == 8);
  CHECK(element_bytes("c10::Half") == 2);
  CHECK(element_bytes("Scalar") == 0);
}

}  // namespace simtrain::trace
