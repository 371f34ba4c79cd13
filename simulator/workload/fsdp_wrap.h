// How PyTorch FullyShardedDataParallel divides a zoo model into units when a training script wraps each
// repeated block: accelerate's TRANSFORMER_BASED_WRAP over a Hugging Face model's _no_split_modules (its
// decoder layers), Composer's fsdp_wrap_fn for MPT's blocks, a per-block policy for torchvision's stages.
// Each wrapped block is one unit whose parameters FSDP gathers before the block runs and frees after;
// everything outside the blocks (embeddings, the final norm, the LM head, a CNN's stem and classifier)
// belongs to the root unit, which FSDP gathers first and keeps until backward has finished with it.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

// One wrapped block: the contiguous layers [first_layer, end_layer) of Model::layers.
struct FsdpUnit {
  std::size_t first_layer = 0;
  std::size_t end_layer = 0;
  double parameters = 0;
};

struct FsdpWrap {
  std::vector<FsdpUnit> units;  // the blocks, in layer (forward) order
  // For each layer of the model, the index of its unit in `units`, or kRootUnit.
  std::vector<int> unit_of_layer;
  double root_parameters = 0;

  static constexpr int kRootUnit = -1;
  double largest_unit_parameters() const;
};

// The block a layer belongs to, from its name: the name up to and including its first dot-separated part
// that is a number ("model.layers.3" for "model.layers.3.self_attn.q_proj", "layer2.1" for
// "layer2.1.conv2"); empty for a layer outside every block ("model.embed_tokens", "fc").
std::string_view block_of(std::string_view layer_name);

// The units of `model`: one per run of consecutive layers with the same block (block_of) that holds
// parameters. Layers outside every block, and blocks without parameters, fall to the root unit.
FsdpWrap wrap_repeated_blocks(const Model& model);

}  // namespace simtrain::workload
