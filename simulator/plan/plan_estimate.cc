// Implements plan_estimate.h: prices a StagePlan's layer steps with the cost tables and the collective
// model, then assembles the critical stage's iteration from the schedule's closed forms.
#include "simulator/plan/plan_estimate.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "common/error.h"
#include "simulator/cost/nccl_channels.h"
#include "simulator/workload/megatron_offload.h"
#include "simulator/workload/megatron_stage.h"
#include "simulator/workload/megatron_trace.h"
#include "simulator/workload/parallel_memory.h"
#include "simulator/workload/precision.h"

namespace simtrain::plan {
namespace {

using workload::LayerGroup;
using workload::LayerStep;
using workload::megatron::LayerKinds;
using workload::megatron::StagePlan;

// The communicators of rank 0 in Megatron's layout (megatron_trace.h): tensor-parallel rank fastest, then
// context, data, pipeline; expert groups carved out of the data-parallel ranks.
struct Communicators {
  std::vector<int> tp, cp, dp, ep, edp, shard, replicate;
  int next_stage = 0;  // rank 0's pipeline neighbour
  int last_stage = 0;  // the rank of equal coordinates on the last stage (tied embeddings)
};

Communicators communicators(const StagePlan& plan, int dp) {
  const workload::ParallelConfig& c = *plan.config;
  const int dcp = dp * c.cp;
  Communicators g;
  g.tp = strided_ranks(0, c.tp, 1);
  g.cp = strided_ranks(0, c.cp, c.tp);
  g.dp = strided_ranks(0, dcp, c.tp);  // data-parallel index j = dp_rank * cp + cp_rank sits at j * tp
  g.ep = strided_ranks(0, c.ep, c.tp);
  g.edp = strided_ranks(0, std::max(1, dcp / c.ep), c.tp * c.ep);
  g.shard = strided_ranks(0, plan.data_shards, c.tp);
  if (plan.data_shards < dcp) g.replicate = strided_ranks(0, dcp / plan.data_shards, c.tp * plan.data_shards);
  g.next_stage = c.tp * c.cp * dp;
  g.last_stage = (c.pp - 1) * g.next_stage;
  return g;
}

// One pass (forward, backward or recomputation) of a part of the model for one micro-batch.
struct PassCost {
  double compute_s = 0;
  ExposedCommunication exposed;
  double total_s() const { return compute_s + exposed.total_s(); }
  PassCost& operator+=(const PassCost& other) {
    compute_s += other.compute_s;
    exposed.tp_s += other.exposed.tp_s;
    exposed.cp_s += other.exposed.cp_s;
    exposed.ep_s += other.exposed.ep_s;
    exposed.pp_s += other.exposed.pp_s;
    exposed.dp_s += other.exposed.dp_s;
    return *this;
  }
  PassCost scaled(double factor) const {
    PassCost out;
    out.compute_s = compute_s * factor;
    out.exposed = {exposed.tp_s * factor, exposed.cp_s * factor, exposed.ep_s * factor, exposed.pp_s * factor,
                   exposed.dp_s * factor};
    return out;
  }
};

class Pricer {
 public:
  Pricer(const EstimateContext& context, const Communicators& groups, int cp)
      : context_(context), groups_(groups), cp_(cp) {}

  double kernel_s(const trace::ComputeSpec& kernel) const {
    return context_.compute->cost(kernel).duration_s;
  }

  // Every step, or (a recomputation) those of the `only` submodules.
  PassCost pass(const std::vector<LayerStep>& steps,
                workload::RecomputedSteps only = workload::kEveryStep) const {
    PassCost cost;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const LayerStep& step = steps[i];
      if (!only.runs(step.recompute, step.recompute_only)) continue;
      if (step.type == LayerStep::Type::Kernel) {
        cost.compute_s += kernel_s(step.kernel);
      } else if (step.type == LayerStep::Type::Collective) {
        const bool tp = step.group == LayerGroup::TensorParallel;
        double exposed = context_.network->collective_s(step.collective, step.bytes,
                                                        tp ? groups_.tp : groups_.ep, step.node_dedup);
        if (step.chunked_with_gemm) {
          exposed = chunked_exposed_s(steps, i, exposed);
        } else if (step.overlaps_next_kernel) {
          // An asynchronous collective hides under the next kernel, which does not need it.
          for (std::size_t j = i + 1; j < steps.size(); ++j)
            if (steps[j].type == LayerStep::Type::Kernel) {
              exposed = std::max(0.0, exposed - kernel_s(steps[j].kernel));
              break;
            }
        }
        (tp ? cost.exposed.tp_s : cost.exposed.ep_s) += exposed;
      } else {
        // cp rounds; each chunk's transfer runs under the previous round's kernel, at the pace of the
        // ring's slowest hop (across nodes when the ring spans them).
        const double round_s = kernel_s(step.kernel);
        const double hop_s = context_.network->ring_step_s(step.bytes, groups_.cp);
        cost.compute_s += cp_ * round_s;
        cost.exposed.cp_s += (cp_ - 1) * std::max(0.0, hop_s - round_s);
      }
    }
    return cost;
  }

