// Specification of aten_kernels.h: which operators are kernels, and the shape, FLOPs and bytes of each kind.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "simulator/trace/aten_kernels.h"

namespace simtrain::trace {
namespace {

AtenValue tensor_value(std::vector<std::int64_t> shape, DType dtype, std::string name = "") {
  AtenTensor t;
  t.id = static_cast<std::int64_t>(shape.size() * 100 + shape[0]);
  t.storage = t.id;
  t.shape = std::move(shape);
  t.element_bytes = bytes_per_element(dtype);
  t.dtype = dtype;
  t.on_gpu = true;
  AtenValue v;
  v.name = std::move(name);
  v.tensors.push_back(t);
  return v;
}

AtenValue ints_value(std::string name, std::vector<std::int64_t> ints) {
  AtenValue v;
  v.name = std::move(name);
  v.ints = std::move(ints);
  return v;
}

TEST_CASE("operators are views, kernels or composites by name") {
  CHECK(aten_role("aten::view") == AtenRole::View);
  CHECK(aten_role("aten::to") == AtenRole::View);
  CHECK(aten_role("aten::linear") == AtenRole::View);
  CHECK(aten_role("aten::mm") == AtenRole::Kernel);
  CHECK(aten_role("aten::_fused_adamw_") == AtenRole::Kernel);
  CHECK(aten_role("aten::copy_") == AtenRole::Composite);
}

TEST_CASE("a batched GEMM stacks its batches along m") {
  AtenOperator op{.name = "aten::bmm",
                  .inputs = {tensor_value({8, 64, 32}, DType::FP16), tensor_value({8, 32, 16}, DType::FP16)},
                  .outputs = {tensor_value({8, 64, 16}, DType::FP16)}};
  const auto kernels = aten_kernels(op, Pass::Forward);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].shape == std::vector<std::int64_t>{8 * 64, 16, 32});
  CHECK(kernels[0].flops == 2.0 * 8 * 64 * 16 * 32);
  CHECK(kernels[0].dtype == DType::FP16);
}

TEST_CASE("fused attention: shape {batch, heads, seq, head_dim}, causal tiles, backward 2.5x") {
  AtenOperator op{
      .name = "aten::_scaled_dot_product_cudnn_attention",
      .inputs = {tensor_value({1, 32, 4096, 128}, DType::BF16, "query"),
                 tensor_value({1, 32, 4096, 128}, DType::BF16, "key"),
                 tensor_value({1, 32, 4096, 128}, DType::BF16, "value"), ints_value("is_causal", {1})},
      .outputs = {}};
  const auto forward = aten_kernels(op, Pass::Forward);
  REQUIRE(forward.size() == 1);
  CHECK(forward[0].kind == ComputeKind::Attention);
  CHECK(forward[0].shape == std::vector<std::int64_t>{1, 32, 4096, 128});
  CHECK(forward[0].flops == simtrain::testing::Approx(4.0 * 32 * 4096 * 4096 * 128 * (33.0 / 64)));
}

TEST_CASE("CPU-only operators and views launch nothing; unknown GPU operators are elementwise") {
  AtenOperator cpu{.name = "aten::add", .inputs = {tensor_value({4}, DType::FP32)}, .outputs = {}};
  cpu.inputs[0].tensors[0].on_gpu = false;
  CHECK(aten_kernels(cpu, Pass::Forward).empty());
  AtenOperator view{.name = "aten::view", .inputs = {tensor_value({4}, DType::FP32)}, .outputs = {}};
  CHECK(aten_kernels(view, Pass::Forward).empty());
  AtenOperator add{.name = "aten::add",
                   .inputs = {tensor_value({4, 4}, DType::FP32)},
                   .outputs = {tensor_value({4, 4}, DType::FP32)}};
  const auto kernels = aten_kernels(add, Pass::Forward);
  REQUIRE(kernels.size() == 1);
  CHECK(kernels[0].kind == ComputeKind::Elementwise);
  CHECK(kernels[0].shape == std::vector<std::int64_t>{16});
  CHECK(kernels[0].bytes == 16 * 4 * 2);
}

TEST_CASE("schema argument names come from the operator's schema text") {
  CHECK(schema_argument_names("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor") ==
        std::vector<std::string>{"self", "other", "alpha"});
  CHECK(schema_argument_names("aten::x(Tensor(a!) self, int[2] k=[1, 1], bool? c=None) -> Tensor(a!)") ==
        std::vector<std::string>{"self", "k", "c"});
  CHECK(schema_argument_names("").empty());
}

}  // namespace
}  // namespace simtrain::trace
