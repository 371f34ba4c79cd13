// Specification of shard_of (simulator/study/runner.h): shards partition a study, the same way everywhere.
#include <doctest/doctest.h>

#include <set>

#include "common/error.h"
#include "simulator/study/runner.h"

using namespace simtrain;
using namespace simtrain::study;

TEST_CASE("shards partition the scenarios by index, every scenario in exactly one shard") {
  std::vector<Scenario> scenarios(10);
  for (std::size_t i = 0; i < scenarios.size(); ++i) scenarios[i].index = i * 3;  // gaps, as exclusions leave
  std::multiset<std::size_t> seen;
  for (int k = 1; k <= 4; ++k)
    for (const Scenario& s : shard_of(scenarios, k, 4)) {
      CHECK(s.index % 4 == static_cast<std::size_t>(k - 1));
      seen.insert(s.index);
    }
  CHECK(seen.size() == scenarios.size());
  for (const Scenario& s : scenarios) CHECK(seen.count(s.index) == 1);
  CHECK(shard_of(scenarios, 1, 1).size() == scenarios.size());
  CHECK_THROWS_AS(shard_of(scenarios, 0, 4), Error);
  CHECK_THROWS_AS(shard_of(scenarios, 5, 4), Error);
}
