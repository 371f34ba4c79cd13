// Specification of the per-GPU memory estimate of data-parallel training, term by term.
#include <doctest/doctest.h>

#include "tests/support/approx.h"

#include "common/error.h"
#include "simulator/workload/data_parallel.h"
#include "simulator/workload/memory_estimate.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

double saved_elements(const Model& model, const std::string& prefix) {
  double total = 0;
  for (const Layer& layer : model.layers) {
    if (layer.name.rfind(prefix, 0) == 0) total += layer.saved_activation_elements_per_sample;
  }
  return total;
}

}  // namespace

TEST_CASE("weights, gradients, optimizer states and DDP buckets are fp32 copies of the parameters") {
  const Model model = build_model("resnet50");
  const double p = 25557032;
  const MemoryEstimate m = estimate_data_parallel_memory(model, 32, Precision::AMP_FP16, 4, 25e6);
  CHECK(m.weights_bytes == 4 * p);
  CHECK(m.gradients_bytes == 4 * p);
  CHECK(m.optimizer_states_bytes == 4 * p);  // SGD momentum
  CHECK(m.communication_buffers_bytes == 4 * p);
  CHECK(m.workspace_bytes == 1 * kGiB);
  CHECK(m.activations_bytes == saved_elements(model, "") * 32 * 2);
  CHECK(m.total_bytes() == simtrain::testing::Approx(16 * p + m.activations_bytes + kGiB));
  // Without bucketing there is no flat gradient copy.
  CHECK(estimate_data_parallel_memory(model, 32, Precision::AMP_FP16, 4, 0).communication_buffers_bytes == 0);
}

TEST_CASE("activation memory grows with the micro-batch and halves from fp32 to 16 bits") {
  const Model model = build_model("vit-b16");
  const double one = estimate_data_parallel_memory(model, 1, Precision::FP32, 8, 25e6).activations_bytes;
  CHECK(estimate_data_parallel_memory(model, 64, Precision::FP32, 8, 25e6).activations_bytes == 64 * one);
  CHECK(estimate_data_parallel_memory(model, 1, Precision::TF32, 8, 25e6).activations_bytes == one);
  CHECK(estimate_data_parallel_memory(model, 1, Precision::AMP_BF16, 8, 25e6).activations_bytes == one / 2);
}

TEST_CASE(
    "a BERT layer saves 34 s h bytes in 16 bits, as Korthikanti et al. count without the score matrix") {
  // Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", eq. 1:
  // s b h (34 + 5 a s / h) bytes per layer. Flash attention keeps no s x s scores, only one softmax statistic
  // per head and row; the 34 s h bytes are 17 s h 16-bit elements (dropout masks count as half an element).
  const Model model = build_model("bert-large");
  const double s = 128, h = 1024, a = 16;
  CHECK(saved_elements(model, "encoder.layer.0.") == 17 * s * h + a * s);
}

TEST_CASE("a GPT layer saves the same 17 s h elements; a Llama layer saves 8 s h + 4 s ffn") {
  const Model gpt = build_model("gpt2-xl");
  CHECK(saved_elements(gpt, "transformer.h.0.") == 17.0 * 1024 * 1600 + 25.0 * 1024);
  // Llama: norms, q/k/v input, Q, K, V, O, MLP input (8 s h); gate, up, silu(gate) and the product (4 s ffn).
  const Model llama = build_model("llama2-7b");
  CHECK(saved_elements(llama, "model.layers.0.") == 8.0 * 4096 * 4096 + 4.0 * 4096 * 11008 + 32.0 * 4096);
}

TEST_CASE("Llama-2-7B under plain DDP with Adam does not fit an 80 GB GPU") {
  // 4 (weights) + 4 (gradients) + 8 (Adam) + 4 (buckets) = 20 B per parameter: 135 GB before activations.
  const Model model = build_model("llama2-7b");
  const MemoryEstimate m = estimate_data_parallel_memory(
      model, 1, Precision::AMP_BF16, optimizer_state_bytes_per_parameter(Optimizer::Adam), 25e6);
  CHECK(m.total_bytes() > 80e9);
  CHECK(m.weights_bytes + m.gradients_bytes + m.optimizer_states_bytes + m.communication_buffers_bytes ==
        20.0 * 6738415616.0);
}

TEST_CASE("a micro-batch below one sample is an error") {
  CHECK_THROWS_AS(estimate_data_parallel_memory(build_model("lenet5"), 0, Precision::FP32, 4, 25e6),
                  simtrain::Error);
}
