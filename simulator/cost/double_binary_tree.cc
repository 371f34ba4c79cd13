// Implements double_binary_tree.h.
#include "simulator/cost/double_binary_tree.h"

#include <algorithm>

namespace simtrain::cost {
namespace {

TreeNeighbours heap_neighbours(int count, int index) {
  TreeNeighbours n;
  if (index > 0) n.parent = (index - 1) / 2;
  for (int child : {2 * index + 1, 2 * index + 2})
    if (child < count) n.children.push_back(child);
  return n;
}

}  // namespace

DoubleBinaryTree double_binary_tree(int count, int position) {
  DoubleBinaryTree tree;
  tree.trees[0] = heap_neighbours(count, position);
  const TreeNeighbours mirrored = heap_neighbours(count, count - 1 - position);
  tree.trees[1].parent = mirrored.parent < 0 ? -1 : count - 1 - mirrored.parent;
  for (int child : mirrored.children) tree.trees[1].children.push_back(count - 1 - child);
  return tree;
}

int binary_tree_depth(int count) {
  int depth = 0;
  while ((2 << depth) <= count) ++depth;
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
