// NCCL's double binary tree across nodes (Sanders, Speck and Träff, "Two-tree algorithms for full bandwidth
// broadcast, reduction and scan", 2009), built as NCCL builds it (src/graph/trees.cc): two binary trees over
// the same nodes, each carrying half of the buffer, the second the first mirrored (even counts) or shifted
// by one (odd counts), so that a node interior in one tree is a leaf in the other (all nodes for even
// counts; all but one for odd ones). Every node then sends and receives about twice the buffer in all, as in
// a ring, but a reduction climbs only about log2(M) levels instead of going round M nodes.
#pragma once

#include <vector>

namespace simtrain::cost {

// A node's neighbours in one tree, as positions 0..count-1.
struct TreeNeighbours {
  int parent = -1;  // -1 at the root
  std::vector<int> children;
};

// Position p's neighbours in both trees over `count` nodes: NCCL's ncclGetDtree. The first tree is NCCL's
// btree, rooted at 0 with one child; its interior positions are even.
struct DoubleBinaryTree {
  TreeNeighbours trees[2];
};
DoubleBinaryTree double_binary_tree(int count, int position);

// Levels below the root of NCCL's btree: ceil(log2(count)); 0 for one node.
int binary_tree_depth(int count);

// The most one node sends (or receives) in an all-reduce over both trees, in units of the buffer: up to
// its parent and down to its children, half the buffer per edge of each tree: 1 for two nodes, 1.5 for
// three, 2 from four (a node with a parent and two children in one tree, a leaf in the other). This is why
// NCCL's tuner gives a tree twice the network bandwidth of a ring on two nodes only (tuning.cc, "Handle 2
// node case of NVLSTree"). O(count).
double double_binary_tree_peak_volume(int count);

}  // namespace simtrain::cost
