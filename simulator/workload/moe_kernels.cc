// The routed-expert MLP of a MoE layer on one GPU under expert (and expert-tensor) parallelism, after
// Megatron-Core's all-to-all token dispatcher and Transformer Engine's grouped linears.
#include "simulator/workload/layer_builders.h"

namespace simtrain::workload::layer_builders {
namespace {

// The host's launches for the grouped expert linears among steps[from...]: Transformer Engine's GroupedLinear
// runs one GEMM (and one quantization) per local expert in a loop of its C++ code, behind one Python call. A
// quantization there is a bare launch call; a GEMM costs the host as much as an eager operator (cuBLASLt's
// setup: in the H200 Kineto traces aten::mm takes 76 us of CPU where an elementwise aten::mul takes 36 us),
// so each further expert's GEMM is priced as a dispatch, without the Python around the first.
void launch_per_local_expert(Steps& steps, std::size_t from, double local_experts) {
  for (std::size_t i = from; i < steps.size(); ++i) {
    LayerStep& step = steps[i];
    if (step.type != LayerStep::Type::Kernel || step.name.rfind("moe.experts.fc", 0) != 0) continue;
    if (step.kernel.kind == ComputeKind::Gemm)
      step.looped_dispatches = local_experts - 1;
    else
      step.looped_kernels = local_experts - 1;
  }
}

// TEGroupedMLP's own PyTorch code around Transformer Engine's grouped linears when the op fuser is off
// (Megatron-Core's moe/experts.py), in the order it runs:
// - GPT-OSS's clamped activation (TransformerConfig::clamped_quick_geglu; fused_bias_geglu.py,
//   weighted_bias_quick_geglu_impl): the gate half and the linear half of fc1's output are clamped apart and
//   concatenated again, then a scalar tensor is made on the device for the linear offset, a blocking copy
//   after which the host waits for the stream; backward, the two clamps' masked gradients and their
//   concatenation. These run inside the activation's recomputation.
// - fc2's biases (_apply_bias, its eager path): for each local expert its rows plus its bias times the rows'
//   routing probabilities, a multiply and an add per expert in a Python list comprehension, then one
//   concatenation; backward, autograd's engine runs the bias's and the probabilities' gradients, a multiply
//   and a sum each per expert. Those per-expert operators are counted one by one
//   (LayerStep::looped_dispatches).
void clamp_activation_input(Steps& forward, Steps& backward, const Dims& d, double rows, double width) {
  const double halves = rows * width;  // fc1's output: the gate and the linear half
  forward.push_back(
      elementwise("moe.experts.act_clamp.fwd", ComputeKind::Elementwise, Pass::Forward, d, halves, 1, 1, 1));
  forward.back().launches = 2;  // one clamp per half
  forward.back().recompute = kRecomputeMoeActivation;
  forward.push_back(elementwise("moe.experts.act_clamp_cat.fwd", ComputeKind::Elementwise, Pass::Forward, d,
                                halves, 1, 1, 0));
  forward.back().recompute = kRecomputeMoeActivation;
  forward.back().host_waits = true;
  backward.push_back(elementwise("moe.experts.act_clamp.bwd_data", ComputeKind::Elementwise,
                                 Pass::BackwardData, d, halves, 2, 1, 1));
  backward.back().launches = 2;
  backward.push_back(elementwise("moe.experts.act_clamp_cat.bwd_data", ComputeKind::Elementwise,
                                 Pass::BackwardData, d, halves, 1, 1, 0));
}

void add_fc2_bias(Steps& steps, Pass pass, const Dims& d, double rows, double width, double local_experts) {
  if (pass == Pass::Forward) {
    steps.push_back(
        elementwise("moe.experts.out_bias.fwd", ComputeKind::Elementwise, pass, d, rows * width, 2, 2, 2));
    steps.back().launches = 0;  // torch.split's views launch nothing
    steps.back().looped_dispatches = 2 * local_experts;
    steps.push_back(elementwise("moe.experts.out_bias_cat.fwd", ComputeKind::Elementwise, pass, d,
                                rows * width, 1, 1, 0));
    return;
  }
  steps.push_back(
      elementwise("moe.experts.out_bias.bwd_data", ComputeKind::Elementwise, pass, d, rows * width, 4, 2, 4));
  steps.back().launches = 0;
  steps.back().looped_dispatches = 4 * local_experts;
}

}  // namespace

// Router, all-to-all dispatch over the EP group, all-gather over the expert-TP group (experts are split
// over etp ranks: the TP group, or fewer ranks under MoE parallel folding, LayerSharding::etp), the local
// experts as grouped GEMMs, and the mirror back. Megatron needs sequence parallelism for MoE with TP: each
// TP rank routes tokens / tp tokens. Shared experts see every token, TP-sharded like a dense MLP (their
// collectives are taken to ride on the routed experts').
// The memory-bound kernels are Megatron-Core's all-to-all token dispatcher's (MoEAlltoAllTokenDispatcher,
// token_dispatcher.py): the fused router's scores, top-k and probabilities over tokens x experts; the
// permutation gathering each token's row once per chosen expert before the dispatch, and the unpermutation
// summing them back (weighted by the probabilities) after the combine; with several local experts behind an
// all-to-all, sort_chunks_by_idxs reorders the arrived rows from source-rank-major to expert-major before the
// experts and back after them. Each reads and writes every slot's row; their backwards are the mirror
// gathers and scatters. The flex dispatcher (DeepEP's or HybridEP's kernels) moves each row once: its
// dispatch sends a token once to every GPU holding one of its experts, which permutes the arrived rows
// into expert-major order itself (one permutation, priced here before the dispatch, and no
// sort_chunks_by_idxs), and its combine mirrors that. A latent MoE (TransformerConfig::moe_latent) projects
// its tokens down before the permutation and up after the unpermutation with linears replicated over the TP
// ranks (Megatron's "duplicated" fc1_latent_proj and fc2_latent_proj), so every row in between is
// latent-wide. The all-gather dispatcher (MoEAllGatherTokenDispatcher, Megatron-LM's default) moves no token
// to a chosen expert: it all-gathers the routing and every token of the rank's ETP x EP group, gathers the
// rows routed to its own experts out of them, scatters the experts' outputs back into a zeroed buffer of
// all the gathered tokens, and reduce-scatters that over the same ranks (priced as an ETP all-gather then an
// EP one, the same bytes per rank as one over both; and the mirror on the way back).
void moe_mlp(Steps& forward, Steps& backward, const TransformerConfig& m, const Dims& d) {
  const int tp = d.shard.tp, ep = d.shard.ep, etp = d.shard.expert_tp();
  const double dispatched = d.tokens / tp * m.experts_per_token * d.shard.capacity_factor;
  const double arriving = dispatched * etp;  // token slots this rank's experts process (after the ETP gather)
  const double ffn = m.moe_ffn_hidden > 0 ? m.moe_ffn_hidden : m.ffn_hidden;
  const double local_experts = static_cast<double>(m.experts) / ep;
  const double width = routed_expert_width(m);  // of every dispatched row
  const Gemm router{"moe.router", d.tokens / tp, static_cast<double>(m.experts), d.hidden};
  const Gemm down{"moe.fc1_latent_proj", d.tokens / tp, width, d.hidden};
  const Gemm up{"moe.fc2_latent_proj", d.tokens / tp, d.hidden, width};
  const Gemm fc1{"moe.experts.fc1", arriving, ffn / etp * gated(m), width, local_experts};
  const Gemm fc2{"moe.experts.fc2", arriving, width, ffn / etp, local_experts};
  const double slots = dispatched * width, elements = arriving * ffn / etp;
  const double scores = d.tokens / tp * static_cast<double>(m.experts);
  const TokenDispatcher dispatcher = d.shard.moe_dispatcher;
  const bool flex = dispatcher == TokenDispatcher::Flex, gather = dispatcher == TokenDispatcher::AllGather;
  const double gathered = d.tokens / tp * etp * ep;  // the all-gather dispatcher's rows, its group's tokens
  const bool sort_chunks = ep > 1 && local_experts > 1 && dispatcher == TokenDispatcher::AllToAll;
  const auto comm = [&](Steps& steps, const std::string& name, CollectiveKind kind) {
    const bool all_to_all = kind == CollectiveKind::AllToAll;
    if ((all_to_all ? ep : etp) == 1) return;
    steps.push_back(collective_step(
        name, kind, all_to_all ? LayerGroup::ExpertParallel : LayerGroup::ExpertTensorParallel,
        slots * d.e * (all_to_all ? 1 : etp)));
    if (all_to_all && flex)
      steps.back().node_dedup = {
          static_cast<std::uint16_t>(m.experts_per_token), static_cast<std::uint32_t>(m.experts),
          static_cast<std::uint32_t>(width * d.e), d.shard.moe_flex_backend == FlexBackend::HybridEP};
  };
  // MoEAlltoAllTokenDispatcher exchanges two small messages of its own besides the tokens (Megatron-Core's
  // token_dispatcher.py): dropless, each rank's token count per expert (int64), all-gathered over the EP
  // ranks in its preprocess (on the compute stream, before the permutation) for the split sizes the host
  // reads back at the sync point; and the dispatched rows' routing probabilities (fp32), all-to-all beside
  // the tokens on their stream, and their gradient's before the tokens' backward. The flex dispatcher
  // (DeepEP's and HybridEP's kernels) carries both inside its own dispatch. (Under expert-TP the counts go to
  // the ETP x EP ranks and the probabilities are gathered over ETP too; they are priced over the EP ranks.)
  const bool control_messages = ep > 1 && dispatcher == TokenDispatcher::AllToAll;
  const auto control = [&](Steps& steps, const std::string& name, CollectiveKind kind, double bytes) {
    if (!control_messages) return;
    steps.push_back(collective_step(name, kind, LayerGroup::ExpertParallel, bytes));
    steps.back().dispatcher_control = true;
  };
  const double probs_bytes = dispatched * 4;
  // A gather or scatter of `rows` dispatched rows: each read once and written once.
  const auto move_rows = [&](Steps& steps, const std::string& name, Pass pass, double rows) {
    steps.push_back(elementwise(name, ComputeKind::Elementwise, pass, d, rows * width, 1, 1, 1));
  };
  // The all-gather dispatcher's token and routing collectives: in (all-gathers over ETP, then EP) or out
  // (reduce-scatters over EP, then ETP), and the routing (fp32 probabilities and the boolean map over every
  // expert) gathered with the tokens, its gradient reduce-scattered back.
  const auto gather_tokens = [&](Steps& steps, const std::string& name, CollectiveKind kind) {
    const auto over_etp = [&] {
      if (etp > 1)
        steps.push_back(collective_step(name + ".etp", kind, LayerGroup::ExpertTensorParallel,
                                        d.tokens / tp * etp * width * d.e));
    };
    if (kind == CollectiveKind::AllGather) over_etp();
    if (ep > 1)
      steps.push_back(collective_step(name, kind, LayerGroup::ExpertParallel, gathered * width * d.e));
    if (kind == CollectiveKind::ReduceScatter) over_etp();
  };
  const auto gather_routing = [&](Steps& steps, const std::string& name, CollectiveKind kind) {
    if (ep == 1) return;
    steps.push_back(collective_step(
        name, kind, LayerGroup::ExpertParallel,
        gathered * static_cast<double>(m.experts) * (kind == CollectiveKind::AllGather ? 5 : 4)));
    steps.back().dispatcher_control = true;
  };
  const std::size_t router_forward = forward.size();
  gemm_forward(forward, router, d, d.shard.activation);
  forward.push_back(
      elementwise("moe.router.topk.fwd", ComputeKind::Softmax, Pass::Forward, d, scores, 1, 2, 5));
  mark_graph_region(forward, router_forward, kGraphMoeRouter);
  if (m.moe_latent > 0) gemm_forward(forward, down, d, d.shard.gemm);
  if (control_messages && !d.shard.moe_pad_to_capacity) {  // padded to capacity, the counts are known
    control(forward, "moe.token_counts_all_gather", CollectiveKind::AllGather, 8.0 * m.experts * ep);
    forward.back().on_compute_stream = true;
    forward.back().graph |= kGraphMoePreprocess;
  }
  if (gather) {
    gather_routing(forward, "moe.routing_all_gather", CollectiveKind::AllGather);
    gather_tokens(forward, "moe.dispatch_all_gather", CollectiveKind::AllGather);
  }
  move_rows(forward, "moe.permute.fwd", Pass::Forward, gather ? arriving : dispatched);
  forward.back().graph |= kGraphMoePreprocess;
  // Dropless: the all-to-all's split sizes and the grouped GEMM's rows per expert are read back to the host
  // (the dispatchers' cuda sync point before the dispatch, or the all-gather's count of the local rows).
  forward.back().host_waits = !d.shard.moe_pad_to_capacity;
  const std::size_t experts_forward = forward.size(), experts_backward = backward.size();
  Steps backward_clamp;  // the clamped activation's backward, after the activation's
  // The probabilities follow the tokens on their stream; issued here, just before them, the two still run
  // back to back and the combined 1F1B's dispatch piece still ends with the tokens.
  if (!gather) {
    control(forward, "moe.probs_all_to_all", CollectiveKind::AllToAll, probs_bytes);
    comm(forward, "moe.dispatch_all_to_all", CollectiveKind::AllToAll);
    comm(forward, "moe.tp_all_gather", CollectiveKind::AllGather);
  }
  if (sort_chunks) move_rows(forward, "moe.sort_chunks.fwd", Pass::Forward, arriving);
  const std::size_t fc1_forward = forward.size();
  gemm_forward(forward, fc1, d, d.shard.gemm);
  forward[fc1_forward].moe_layer_python = true;  // the layer's Python after the sync point (host_profile.h)
  const bool pytorch_experts = !d.shard.te_op_fuser;  // TEGroupedMLP's own code between the grouped GEMMs
  if (m.clamped_quick_geglu && pytorch_experts)
    clamp_activation_input(forward, backward_clamp, d, arriving, ffn / etp * gated(m));
  forward.push_back(elementwise("moe.experts.act.fwd", ComputeKind::Activation, Pass::Forward, d, elements,
                                m.gated_mlp ? 2 : 1, 1, m.gated_mlp ? 6 : 8));
  forward.back().recompute = kRecomputeMoeActivation;
  gemm_forward(forward, fc2, d, d.shard.gemm);
  if (m.bias && pytorch_experts) add_fc2_bias(forward, Pass::Forward, d, arriving, width, local_experts);
  if (sort_chunks) move_rows(forward, "moe.unsort_chunks.fwd", Pass::Forward, arriving);
  if (gather) {
    move_rows(forward, "moe.unpermute.fwd", Pass::Forward, gathered);  // into the zeroed gathered rows
    gather_tokens(forward, "moe.combine_reduce_scatter", CollectiveKind::ReduceScatter);
  } else {
    comm(forward, "moe.tp_reduce_scatter", CollectiveKind::ReduceScatter);
    comm(forward, "moe.combine_all_to_all", CollectiveKind::AllToAll);
    forward.push_back(
        elementwise("moe.unpermute.fwd", ComputeKind::Elementwise, Pass::Forward, d, slots, 1, 1, 1));
  }
  if (m.moe_latent > 0) gemm_forward(forward, up, d, d.shard.gemm);

  if (m.moe_latent > 0) {
    backward.push_back(gemm_data_grad(up, d, d.shard.gemm));
    gemm_weight_grad(backward, up, d, d.shard.gemm);
  }
  if (gather) {
    gather_tokens(backward, "moe.combine_reduce_scatter.bwd", CollectiveKind::AllGather);
    move_rows(backward, "moe.unpermute.bwd_data", Pass::BackwardData, arriving);
  } else {
    backward.push_back(elementwise("moe.unpermute.bwd_data", ComputeKind::Elementwise, Pass::BackwardData, d,
                                   slots, 1, 1, 1));
    comm(backward, "moe.combine_all_to_all.bwd", CollectiveKind::AllToAll);
    comm(backward, "moe.tp_all_gather.bwd", CollectiveKind::AllGather);
  }
  if (sort_chunks) move_rows(backward, "moe.unsort_chunks.bwd_data", Pass::BackwardData, arriving);
  if (m.bias && pytorch_experts)
    add_fc2_bias(backward, Pass::BackwardData, d, arriving, width, local_experts);
  row_parallel_backward(backward, fc2, d, d.shard.gemm);
  backward.push_back(elementwise("moe.experts.act.bwd_data", ComputeKind::Activation, Pass::BackwardData, d,
                                 elements, m.gated_mlp ? 3 : 2, m.gated_mlp ? 2 : 1, 12));
  backward.insert(backward.end(), backward_clamp.begin(), backward_clamp.end());
  backward.push_back(gemm_data_grad(fc1, d, d.shard.gemm));
  gemm_weight_grad(backward, fc1, d, d.shard.gemm);
  launch_per_local_expert(forward, experts_forward, local_experts);
  launch_per_local_expert(backward, experts_backward, local_experts);
  if (sort_chunks) move_rows(backward, "moe.sort_chunks.bwd_data", Pass::BackwardData, arriving);
  if (gather) {
    move_rows(backward, "moe.permute.bwd_data", Pass::BackwardData, gathered);  // into the gathered rows
    backward.back().graph |= kGraphMoePreprocess;
    gather_tokens(backward, "moe.dispatch_all_gather.bwd", CollectiveKind::ReduceScatter);
    gather_routing(backward, "moe.routing_all_gather.bwd", CollectiveKind::ReduceScatter);
  } else {
    comm(backward, "moe.tp_reduce_scatter.bwd", CollectiveKind::ReduceScatter);
    control(backward, "moe.probs_all_to_all.bwd", CollectiveKind::AllToAll, probs_bytes);
    comm(backward, "moe.dispatch_all_to_all.bwd", CollectiveKind::AllToAll);
    move_rows(backward, "moe.permute.bwd_data", Pass::BackwardData, dispatched);
    backward.back().graph |= kGraphMoePreprocess;
  }
  if (m.moe_latent > 0) {
    backward.push_back(gemm_data_grad(down, d, d.shard.gemm));
    gemm_weight_grad(backward, down, d, d.shard.gemm);
  }
  const std::size_t router_backward = backward.size();
  backward.push_back(
      elementwise("moe.router.topk.bwd_data", ComputeKind::Softmax, Pass::BackwardData, d, scores, 2, 1, 4));
  backward.push_back(gemm_data_grad(router, d, d.shard.activation));
  gemm_weight_grad(backward, router, d, d.shard.activation);
  mark_graph_region(backward, router_backward, kGraphMoeRouter);
  if (m.shared_experts > 0) {
    const std::size_t shared = forward.size(), shared_backward = backward.size();
    dense_mlp(forward, backward, m, d, ffn * m.shared_experts, "moe.shared", false);
    mark_recomputed(forward, shared, kRecomputeSharedExperts);
    // Megatron's moe_router graph holds the shared experts unless they overlap the all-to-alls.
    mark_graph_region(forward, shared, kGraphMoeRouter);
    mark_graph_region(backward, shared_backward, kGraphMoeRouter);
  }
}

}  // namespace simtrain::workload::layer_builders
