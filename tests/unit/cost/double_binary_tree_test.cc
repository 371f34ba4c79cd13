// Specification of the double binary tree: two trees over the same nodes, consistent parent and child
// links, NCCL's btree shape, and the volumes and depth the cost model relies on.
#include <doctest/doctest.h>

#include <vector>

#include "simulator/cost/double_binary_tree.h"

namespace simtrain {

TEST_CASE("each of the two trees links every node to one root through consistent parent and child links") {
  for (int count = 1; count <= 40; ++count) {
    CAPTURE(count);
    for (int t = 0; t < 2; ++t) {
      CAPTURE(t);
      int roots = 0;
      std::vector<int> children_seen(count, 0);
      for (int p = 0; p < count; ++p) {
        const cost::TreeNeighbours n = cost::double_binary_tree(count, p).trees[t];
        if (n.parent < 0) ++roots;
        CHECK(n.children.size() <= 2);
        for (int child : n.children) {
          REQUIRE(child >= 0);
          REQUIRE(child < count);
          CHECK(cost::double_binary_tree(count, child).trees[t].parent == p);
          ++children_seen[child];
        }
      }
      CHECK(roots == 1);
      for (int p = 0; p < count; ++p) {
        const bool is_root = cost::double_binary_tree(count, p).trees[t].parent < 0;
        CHECK(children_seen[p] == (is_root ? 0 : 1));
      }
    }
  }
}

TEST_CASE(
    "as in NCCL, no node is interior in both trees of an even count, at most one of an odd count, and a "
    "node climbs at most ceil(log2 count) levels") {
  for (int count = 2; count <= 40; ++count) {
    CAPTURE(count);
    int deepest = 0, interior_in_both = 0;
    for (int p = 0; p < count; ++p) {
      const cost::DoubleBinaryTree tree = cost::double_binary_tree(count, p);
      if (!tree.trees[0].children.empty() && !tree.trees[1].children.empty()) ++interior_in_both;
      for (const cost::TreeNeighbours& t : tree.trees) {
        int levels = 0;
        for (int at = p, parent = t.parent; parent >= 0; ++levels) {
          at = parent;
          parent = &t == &tree.trees[0] ? cost::double_binary_tree(count, at).trees[0].parent
                                        : cost::double_binary_tree(count, at).trees[1].parent;
        }
        deepest = std::max(deepest, levels);
      }
    }
    CHECK(deepest == cost::binary_tree_depth(count));
    CHECK(interior_in_both == (count % 2 == 0 ? 0 : 1));
  }
  CHECK(cost::binary_tree_depth(1) == 0);
  CHECK(cost::binary_tree_depth(2) == 1);
  CHECK(cost::binary_tree_depth(7) == 3);
  CHECK(cost::binary_tree_depth(8) == 3);
  CHECK(cost::binary_tree_depth(2048) == 11);
}

TEST_CASE("the first tree is NCCL's btree: 0 -> 8 -> 4, 12 -> 2, 6, 10 -> odd leaves over 14 nodes") {
  // trees.cc's illustration for 14 ranks.
  CHECK(cost::double_binary_tree(14, 0).trees[0].children == std::vector<int>{8});
  CHECK(cost::double_binary_tree(14, 8).trees[0].children == std::vector<int>{4, 12});
  CHECK(cost::double_binary_tree(14, 12).trees[0].children == std::vector<int>{10, 13});
  CHECK(cost::double_binary_tree(14, 13).trees[0].parent == 12);
  CHECK(cost::double_binary_tree(14, 1).trees[0].parent == 2);
}

TEST_CASE("the busiest node moves one buffer with two nodes, 1.5 with three, two from four") {
  CHECK(cost::double_binary_tree_peak_volume(2) == 1.0);
  CHECK(cost::double_binary_tree_peak_volume(3) == 1.5);
  for (int count : {4, 5, 8, 64, 1000, 2048}) CHECK(cost::double_binary_tree_peak_volume(count) == 2.0);
}

}  // namespace simtrain