 private:
  // Userbuffers (megatron_stage.cc's chunked_collective): an all-gather hides under the next GEMM; a
  // reduce-scatter's first tp - 1 chunks under the previous GEMM, its last chunk not.
  double chunked_exposed_s(const std::vector<LayerStep>& steps, std::size_t at, double collective_s) const {
    const bool gather = steps[at].collective == trace::CollectiveKind::AllGather;
    for (std::size_t j = at; gather ? ++j < steps.size() : j-- > 0;) {
      if (steps[j].type != LayerStep::Type::Kernel || steps[j].kernel.kind != trace::ComputeKind::Gemm)
        continue;
      const double gemm_s = kernel_s(steps[j].kernel);
      if (gather) return std::max(0.0, collective_s - gemm_s);
      const double tp = static_cast<double>(groups_.tp.size());
      return std::max(0.0, collective_s * (tp - 1) / tp - gemm_s) + collective_s / tp;
    }
    return collective_s;
  }

  const EstimateContext& context_;
  const Communicators& groups_;
  int cp_;
};

// Micro-batch forward and backward (recomputation included) of the stage holding `layers` layers, of which
// a fraction `moe_share` are MoE layers, plus the embedding and/or LM head.
struct StageCost {
  PassCost forward, backward;
  double dense_parameters = 0, expert_parameters = 0;  // per GPU, before ZeRO sharding
};

StageCost stage_cost(const StagePlan& plan, const Pricer& price, double layers, double moe_share, bool first,
                     bool last) {
  StageCost s;
  const auto add_layer = [&](const workload::LayerSteps& steps, const workload::PartParameters& params,
                             double n) {
    if (n <= 0) return;
    const workload::RecomputedSteps recomputed = workload::recomputed_steps(*plan.config);
    s.forward += price.pass(steps.forward).scaled(n);
    PassCost backward = price.pass(steps.backward);
    if (recomputed.any)
      backward += price.pass(steps.forward, recomputed)
                      .scaled(workload::recomputed_layer_share(*plan.config, layers));
    s.backward += backward.scaled(n);
    s.dense_parameters += n * (params.per_gpu - params.expert_per_gpu);
    s.expert_parameters += n * params.expert_per_gpu;
  };
  // Megatron's --first-last-layers-bf16 layers are the first rank's first and the last rank's last.
  const double sixteen_bit = std::min(layers, (first ? plan.config->bf16_layers_at_start : 0.0) +
                                                  (last ? plan.config->bf16_layers_at_end : 0.0));
  const auto add_layers = [&](const LayerKinds& kinds, double n) {
    add_layer(kinds.dense, plan.dense_params, n * (1 - moe_share));
    if (moe_share > 0) add_layer(kinds.moe, plan.moe_params, n * moe_share);
  };
  add_layers(plan.layers, layers - sixteen_bit);
  add_layers(plan.bf16_layers, sixteen_bit);
  const auto add_part = [&](const workload::LayerSteps& steps, const workload::PartParameters& params) {
    s.forward += price.pass(steps.forward);
    s.backward += price.pass(steps.backward);
    s.dense_parameters += params.per_gpu - params.expert_per_gpu;
    s.expert_parameters += params.expert_per_gpu;
  };
  if (first) add_part(plan.embedding, plan.embedding_params);
  if (last) add_part(plan.lm_head, plan.lm_head_params);
  return s;
}

// What a stage's gradient reduction (`total_s` in `buckets` buckets on one stream) leaves exposed after its
// last backward ends. Each of the vpp model chunks reduces its share once its last micro-batch's backward
// has produced it, bucket by bucket as layers finish. On the first stage the interleaved schedule's cool-down
// runs the chunks' last backwards in reverse chunk order, pp micro-batches apart: chunk c's ends c x pp
// chunk backwards (`chunk_backward_s` each) before the stage's last, so the higher chunks' reductions hide
// under the lower chunks' backwards. Without interleaving: what the last backward does not hide, and at
// least the last bucket.
double overlapped_reduction_s(double total_s, double buckets, int vpp, int pp, double chunk_backward_s) {
  if (total_s <= 0) return 0;
  const double per_chunk_s = total_s / vpp;
  const double last_bucket_s = total_s / buckets;
  double stream_free = -1e300, end = 0;
  for (int chunk = vpp - 1; chunk >= 0; --chunk) {
    const double chunk_done = -chunk * pp * chunk_backward_s;  // relative to the stage's last backward
    const double start = std::max(stream_free, chunk_done - chunk_backward_s);
    end = std::max(start + per_chunk_s, chunk_done + last_bucket_s);
    stream_free = end;
  }
  return std::max(0.0, end);
}

// What ZeRO-3 / FSDP's gathers and reduce-scatters cost a micro-batch beyond its kernels.
struct ShardedParametersCost {
  double wait_s = 0;    // compute waiting for gathers, and the reduce-scatters' tail
  double slowed_s = 0;  // compute lengthened by the collectives holding SMs beside it
};

// ZeRO-3 / FSDP, per micro-batch, as the trace generator orders it (megatron_stage.cc, for_units): each unit
// (the embedding, every layer, the LM head) gathers its parameters on the "dp_gather" stream, one unit ahead
// (the gather of unit u + 1 is issued when unit u's compute starts), and each unit's gradients are
// reduce-scattered on the "dp" stream once its backward ends. A unit's compute waits for its gather; the
// gathers queue behind each other, the reduce-scatters too, and what the last ones leave after backward's
// compute waits in full. Returns the waiting and the compute's slowdown, forward and backward together.
ShardedParametersCost sharded_parameters_cost(const StagePlan& plan, const Pricer& price,
                                              const Communicators& g, const NetworkEstimate& net,
                                              double layers, double comm_sm_fraction) {
  struct Unit {
    double forward_s = 0, backward_s = 0, gather_s = 0, scatter_s = 0;
  };
  const auto unit = [&](const workload::LayerSteps& steps, const workload::PartParameters& params,
                        bool layer) {
    Unit u;
    u.forward_s = price.pass(steps.forward).total_s();
    u.backward_s = price.pass(steps.backward).total_s();
    const workload::RecomputedSteps recomputed = workload::recomputed_steps(*plan.config);
    if (layer && recomputed.any)
      u.backward_s += price.pass(steps.forward, recomputed).total_s() *
                      workload::recomputed_layer_share(*plan.config, layers);
    const double dense = params.per_gpu - params.expert_per_gpu, expert = params.expert_per_gpu;
    u.gather_s = net.collective_s(trace::CollectiveKind::AllGather, dense * plan.param_bytes, g.shard) +
                 net.collective_s(trace::CollectiveKind::AllGather, expert * plan.param_bytes, g.edp);
    u.scatter_s = net.collective_s(trace::CollectiveKind::ReduceScatter, dense * plan.grad_bytes, g.shard) +
                  net.collective_s(trace::CollectiveKind::ReduceScatter, expert * plan.grad_bytes, g.edp);
    return u;
  };
  std::vector<Unit> units = {unit(plan.embedding, plan.embedding_params, false)};
  const Unit dense_layer = unit(plan.layers.dense, plan.dense_params, true);
  const Unit moe_layer = plan.model->experts > 0 ? unit(plan.layers.moe, plan.moe_params, true) : dense_layer;
  for (int i = 0; i < static_cast<int>(layers); ++i)
    units.push_back(workload::is_moe_layer(*plan.model, i) ? moe_layer : dense_layer);
  if (plan.pp == 1) units.push_back(unit(plan.lm_head, plan.lm_head_params, false));

  // One pass: how long its units' compute waits for gathers, plus (backward) the reduce-scatters' tail
  // beyond the last compute, and how much longer the compute runs beside them. Gathers and reduce-scatters
  // cross the same links, so in backward they share the bandwidth: they are queued on one network timeline
  // in the order they are issued (the gather of unit i + 1 as unit i's compute starts, unit i's
  // reduce-scatter as it ends), which takes as long in all as sharing the links would. While a collective
  // runs it holds `comm_sm_fraction` of the SMs, as the engine replays it (replay_state.h): a unit's kernels
  // lose that share of the time the network is busy beside them. In backward a gather and a reduce-scatter
  // of g and r seconds alone run at once; across nodes they share the links, so both hold SMs 2 min(g, r)
  // seconds longer in all than the one queue's g + r (inside a node each takes its own time).
  const bool links_shared = net.crosses_nodes(g.shard) || net.crosses_nodes(g.edp);
  const auto pass_cost = [comm_sm_fraction, links_shared](const std::vector<Unit>& order, bool backward) {
    std::vector<std::pair<double, double>> busy;  // the network's collectives, in time order
    std::size_t first_busy = 0;
    const auto busy_within_s = [&](double from, double to) {
      while (first_busy < busy.size() && busy[first_busy].second <= from) ++first_busy;
      double s = 0;
      for (std::size_t k = first_busy; k < busy.size() && busy[k].first < to; ++k)
        s += std::max(0.0, std::min(to, busy[k].second) - std::max(from, busy[k].first));
      return s;
    };
    double compute_end = 0, network_end = 0, compute_total = 0, slowed_total = 0;
    double gather_end = order.empty() ? 0 : order[0].gather_s;
    network_end = gather_end;
    busy.emplace_back(0.0, gather_end);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Unit& u = order[i];
      const double start = std::max(compute_end, gather_end);
      if (i + 1 < order.size()) {
        const double issued = std::max(start, network_end);
        gather_end = issued + order[i + 1].gather_s;
        busy.emplace_back(issued, gather_end);
        network_end = gather_end;
      }
      const double compute_s = backward ? u.backward_s : u.forward_s;
      const double shared = backward && links_shared && u.gather_s + u.scatter_s > 0
                                ? 1 + 2 * std::min(u.gather_s, u.scatter_s) / (u.gather_s + u.scatter_s)
                                : 1;
      const double slowed_s =
          std::min(compute_s, comm_sm_fraction * shared * busy_within_s(start, start + compute_s));
      compute_end = start + compute_s + slowed_s;
      compute_total += compute_s;
      slowed_total += slowed_s;
      if (backward) {
        const double issued = std::max(network_end, compute_end);
        network_end = issued + u.scatter_s;
        busy.emplace_back(issued, network_end);
      }
    }
    const double end = std::max(compute_end, backward ? network_end : 0.0);
    return ShardedParametersCost{end - compute_total - slowed_total, slowed_total};
  };
  std::vector<Unit> reversed(units.rbegin(), units.rend());
  const ShardedParametersCost forward = pass_cost(units, false), backward = pass_cost(reversed, true);
  return {forward.wait_s + backward.wait_s, forward.slowed_s + backward.slowed_s};
}

