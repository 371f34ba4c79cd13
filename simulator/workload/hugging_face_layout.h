// A decoder laid out as Megatron-Core names and fuses its modules (decoder_model.cc) rearranged as Hugging
// Face's LlamaForCausalLM-style modules run in eager PyTorch: separate q, k and v projections instead of
// one linear_qkv, and separate gate and up projections instead of one fused linear_fc1. Parameters, FLOPs
// and saved activations are unchanged; the kernel list is what `--impl hf` launches.
#pragma once

#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {

// `model` with every dense layer's linear_qkv split into q_proj, k_proj, v_proj (unless the model fuses them
// itself: TransformerConfig::fused_qkv) and every gated dense linear_fc1 into gate_proj, up_proj (k, v and up
// read the input the first projection saved). Experts and models without these layers are returned
// unchanged.
Model with_hugging_face_projections(Model model);

}  // namespace simtrain::workload
