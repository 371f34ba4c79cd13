// NCCL's double binary tree across nodes (Sanders, Speck and Träff, "Two-tree algorithms for full bandwidth
// broadcast, reduction and scan", 2009): two binary trees over the same nodes, each carrying half of the
// buffer, built so that a node interior in one tree is a leaf in the other. Every node then sends and
// receives about twice the buffer in all, as in a ring, but a reduction climbs only log2(M) levels instead
// of going round M nodes.
#pragma once

#include <vector>

namespace simtrain::cost {

// A node's neighbours in one tree, as positions 0..count-1.
struct TreeNeighbours {
  int parent = -1;  // -1 at the root
  std::vector<int> children;
};

// Position p's neighbours in both trees over `count` nodes. The first tree is the heap order (parent of p
// is (p-1)/2); the second is the same tree over the mirrored positions count-1-p, so the interior nodes of
// the first (p < count/2) are leaves of the second.
struct DoubleBinaryTree {
  TreeNeighbours trees[2];
};
DoubleBinaryTree double_binary_tree(int count, int position);

// Levels below the root: floor(log2(count)); 0 for one node.
int binary_tree_depth(int count);

// The most one node sends (or receives) in an all-reduce over both trees, in units of the buffer: up to
// its parent and down to its children, half the buffer per edge of each tree: 1 for two nodes, 2 once some
// node has a parent and two children in one tree (5 nodes and more). O(count).
double double_binary_tree_peak_volume(int count);

}  // namespace simtrain::cost