// The share of a GPU's SMs NCCL's kernels hold while a collective runs, one per network channel, at most
// half (the engine's comm_sm_fraction, engine/replay.cc).
double comm_sm_fraction(const EstimateContext& context) {
  if (!context.comm_sms) return 0;
  const int sms = context.compute->profile().device.sm_count;
  const int channels = cost::nccl_collective_channels(context.network->network_channels(), 0);
  return sms > 0 ? std::min(0.5, std::max(0, channels) / static_cast<double>(sms)) : 0.0;
}

// Gradient reduction, parameter gathers and the optimizer step of one stage, after its last backward.
struct DataParallelCost {
  double exposed_s = 0;
  double optimizer_s = 0;
  // The kernels beside the gathers and reduce-scatters, slowed by the SMs those hold (comm_sm_fraction).
  double slowed_compute_s = 0;
};

DataParallelCost data_parallel_cost(const StagePlan& plan, const StageCost& stage, const Communicators& g,
                                    const EstimateContext& context, const Pricer& price, double layers,
                                    double chunk_backward_s) {
  const workload::ParallelConfig& c = *plan.config;
  const NetworkEstimate& net = *context.network;
  DataParallelCost out;
  const double dense = stage.dense_parameters, expert = stage.expert_parameters;
  const trace::CollectiveKind reduce =
      plan.shard_optimizer ? trace::CollectiveKind::ReduceScatter : trace::CollectiveKind::AllReduce;
  if (plan.shard_parameters) {
    const ShardedParametersCost sharded =
        sharded_parameters_cost(plan, price, g, net, layers, comm_sm_fraction(context));
    out.exposed_s = plan.micro_batches * sharded.wait_s;
    out.slowed_compute_s = plan.micro_batches * sharded.slowed_s;
    if (!g.replicate.empty())
      out.exposed_s += net.collective_s(trace::CollectiveKind::AllReduce,
                                        dense * plan.grad_bytes / plan.data_shards, g.replicate);
  } else {
    // Buckets of bucket_parameters, reduced as the last micro-batch's backward produces them.
    const auto reduction_s = [&](double parameters, const std::vector<int>& members) {
      if (parameters <= 0 || members.size() < 2) return 0.0;
      const double buckets = std::max(1.0, std::ceil(parameters / plan.bucket_parameters));
      return buckets * net.collective_s(reduce, parameters / buckets * plan.grad_bytes, members);
    };
    const double total_s = reduction_s(dense, g.dp) + reduction_s(expert, g.edp);
    const double buckets = std::max(1.0, std::ceil((dense + expert) / plan.bucket_parameters));
    double exposed = total_s;
    if (c.overlap_grad_reduce || plan.shard_gradients_each_micro_batch)
      exposed = overlapped_reduction_s(total_s, buckets, c.vpp, c.pp, chunk_backward_s);
    // What runs beside the backward's kernels holds SMs there (comm_sm_fraction).
    double beside_compute_s = total_s - exposed;
    // ZeRO-2 reduce-scatters after every micro-batch, each hidden under the next micro-batch's work.
    if (plan.shard_gradients_each_micro_batch) {
      exposed += (plan.micro_batches - 1) * std::max(0.0, total_s - c.vpp * chunk_backward_s);
      beside_compute_s += (plan.micro_batches - 1) * std::min(total_s, c.vpp * chunk_backward_s);
    }
    out.exposed_s = exposed;
    if (plan.shard_optimizer) {
      const auto gather_s = [&](double parameters, const std::vector<int>& members) {
        if (parameters <= 0 || members.size() < 2) return 0.0;
        const double n = std::max(1.0, std::ceil(parameters / plan.bucket_parameters));
        return n *
               net.collective_s(trace::CollectiveKind::AllGather, parameters / n * plan.param_bytes, members);
      };
      const double gathers_s = gather_s(dense, g.dp) + gather_s(expert, g.edp);
      // --overlap-param-gather: under the first micro-batch's forward passes, but for the first bucket.
      if (c.distributed_optimizer && c.overlap_param_gather) {
        const double buckets = std::max(1.0, std::ceil((dense + expert) / plan.bucket_parameters));
        const double gathers_exposed_s = std::max(gathers_s / buckets, gathers_s - stage.forward.compute_s);
        out.exposed_s += gathers_exposed_s;
        beside_compute_s += gathers_s - gathers_exposed_s;
      } else {
        out.exposed_s += gathers_s;
      }
    }
    out.slowed_compute_s = comm_sm_fraction(context) * beside_compute_s;
  }
  if (plan.model->tied_embeddings && c.pp > 1)
    out.exposed_s += net.collective_s(trace::CollectiveKind::AllReduce,
                                      plan.embedding_params.per_gpu * plan.grad_bytes, {0, g.last_stage});
  const double local =
      plan.shard_optimizer ? dense / plan.data_shards + expert / plan.expert_shards : dense + expert;
  out.optimizer_s = context.compute->cost(workload::megatron::optimizer_step(plan, local)).duration_s;
  return out;
}

}  // namespace

