// Specification of DDP's bucketing: a 1 MiB first bucket, then buckets that close once they reach the cap,
// never mixing dtypes, each ready when its last gradient is.
#include <doctest/doctest.h>

#include "simulator/trace/ddp_buckets.h"

namespace simtrain::trace {

constexpr double kMiB = 1024.0 * 1024;

TEST_CASE("the first bucket closes at 1 MiB, the next ones at the cap") {
  std::vector<GradientReady> grads;
  for (std::size_t i = 0; i < 10; ++i) grads.push_back({4 * kMiB, DType::FP32, i});
  const std::vector<DdpBucket> buckets = plan_ddp_buckets(grads, 10 * kMiB);
  // 4 | 4 4 4 | 4 4 4 | 4 4 4
  REQUIRE(buckets.size() == 4);
  CHECK(buckets[0].bytes == 4 * kMiB);
  CHECK(buckets[1].bytes == 12 * kMiB);
  CHECK(buckets[1].ready_after == 3);
  CHECK(buckets[3].gradients == 3);
  CHECK(buckets[3].ready_after == 9);
}

TEST_CASE("small gradients share a bucket, which is ready with the last of them") {
  std::vector<GradientReady> grads = {{0.25 * kMiB, DType::FP32, 5}, {0.25 * kMiB, DType::FP32, 2},
                                      {0.25 * kMiB, DType::FP32, 9}};
  const std::vector<DdpBucket> buckets = plan_ddp_buckets(grads, 25 * kMiB);
  REQUIRE(buckets.size() == 1);
  CHECK(buckets[0].bytes == 0.75 * kMiB);
  CHECK(buckets[0].ready_after == 9);
}

TEST_CASE("a change of dtype starts a new bucket") {
  std::vector<GradientReady> grads = {{100, DType::FP32, 0}, {100, DType::BF16, 1}, {100, DType::BF16, 2}};
  const std::vector<DdpBucket> buckets = plan_ddp_buckets(grads, 25 * kMiB);
  REQUIRE(buckets.size() == 2);
  CHECK(buckets[1].dtype == DType::BF16);
  CHECK(buckets[1].bytes == 200);
}

TEST_CASE("no gradients, no buckets") { CHECK(plan_ddp_buckets({}, 25 * kMiB).empty()); }

}  // namespace simtrain::trace
