// How much of the seq x seq score square a fused (flash) attention kernel computes.
#pragma once

#include <algorithm>
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

// Under a causal sliding window of `window` keys, a 128-row query tile reaches back window keys and so
// visits ceil(window / 128) + 1 key tiles (the diagonal one included), of `keys` / 128 in all: the kernel's
// work grows with the window, not with the sequence (FlashAttention-2's and cuDNN's local masks skip the
// tiles left of the window as they skip those above the diagonal).
inline double sliding_window_tile_fraction(double keys, double window) {
  const double tiles = std::ceil(keys / 128.0);
  if (window <= 0 || tiles <= 1) return flash_attention_tile_fraction(keys, true);
  return std::min(flash_attention_tile_fraction(keys, true), (std::ceil(window / 128.0) + 1) / tiles);
}

// The key tiles of 128 a query tile visits on average, for a kernel over `keys` keys that visits `fraction`
// of the square's tiles (trace::ComputeSpec::kv_tiles).
inline double flash_attention_kv_tiles(double keys, double fraction) {
  return std::max(1.0, fraction * std::ceil(keys / 128.0));
}

}  // namespace simtrain::workload
