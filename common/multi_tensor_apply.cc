// Implements multi_tensor_apply.h: one walk over the chunks serves the plan and the count.
#include "common/multi_tensor_apply.h"

#include <string>

#include "common/error.h"

namespace simtrain {
namespace {

// Calls on_tensor(t) when tensor t joins the current launch, on_block(chunk) for every chunk and
// on_launch(split) when a launch is full or the list ends; split says the tensor being cut goes on.
template <typename OnTensor, typename OnBlock, typename OnLaunch>
void walk(const std::vector<std::int64_t>& elements, int depth, OnTensor on_tensor, OnBlock on_block,
          OnLaunch on_launch) {
  const int max_tensors = multi_tensor_max_tensors(depth);
  std::size_t last_tensor = elements.size();
  for (std::size_t t = 0; t < elements.size(); ++t)
    if (elements[t] > 0) last_tensor = t;
  int tensors_in_launch = 0, blocks_in_launch = 0;
  for (std::size_t t = 0; t < elements.size(); ++t) {
    if (elements[t] <= 0) continue;
    on_tensor(t);
    ++tensors_in_launch;
    const std::int64_t chunks = (elements[t] + kMultiTensorChunkElements - 1) / kMultiTensorChunkElements;
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
      on_block(tensors_in_launch - 1, chunk);
      ++blocks_in_launch;
      const bool tensor_done = chunk == chunks - 1;
      const bool tensors_full = tensors_in_launch == max_tensors && tensor_done;
      const bool blocks_full = blocks_in_launch == kMultiTensorMaxBlocks;
      if (!(tensors_full || blocks_full || (t == last_tensor && tensor_done))) continue;
      on_launch(!tensor_done, t);
      blocks_in_launch = 0;
      tensors_in_launch = tensor_done ? 0 : 1;
    }
  }
}

}  // namespace

int multi_tensor_max_tensors(int depth) {
  constexpr int kMaxTensors[] = {110, 64, 48, 36, 30};
  if (depth < 1 || depth > 5)
    throw Error("multi_tensor_apply depth must be 1 to 5, got " + std::to_string(depth));
  return kMaxTensors[depth - 1];
}

std::vector<MultiTensorLaunch> plan_multi_tensor_launches(const std::vector<std::int64_t>& elements,
                                                          int depth) {
  std::vector<MultiTensorLaunch> launches(1);
  walk(
      elements, depth, [&](std::size_t t) { launches.back().tensors.push_back(t); },
      [&](int tensor, std::int64_t chunk) {
        launches.back().blocks.push_back({tensor, chunk});
      },
      [&](bool split, std::size_t t) {
        launches.emplace_back();
        if (split) launches.back().tensors.push_back(t);
      });
  launches.pop_back();  // the one opened after the last launch
  return launches;
}

int count_multi_tensor_launches(const std::vector<std::int64_t>& elements, int depth) {
  int launches = 0;
  walk(
      elements, depth, [](std::size_t) {}, [](int, std::int64_t) {}, [&](bool, std::size_t) { ++launches; });
  return launches;
}

}  // namespace simtrain
