// Specification of optimizer_kernels.h: the multi-tensor launches of PyTorch's foreach and fused optimizers,
// checked against the launches the H200 Kineto traces of traces/pytorch/ recorded.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/workload/optimizer_kernels.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

int launches(const std::vector<trace::ComputeSpec>& kernels) { return static_cast<int>(kernels.size()); }

trace::ComputeSpec update(double bytes) {
  trace::ComputeSpec spec;
  spec.kind = trace::ComputeKind::Optimizer;
  spec.pass = trace::Pass::Update;
  spec.bytes = bytes;
  return spec;
}

}  // namespace

TEST_CASE("parameter tensors: weights and biases of each module, a tied head adding none of its own") {
  const std::vector<double> gpt2 = parameter_tensors(build_model("gpt2-xl"));
  CHECK(gpt2.size() == 2 + 48 * 12 + 2);  // wte, wpe, 12 per block, ln_f
  double total = 0;
  for (double t : gpt2) total += t;
  CHECK(total == build_model("gpt2-xl").parameters());
  CHECK(parameter_tensors(build_model("resnet50")).size() == 161);  // 53 convs, 53 batch norms x 2, fc x 2
}

TEST_CASE("a fused AdamW step launches as many kernels as the recorded steps did") {
  // traces/pytorch: GPT-2 XL 76 aten::_fused_adamw_ kernels and 6 aten::_foreach_add_ (the step counters).
  CHECK(multi_tensor_launches(parameter_tensors(build_model("gpt2-xl")), 4) == 76);
  const auto gpt2 =
      optimizer_step_kernels(update(28), parameter_tensors(build_model("gpt2-xl")), Optimizer::Adam, false);
  CHECK(launches(gpt2) == 76 + 6);
  double bytes = 0;
  for (int i = 0; i < 76; ++i) bytes += gpt2[static_cast<std::size_t>(i)].bytes;
  CHECK(bytes == simtrain::testing::Approx(28));  // the step's bytes shared among the fused launches
}

TEST_CASE("foreach SGD with GradScaler launches what ResNet-50's recorded step did") {
  // traces/pytorch/resnet50_b32: 3 _amp_foreach_non_finite_check_and_unscale_, 1 _amp_update_scale_,
  // 3 _foreach_mul_ and 6 _foreach_add_.
  const std::vector<double> tensors = parameter_tensors(build_model("resnet50"));
  CHECK(multi_tensor_launches(tensors, 1) == 3);
  CHECK(multi_tensor_launches(tensors, 2) == 3);
  CHECK(launches(optimizer_step_kernels(update(20), tensors, Optimizer::SGD, true)) == 3 + 1 + 3 + 6);
}

TEST_CASE("a launch holds at most 320 chunks of 65,536 elements or depth_to_max_tensors tensors") {
  CHECK(multi_tensor_launches({65536.0 * 320}, 1) == 1);
  CHECK(multi_tensor_launches({65536.0 * 320 + 1}, 1) == 2);
  CHECK(multi_tensor_launches(std::vector<double>(110, 1), 1) == 1);
  CHECK(multi_tensor_launches(std::vector<double>(111, 1), 1) == 2);
  CHECK(multi_tensor_launches(std::vector<double>(37, 1), 4) == 2);
  CHECK_THROWS_AS(multi_tensor_launches({1}, 6), Error);
}
