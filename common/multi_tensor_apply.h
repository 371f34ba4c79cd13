// How PyTorch's multi_tensor_apply (aten/src/ATen/native/cuda/MultiTensorApply.cuh) packs a list of tensors
// into kernel launches: every tensor is cut into chunks of 65,536 elements, one thread block per chunk, and a
// launch takes chunks until it holds 320 of them, or until it holds as many tensors as its argument block
// has room for (110, 64, 48, 36, 30 at 1 to 5 lists) and the last of them is complete. A tensor cut by a full
// launch goes on as the first tensor of the next. The simulator counts the launches of an optimizer step
// with it (simulator/workload/optimizer_kernels.h); simtrain-calibrate lays out its own AdamW kernel's
// launches with it (calibration/tool/framework_kernels.h). Dependency-free, so that the standalone tool
// builds it.
#pragma once

#include <cstdint>
#include <vector>

namespace simtrain {

inline constexpr std::int64_t kMultiTensorChunkElements = 65536;
inline constexpr int kMultiTensorMaxBlocks = 320;

// The tensors one launch's argument block holds at `depth` lists; Error when depth is not 1 to 5.
int multi_tensor_max_tensors(int depth);

// One launch: the tensors its argument block holds (indices into the list, in order) and, per thread block,
// the position in `tensors` and the chunk it takes.
struct MultiTensorLaunch {
  struct Block {
    int tensor = 0;
    std::int64_t chunk = 0;
  };
  std::vector<std::size_t> tensors;
  std::vector<Block> blocks;
};

// The launches over tensors of `elements` each (empty tensors are skipped, as PyTorch skips them).
std::vector<MultiTensorLaunch> plan_multi_tensor_launches(const std::vector<std::int64_t>& elements,
                                                          int depth);
// Their number, without listing the blocks (a large model has millions of chunks).
int count_multi_tensor_launches(const std::vector<std::int64_t>& elements, int depth);

}  // namespace simtrain
