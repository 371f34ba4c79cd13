// Specification of estimate_allocator_peak (allocator_memory.h): the caching allocator's peak of an eager
// step, term by term.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/workload/allocator_memory.h"

using namespace simtrain;
using namespace simtrain::workload;

TEST_CASE("fp32 weights and optimizer states, and autocast's 16-bit copies of GEMM and conv weights") {
  const Model gpt2 = build_model("gpt2-xl", {.seq_len = 512});
  const double p = gpt2.parameters();
  const AllocatorPeak peak = estimate_allocator_peak(gpt2, 4, Precision::AMP_BF16, 8);
  CHECK(peak.weights_bytes == 4 * p);
  CHECK(peak.optimizer_states_bytes == 8 * p);
  // Every Linear's weight and bias, and the tied LM head's 50,257 x 1,600 embedding matrix: everything
  // but the position table and the norms, in bf16.
  const double norms = 2 * 1600.0 * (2 * 48 + 1);
  CHECK(peak.weight_casts_bytes == simtrain::testing::Approx(2 * (p - 1024.0 * 1600 - norms)));
  CHECK(estimate_allocator_peak(gpt2, 4, Precision::FP32, 8).weight_casts_bytes == 0);
}

TEST_CASE("gelu_new keeps three fp32 tensors and one 16-bit tensor per element under autocast") {
  Model model;
  model.name = "one-gelu";
  model.layers.push_back(Layer{.name = "act", .type = "gelu_new", .dims = {100}});
  const AllocatorPeak peak = estimate_allocator_peak(model, 2, Precision::AMP_BF16, 0);
  CHECK(peak.activations_bytes == 2 * 100 * (3 * 4 + 2));
  CHECK(peak.backward_transient_bytes == 2 * peak.activations_bytes);
}

TEST_CASE("the loss keeps the 16-bit logits, their fp32 upcast and the fp32 log-probabilities") {
  Model model;
  model.name = "loss-only";
  model.layers.push_back(Layer{.name = "loss", .type = "cross_entropy", .dims = {512, 1000}});
  CHECK(estimate_allocator_peak(model, 1, Precision::AMP_FP16, 0).loss_bytes == 512.0 * 1000 * (2 + 4 + 4));
}

TEST_CASE("activations grow with the batch; reserved is a fixed share above allocated") {
  const Model resnet = build_model("resnet50");
  const AllocatorPeak one = estimate_allocator_peak(resnet, 1, Precision::AMP_FP16, 4);
  const AllocatorPeak many = estimate_allocator_peak(resnet, 32, Precision::AMP_FP16, 4);
  CHECK(many.activations_bytes == simtrain::testing::Approx(32 * one.activations_bytes));
  CHECK(many.reserved_bytes() == simtrain::testing::Approx(1.077 * many.allocated_bytes()));
  CHECK_THROWS_AS(estimate_allocator_peak(resnet, 0, Precision::AMP_FP16, 4), Error);
}