double offloaded_copies_s(int layers, double copies_s, double forward_s, double backward_s) {
  const double overlapped = std::max(0, layers - 2);
  return std::max(0.0, copies_s - overlapped * forward_s) + std::max(0.0, copies_s - overlapped * backward_s);
}

PlanEstimate estimate_plan(const workload::ParallelConfig& config, const EstimateContext& context) {
  const workload::TransformerConfig& model = *context.model;
  const StagePlan plan = workload::megatron::make_stage_plan(model, config);
  const int dp = config.data_parallel_size();
  const Communicators groups = communicators(plan, dp);
  const Pricer price(context, groups, config.cp);

  // The first and last stages carry the embedding and the LM head; the slowest stage paces the pipeline.
  // Under an uneven split (pipeline_split.h) each stage holds its own layer count; the local-attention
  // layers (a sliding window, chunks) of a model that alternates are priced as full-attention ones (an
  // overestimate).
  const double share = workload::moe_layer_share(model);
  double layers = plan.split.stage_layers(0);
  StageCost stage = stage_cost(plan, price, layers, share, true, config.pp == 1);
  for (int s = 1; s < config.pp; ++s) {
    const double stage_layers = plan.split.stage_layers(s);
    const StageCost other = stage_cost(plan, price, stage_layers, share, false, s == config.pp - 1);
    if (other.forward.total_s() + other.backward.total_s() >
        stage.forward.total_s() + stage.backward.total_s()) {
      stage = other;
      layers = stage_layers;
    }
  }

  // Pipeline: each micro-batch's chunk receives, runs and sends on; sends block the next kernel. Without
  // sequence parallelism the TP group all-gathers what each rank received.
  double p2p_s = 0;
  if (config.pp > 1) {
    p2p_s = context.network->send_s(plan.p2p_bytes, 0, groups.next_stage);
    if (config.tp > 1 && !config.sp)
      p2p_s += context.network->collective_s(trace::CollectiveKind::AllGather, plan.p2p_bytes * config.tp,
                                             groups.tp);
  }
  const double m = plan.micro_batches, v = config.vpp;
  // Interleaved with --overlap-p2p-communication, sends do not block: a transfer shows only where it
  // outlasts the chunk's compute it runs under.
  if (v > 1 && config.overlap_p2p_communication)
    p2p_s = std::max(0.0, p2p_s - std::min(stage.forward.compute_s, stage.backward.compute_s) / v);
  const double micro_batch_s = stage.forward.total_s() + stage.backward.total_s() + 2 * v * p2p_s;
  const double warm_up =
      config.schedule == workload::PipelineSchedule::Interleaved ? (config.pp - 1) / v : config.pp - 1.0;
  const double bubble_s = warm_up * micro_batch_s;

  // The chunks' last backwards hide the gradient reduction they overlap (overlapped_reduction_s).
  const DataParallelCost dp_cost =
      data_parallel_cost(plan, stage, groups, context, price, layers, stage.backward.total_s() / v);

  PlanEstimate e;
  e.compute_s = m * (stage.forward.compute_s + stage.backward.compute_s) + dp_cost.optimizer_s +
                dp_cost.slowed_compute_s;
  e.bubble_s = bubble_s;
  const PassCost per_step = [&] {
    PassCost total = stage.forward;
    total += stage.backward;
    return total.scaled(m);
  }();
  e.exposed = per_step.exposed;
  e.exposed.pp_s += m * 2 * v * p2p_s;
  e.exposed.dp_s += dp_cost.exposed_s;
  if (!plan.offload_bytes.empty()) {
    // Offloading runs without a pipeline (parallel_config.cc): the one stage holds every layer.
    double copies_s = 0;
    for (double bytes : plan.offload_bytes)
      copies_s += context.compute
                      ->cost(workload::megatron::activation_copy("offload", 0, trace::Pass::Forward,
                                                                 plan.shard.activation, bytes, {})
                                 .compute)
                      .duration_s;
    e.offload_s =
        m * offloaded_copies_s(model.layers, copies_s, stage.forward.total_s() / std::max(1.0, layers),
                               stage.backward.total_s() / std::max(1.0, layers));
  }
  e.iteration_time_s = e.compute_s + e.bubble_s + e.exposed.total_s() + e.offload_s;
  const double global_batch = m * config.micro_batch * dp;
  e.tokens_per_iteration = global_batch * config.seq_len;
  e.model_flops = workload::megatron_model_flops(model, config.seq_len, global_batch);
  const double peak = context.compute->profile().peak_flops(workload::matmul_dtype(config.precision));
  if (peak > 0) e.mfu = e.model_flops / (e.iteration_time_s * config.gpus * peak);
  e.memory_bytes = workload::estimate_parallel_memory(model, config, config.seq_len, dp).total_bytes();
  return e;
}

}  // namespace simtrain::plan
