// Specification of reading DeepSpeed's JSON configuration into a plan.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/deepspeed_config.h"

namespace simtrain::workload {
namespace {

ParallelConfig on_gpus(int gpus) {
  ParallelConfig c;
  c.model = "llama2-7b";
  c.gpus = gpus;
  return c;
}

std::string error_of(const std::string& json, int gpus = 8) {
  try {
    parse_deepspeed_config(json, "ds.json", on_gpus(gpus));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("ZeRO stage, overlap_comm, batches and precision as DeepSpeed reads them") {
  const DeepSpeedPlan plan = parse_deepspeed_config(R"({
    "train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
    "zero_optimization": {"stage": 2, "overlap_comm": false, "reduce_bucket_size": 5e8},
    "bf16": {"enabled": true}, "gradient_clipping": 1.0, "train_batch_sise": 3})",
                                                    "ds.json", on_gpus(8));
  CHECK(plan.config.zero == 2);
  CHECK_FALSE(plan.config.overlap_grad_reduce);
  CHECK(plan.config.micro_batch == 2);
  CHECK(plan.config.global_batch == 64);
  CHECK(plan.config.precision == Precision::AMP_BF16);
  CHECK(plan.no_effect ==
        std::vector<std::string>{"gradient_clipping", "zero_optimization.reduce_bucket_size"});
  CHECK(plan.unknown == std::vector<std::string>{"train_batch_sise"});
}

TEST_CASE("the missing batch figure is derived as DeepSpeed derives it; \"auto\" leaves simtrain's") {
  CHECK(parse_deepspeed_config(R"({"train_batch_size": 128, "train_micro_batch_size_per_gpu": 4})", "ds.json",
                               on_gpus(8))
            .config.global_batch == 128);  // accumulation 4
  CHECK(parse_deepspeed_config(R"({"train_batch_size": 64, "gradient_accumulation_steps": 2})", "ds.json",
                               on_gpus(8))
            .config.micro_batch == 4);
  const DeepSpeedPlan automatic = parse_deepspeed_config(
      R"({"train_micro_batch_size_per_gpu": "auto", "fp16": {"enabled": "auto"}})", "ds.json", on_gpus(8));
  CHECK(automatic.config.micro_batch == 1);
  CHECK(automatic.config.global_batch == 8);
}

TEST_CASE("what DeepSpeed would refuse, or simtrain does not model, is one line naming the key") {
  CHECK(
      error_of(R"({"train_batch_size": 100, "train_micro_batch_size_per_gpu": 2,
                     "gradient_accumulation_steps": 4})") ==
      "ds.json: train_batch_size: 100 is not micro-batch 2 x accumulation 4 x 8 data-parallel ranks (64), as "
      "DeepSpeed requires");
  CHECK(error_of(R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "nvme"}}})") ==
        "ds.json: zero_optimization.offload_param.device: offloading to nvme is not modelled (simtrain keeps "
        "every state on the GPU)");
  CHECK(error_of(R"({"zero_optimization": {"stage": 4}})") ==
        "ds.json: zero_optimization.stage: expected 0, 1, 2 or 3");
  CHECK(error_of(R"({"fp16": {"enabled": true}, "bf16": {"enabled": true}})") ==
        "ds.json: bf16.enabled: fp16 and bf16 are both enabled");
  CHECK(error_of("[1, 2]") == "ds.json: expected a JSON object of DeepSpeed settings");
}

}  // namespace simtrain::workload
