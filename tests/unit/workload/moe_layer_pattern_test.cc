// --moe-layer-freq as Megatron-LM evaluates it: an integer every N-th layer from layer 0, or a list
// expression.
#include <doctest/doctest.h>

#include "common/error.h"
#include "simulator/workload/moe_layer_pattern.h"

using namespace simtrain;
using namespace simtrain::workload;

namespace {

using Pattern = std::vector<std::uint8_t>;

std::string error_of(const std::string& text, int layers) {
  try {
    moe_layer_pattern(text, layers);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an integer N makes layers 0, N, 2N, ... MoE, as Megatron's gpt_layer_specs does") {
  CHECK(moe_layer_pattern("1", 3) == Pattern{1, 1, 1});
  CHECK(moe_layer_pattern("2", 5) == Pattern{1, 0, 1, 0, 1});
  CHECK(moe_layer_pattern("'3'", 4) == Pattern{1, 0, 0, 1});
}

TEST_CASE("list expressions: Megatron's help examples, repetition on either side, nesting") {
  CHECK(moe_layer_pattern("([1]*3+[0]*1)*3", 12) == Pattern{1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0});
  CHECK(moe_layer_pattern("([1]*3+[0]*2)*2", 10) == Pattern{1, 1, 1, 0, 0, 1, 1, 1, 0, 0});
  CHECK(moe_layer_pattern("([0]+[1]*3)", 4) == Pattern{0, 1, 1, 1});
  CHECK(moe_layer_pattern("[1, 0, 1, 0]", 4) == Pattern{1, 0, 1, 0});
  CHECK(moe_layer_pattern("2*[0,1]", 4) == Pattern{0, 1, 0, 1});
  CHECK(moe_layer_pattern("(([0]*1+[1]*1)*2+[1])*1", 5) == Pattern{0, 1, 0, 1, 1});
  const Pattern deepseek = moe_layer_pattern("([0]*3+[1]*58)", 61);
  CHECK(deepseek.size() == 61);
  CHECK(deepseek[2] == 0);
  CHECK(deepseek[3] == 1);
}

TEST_CASE("other text, a length other than the model's, or a list too long to build: why, in one line") {
  CHECK(error_of("([0]*1+[1]*2)", 4) == "3 layers where the model has 4");
  CHECK(error_of("[0]*4", 4) == "makes no layer a MoE layer");
  CHECK(error_of("0", 4).find("expected a whole number of at least 1") == 0);
  CHECK(error_of("[2,1]", 2).find("expected 0 or 1 in a list") == 0);
  CHECK(error_of("[1]*3+", 3).find("expected '['") == 0);
  CHECK(error_of("__import__('os')", 3).find("expected a whole number") == 0);
  // Repetitions far beyond the model are refused before anything is built.
  CHECK(error_of("[1]*99999999999999999999", 4).find("expected a whole number") != std::string::npos);
  CHECK(error_of("[1]*1000000*1000000", 4).find("longer than the model's 4 layers") != std::string::npos);
  CHECK(error_of(std::string(100, '(') + "[1]" + std::string(100, ')'), 1).find("nested deeper than 64") !=
        std::string::npos);
}
