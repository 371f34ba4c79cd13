// How much of the seq x seq score square a fused (flash) attention kernel computes.
#pragma once

#include <cmath>

namespace simtrain::workload {

// The fraction of score tiles a flash-attention kernel visits for `keys` keys: all of them without a causal
// mask; under one, the tiles on and below the diagonal, (t + 1) / 2t of t x t tiles of 128 keys
// (FlashAttention and cuDNN skip the tiles the mask empties). On an H200 a causal bf16 forward over 4,096
// tokens ran at half the time the full square would take at the same rate
// (calibration/profiles/h200-sxm.pytorch-steps.json).
inline double flash_attention_tile_fraction(double keys, bool causal) {
  if (!causal) return 1.0;
  const double tiles = std::ceil(keys / 128.0);
  return tiles <= 1 ? 1.0 : (tiles + 1) / (2 * tiles);
}

}  // namespace simtrain::workload
