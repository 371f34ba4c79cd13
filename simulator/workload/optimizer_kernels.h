// The kernels PyTorch's optimizers launch for one step. torch.optim's foreach and fused implementations
// (and apex's fused optimizers) go through multi_tensor_apply, which packs chunks of many parameter tensors
// into each launch, so a step is tens of kernels, not one per tensor and not one in all: GPT-2 XL's fused
// AdamW step launched 76 kernels on an H200 (traces/pytorch/gpt2-xl_seq512_b4_bf16_adamw.json.gz).
#pragma once

#include <vector>

#include "simulator/workload/data_parallel.h"
#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

// The element count of each parameter tensor, in module order: a Linear or Conv has a weight and, with a
// bias, a bias; a norm a weight and (LayerNorm, BatchNorm) a bias; embeddings, class tokens and position
// tables one tensor.
std::vector<double> parameter_tensors(const Model& model);

// The kernels multi_tensor_apply launches over `tensors` (elements each, rounded up) with `depth` lists (1:
// params; 2: params and grads; 4: fused Adam's params, grads and two moments), as
// common/multi_tensor_apply.h packs them. Throws Error when depth is not 1 to 5.
int multi_tensor_launches(const std::vector<double>& tensors, int depth);

// One step of `optimizer` over `tensors`, launch by launch, with `update`'s FLOPs and bytes (the whole
// step's) shared evenly among its launches:
//  - SGD with momentum (foreach): momentum *= 0.9 (depth 1), momentum += grad and param -= lr x momentum
//    (depth 2 each);
//  - Adam (fused AdamW): the fused kernel (depth 4), then the step counters += 1 (depth 1, one element each);
//  - LAMB is launched as Adam is (apex's FusedLAMB also packs depth-4 lists).
// With `grad_scaler` (fp16 autocast), torch.amp.GradScaler first unscales the gradients and checks them for
// infinities (depth 1, reading and writing 8 B per parameter), and updates its scale (one small kernel).
std::vector<trace::ComputeSpec> optimizer_step_kernels(const trace::ComputeSpec& update,
                                                       const std::vector<double>& tensors,
                                                       Optimizer optimizer, bool grad_scaler);

}  // namespace simtrain::workload
