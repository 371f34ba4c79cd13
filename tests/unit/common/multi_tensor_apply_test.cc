// Specification of multi_tensor_apply.h: PyTorch's packing of tensors into multi_tensor_apply launches.
#include "common/multi_tensor_apply.h"

#include <doctest/doctest.h>

#include "common/error.h"

using namespace simtrain;

namespace {

constexpr std::int64_t kChunk = kMultiTensorChunkElements;

}  // namespace

TEST_CASE("a launch takes 320 chunks; a tensor cut by a full launch opens the next") {
  const auto exact = plan_multi_tensor_launches({320 * kChunk}, 4);
  REQUIRE(exact.size() == 1);
  CHECK(exact[0].blocks.size() == 320);
  const auto cut = plan_multi_tensor_launches({320 * kChunk + 1, 5}, 4);
  REQUIRE(cut.size() == 2);
  CHECK(cut[0].tensors == std::vector<std::size_t>{0});
  CHECK(cut[1].tensors == std::vector<std::size_t>{0, 1});  // the rest of tensor 0, then tensor 1
  REQUIRE(cut[1].blocks.size() == 2);
  CHECK(cut[1].blocks[0].tensor == 0);
  CHECK(cut[1].blocks[0].chunk == 320);
  CHECK(cut[1].blocks[1].tensor == 1);
  CHECK(cut[1].blocks[1].chunk == 0);
}

TEST_CASE("a launch holds as many tensors as its argument block has room for at the depth") {
  CHECK(multi_tensor_max_tensors(1) == 110);
  CHECK(multi_tensor_max_tensors(4) == 36);
  const std::vector<std::int64_t> small(37, 1000);
  const auto adam = plan_multi_tensor_launches(small, 4);
  REQUIRE(adam.size() == 2);
  CHECK(adam[0].tensors.size() == 36);
  CHECK(adam[1].tensors == std::vector<std::size_t>{36});
  CHECK(count_multi_tensor_launches(small, 1) == 1);  // 110 fit at one list
}

TEST_CASE("empty tensors are skipped, and the count is the plan's length") {
  const std::vector<std::int64_t> mixed = {0, 3 * kChunk, 0, 700 * kChunk, 10, 0};
  const auto plan = plan_multi_tensor_launches(mixed, 2);
  CHECK(static_cast<int>(plan.size()) == count_multi_tensor_launches(mixed, 2));
  std::int64_t blocks = 0;
  for (const auto& launch : plan) {
    blocks += static_cast<std::int64_t>(launch.blocks.size());
    CHECK(launch.blocks.size() <= 320);
    for (std::size_t tensor : launch.tensors) CHECK(mixed[tensor] > 0);
  }
  CHECK(blocks == 3 + 700 + 1);
  CHECK(plan_multi_tensor_launches({0, 0}, 4).empty());
  CHECK(count_multi_tensor_launches({}, 4) == 0);
}

TEST_CASE("depths beyond multi_tensor_apply's five lists are errors") {
  CHECK_THROWS_AS(multi_tensor_max_tensors(0), Error);
  CHECK_THROWS_AS(count_multi_tensor_launches({1}, 6), Error);
}
