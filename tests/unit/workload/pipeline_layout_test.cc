// Specification of pipeline_layout.h: Megatron-Core's layout strings as decoder layers per stage.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/pipeline_layout.h"

namespace simtrain::workload {
namespace {

TEST_CASE("a layout string gives each stage its decoder layers, repetitions unrolled as Megatron does") {
  // Megatron-Core's own example: DeepSeek-V3's 61 layers on 32 stages, the MTP module and the loss alone.
  std::vector<int> expected = {3};
  expected.insert(expected.end(), 29, 2);
  expected.push_back(0);
  expected.push_back(0);
  CHECK(decoder_layers_per_stage("Et*3|(tt|)*29,m|L") == expected);
  CHECK(decoder_layers_per_stage("Ett|tt|ttL") == std::vector<int>{2, 2, 2});
  CHECK(decoder_layers_per_stage("E|t*4|(t*2|)*2tL") == std::vector<int>{0, 4, 2, 2, 1});
}

TEST_CASE("a layout simtrain cannot run, or that does not parse, is refused naming the option") {
  using doctest::Contains;
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("Ett|tx|L"), Contains("unknown layer 'x'"), Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("Ett|(tt|*2|L"), Contains("a '(' without its ')'"), Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("Ett|((t|)*2)*2|L"), Contains("nested parentheses"), Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("Ett|t*|L"), Contains("followed by a repeat count"), Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("tt|EttL"), Contains("the embedding must open the first"),
                       Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("EttL|tt"), Contains("the loss must close the last"), Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("tt|ttL"), Contains("must start with the embedding"), Error);
  // A pasted string must not make simtrain allocate without bound.
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("E(t|)*9999999L"), Contains("more than 1,000,000 layers"),
                       Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("E(t|)*99999999L"), Contains("repeat count is too large"),
                       Error);
  CHECK_THROWS_WITH_AS(decoder_layers_per_stage("--pipeline"), Contains("--pipeline-model-parallel-layout"),
                       Error);
}

}  // namespace
}  // namespace simtrain::workload
