// Specification of --impl (implementation.h): which implementations each zoo model has.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/implementation.h"

using namespace simtrain;
using namespace simtrain::workload;

TEST_CASE("image models are torchvision's, BERT Hugging Face's, decoders Hugging Face's or Megatron's") {
  CHECK(implementations_for(build_model("resnet50")) == std::vector{Implementation::Torchvision});
  CHECK(implementations_for(build_model("vit-b16")) == std::vector{Implementation::Torchvision});
  CHECK(implementations_for(build_model("bert-large")) == std::vector{Implementation::HuggingFace});
  CHECK(implementations_for(build_model("gpt2-xl")) ==
        std::vector{Implementation::HuggingFace, Implementation::Megatron});
  CHECK(parse_implementation("megatron", build_model("llama2-7b")) == Implementation::Megatron);
}

TEST_CASE("an unknown implementation, or one the model lacks, is one clear error") {
  try {
    parse_implementation("deepspeed", build_model("gpt2-xl"));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "--impl: unknown implementation 'deepspeed' (torchvision, hf, megatron)");
  }
  try {
    parse_implementation("megatron", build_model("resnet50"));
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "--impl: megatron is not available for resnet50 (available: torchvision)");
  }
}
