// The memory passes PyTorch's eager mode adds to a layer's kernels, which a fused framework (Megatron-LM,
// Transformer Engine) does not run, as a Hugging Face-style model under torch.autocast executes them:
//  - autocast casts every Linear and Conv weight from fp32 to 16 bits in forward, and the 16-bit weight
//    gradient back to fp32 in backward;
//  - a transformer's residual stream stays fp32 (the embedding's output is fp32 and adds promote), so its
//    norms and residual adds move fp32 tensors, and each norm's fp32 output is cast to 16 bits for the
//    Linear that reads it (its gradient cast back in backward);
//  - every Linear that reads the same fp32 input (Hugging Face's separate q, k and v projections, gate and
//    up) casts it for itself, and backward casts each input gradient back and sums them;
//  - the loss casts the 16-bit logits to fp32 (and the gradient back), and its backward zero-fills the
//    gradient of the log-probabilities first;
//  - a Hugging Face decoder copies each layer's keys and values into its DynamicCache, and backward copies
//    the head-major gradients back into the projections' layout;
//  - rotary embeddings run as rotate_half: a negation, a concatenation, two products and a sum, each a pass
//    over the queries and keys (forward and backward);
//  - SwiGLU runs as silu(gate) and a product, and backward concatenates the gate and up gradients.
// On an H200 these passes were a third of a Llama decoder's step time
// (traces/kineto/h200-llama2-7b-8layers-amp-bf16-s4096.json.gz).
#pragma once

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/precision.h"

namespace simtrain::workload {

// `kernels` as kernels_for() made them for `layer`, with the eager-mode passes above added or enlarged.
// `sixteen_bit_parameters`: the parameters the layers read are already in autocast's dtype (FSDP's mixed
// precision gathers them so), so no weight or bias is cast in forward and no gradient cast back.
LayerKernels with_eager_pytorch_passes(LayerKernels kernels, const Layer& layer, const Model& model,
                                       int batch, Precision precision, bool sixteen_bit_parameters = false);

}  // namespace simtrain::workload
