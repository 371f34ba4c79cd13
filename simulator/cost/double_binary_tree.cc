// Implements double_binary_tree.h: NCCL's btree and dtree (src/graph/trees.cc, ncclGetBtree/ncclGetDtree),
// restated over positions.
#include "simulator/cost/double_binary_tree.h"

#include <algorithm>

namespace simtrain::cost {
namespace {

// NCCL's binary tree over positions 0..count-1, rooted at 0 with a single child (the highest power of two
// below count); below it, a position's lowest set bit gives its level: its parent sets the next bit up
// (or, past the end, clears its own), its children are position -/+ half that bit (the second one, when
// past the end, at the nearest smaller offset that fits).
TreeNeighbours nccl_btree(int count, int position) {
  TreeNeighbours n;
  int bit = 1;
  if (position == 0) {
    while (bit < count) bit <<= 1;
    if (count > 1) n.children.push_back(bit >> 1);
    return n;
  }
  while ((bit & position) == 0) bit <<= 1;
  n.parent = (position ^ bit) | (bit << 1);
  if (n.parent >= count) n.parent = position ^ bit;
  int low = bit >> 1;
  if (low == 0) return n;
  n.children.push_back(position - low);
  while (low > 0 && position + low >= count) low >>= 1;
  if (low > 0) n.children.push_back(position + low);
  return n;
}

}  // namespace

DoubleBinaryTree double_binary_tree(int count, int position) {
  DoubleBinaryTree tree;
  tree.trees[0] = nccl_btree(count, position);
  // The second tree: mirrored when count is even, so that the first tree's interior (even positions) are
  // its leaves; shifted by one when count is odd.
  auto map = [count](int p) { return count % 2 == 0 ? count - 1 - p : (p + 1) % count; };
  const int source = count % 2 == 0 ? count - 1 - position : (position - 1 + count) % count;
  const TreeNeighbours other = nccl_btree(count, source);
  tree.trees[1].parent = other.parent < 0 ? -1 : map(other.parent);
  for (int child : other.children) tree.trees[1].children.push_back(map(child));
  return tree;
}

int binary_tree_depth(int count) {
  int depth = 0;
  while ((1 << depth) < count) ++depth;
  return depth;
}

double double_binary_tree_peak_volume(int count) {
  double peak = 0;
  for (int position = 0; position < count; ++position) {
    const DoubleBinaryTree tree = double_binary_tree(count, position);
    double volume = 0;
    for (const TreeNeighbours& t : tree.trees)
      volume += 0.5 * ((t.parent >= 0 ? 1 : 0) + static_cast<double>(t.children.size()));
    peak = std::max(peak, volume);
  }
  return peak;
}

}  // namespace simtrain::cost
