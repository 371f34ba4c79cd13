// What one transformer layer saves for its backward pass, tensor by tensor, from the model's own shapes:
// the norms' inputs, the GEMMs' inputs (quantized under an FP8 or NVFP4 recipe, as Transformer Engine saves
// them for the weight gradient), attention's Q, K, V and output at their head counts and sizes (grouped-query
// and multi-latent attention), the MLP's activation input and output at its width (gated or not), a MoE
// layer's routed copies of each token, a Mamba-2 mixer's projections, and dropout masks only where the model
// drops out. For GPT-3's shapes in 16 bits this is Korthikanti et al.'s 34 s*b*h (+ 5 a s^2 b unfused); a
// Llama layer with grouped-query attention and a SwiGLU MLP saves what its tensors take, not GPT's count.
#pragma once

#include "simulator/workload/model_zoo.h"
#include "simulator/workload/parallel_config.h"
#include "simulator/workload/recompute_modules.h"

namespace simtrain::workload {

// How a layer's tensors are split and which of them are dropped for recomputation.
struct LayerActivationOptions {
  int tp = 1;
  // Sequence parallelism: the norms, masks and GEMM inputs that tensor parallelism alone replicates are
  // split over the TP ranks too.
  bool sp = false;
  Recompute recompute = Recompute::None;
  // Under Recompute::Selective, the submodules rerun (recompute_modules.h); kRecomputeCoreAttention also
  // stands for a fused (flash) attention kernel, which keeps no score matrices either.
  RecomputeModules modules = kDefaultRecomputeModules;
  // Bytes per element of a saved GEMM input: 2 in 16-bit training, about 1 under FP8 recipes, 0.5625 under
  // NVFP4 (gemm_input_bytes()). Other saved tensors are 16-bit.
  double gemm_input_bytes = 2;
};

// The bytes per element a low-precision recipe saves a GEMM's input in, scaling factors included:
// tensorwise and delayed scaling 1; MXFP8 1 + 1/32 (an 8-bit scale per 32 values); blockwise 1 + 4/128 (an
// fp32 scale per 128); NVFP4 0.5 + 1/16 (an 8-bit scale per 16 4-bit values). 2 without such a recipe.
double gemm_input_bytes(const ParallelConfig& config);

// The options a training plan implies: its TP and SP, its recomputation (a fused attention kernel keeping no
// scores, as recomputing core_attn drops them) and its GEMM inputs' bytes.
LayerActivationOptions layer_activation_options(const ParallelConfig& config);

// Bytes layer `index` of `model` saves per token of a micro-batch at sequence length `seq` (seq / cp under
// context parallelism), with 16-bit activations, as `options` split and drop them. Under full recomputation
// only the layer's input: 2 bytes x hidden (/ tp under sequence parallelism).
double saved_activation_bytes_per_token(const TransformerConfig& model, int index, double seq,
                                        const LayerActivationOptions& options);

// What layer `index` saves for one micro-batch of `config` at `seq_len` tokens a sequence: its bytes per
// token (layer_activation_options) times seq_len / cp times the micro-batch, doubled under fp32 or tf32
// training, whose activations are 4-byte. The memory estimate holds these; activation offloading copies them.
double layer_activation_bytes(const TransformerConfig& model, int index, const ParallelConfig& config,
                              int seq_len);

// The mean over the model's layers of saved_activation_bytes_per_token, times seq x micro_batch: what one
// layer of a pipeline stage holds per micro-batch in flight.
double activation_bytes_per_layer(const TransformerConfig& model, double seq, int micro_batch,
                                  const LayerActivationOptions& options);

}  // namespace simtrain::workload
