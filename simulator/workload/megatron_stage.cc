// The program of one pipeline stage of a Megatron-LM trace: the stage's schedule turned into kernels,
// tensor/expert-parallel collectives, ring-attention exchanges, pipeline sends and receives, and the
// data-parallel gradient reduction, parameter gathers and optimizer step.
#include "simulator/workload/megatron_stage.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "simulator/workload/attention_shape.h"
#include "simulator/workload/host_launch.h"
#include "simulator/workload/megatron_offload.h"
#include "simulator/workload/megatron_stage_host.h"

namespace simtrain::workload::megatron {
namespace {

enum Stream : std::uint8_t {
  kCompute,
  kTp,
  kEp,
  kDp,
  kRecvPrev,
  kSendNext,
  kRecvNext,
  kSendPrev,
  kCpSend,
  kCpRecv,
  // Parameter all-gathers (ZeRO-3 / FSDP units, the distributed optimizer's updated shards) have a stream of
  // their own, as FSDP's unshard stream is apart from its reduce-scatters: a prefetched gather does not
  // wait behind the previous unit's gradient reduction.
  kDpGather
};

// What ZeRO-3 gathers and a gradient bucket collects: the embedding, one layer, or the LM head.
struct Unit {
  const LayerSteps* steps = nullptr;
  PartParameters params;
  std::string name;
  bool layer = false;
  int index = -1;  // the decoder layer's, for a layer
};

// The chain of compute kernels a pass extends: what its next kernel waits for and its last kernels. A
// combined forward-and-backward step (--overlap-moe-expert-parallel-comm) keeps one per pass, so that each
// pass's kernels wait for its own collectives only.
struct Lane {
  std::vector<std::uint32_t> pending;   // ops the next kernel waits for
  std::vector<std::uint32_t> deferred;  // ops the kernel after next waits for
  std::optional<std::uint32_t> last_kernel;
  std::optional<std::uint32_t> previous_kernel;  // the kernel before last_kernel
  std::vector<std::uint32_t> gathering;  // userbuffers all-gathers the kernel after the next GEMM waits for
};

// One thing a pass appends when the builder reaches it: a kernel, a collective, a pipeline transfer or a
// gradient bucket. A pass is built as a list of these, so that it can run whole or in pieces alternating
// with another pass's.
struct Action {
  std::function<void()> emit;
  bool ends_piece = false;  // it issued an expert-parallel collective, which another pass's kernels may hide
};
using Pass = std::vector<Action>;

}  // namespace

const LayerSteps& LayerKinds::of(const TransformerConfig& model, int index) const {
  if (const char block = hybrid_block(model, index)) return hybrid.at(block);
  const bool is_moe = is_moe_layer(model, index);
  if (is_local_attention_layer(model, index)) return is_moe ? local_moe : local_dense;
  return is_moe ? moe : dense;
}

const LayerSteps& StagePlan::layer_steps(int index) const {
  const bool sixteen_bit =
      index < config->bf16_layers_at_start || index >= model->layers - config->bf16_layers_at_end;
  return (sixteen_bit ? bf16_layers : layers).of(*model, index);
}

const PartParameters& StagePlan::layer_params(int index) const {
  if (const char block = hybrid_block(*model, index)) return hybrid_params.at(block);
  return is_moe_layer(*model, index) ? moe_params : dense_params;
}

namespace {

class StageBuilder {
 public:
  StageBuilder(const StagePlan& plan, int stage) : plan_(plan), g_(plan.groups), stage_(stage) {
    program_.name = "stage" + std::to_string(stage);
    program_.streams.assign(std::begin(kStreamNames), std::end(kStreamNames));
    if (offload_.enabled()) {
      offload_stream_ = static_cast<std::uint8_t>(program_.streams.size());
      program_.streams.push_back("offload");
    }
    for (const PipelineStep& s : plan.order[static_cast<std::size_t>(stage)])
      if (!s.forward) last_backward_[static_cast<std::size_t>(s.chunk)] = s.micro_batch;
    const ParallelConfig& c = *plan.config;
    gather_under_forward_ =
        plan.shard_optimizer && !plan.shard_parameters && c.distributed_optimizer && c.overlap_param_gather;
    async_sends_ = plan.vpp > 1 && c.overlap_p2p_communication;
  }

  trace::Program build() {
    const std::vector<PipelineStep>& order = plan_.order[static_cast<std::size_t>(stage_)];
    for (std::size_t i = 0; i < order.size(); ++i) {
      if (combines(order, i)) {
        run_combined(forward_pass(order[i]), backward_pass(order[i + 1]));
        ++i;
      } else {
        run_pass(order[i].forward ? forward_pass(order[i]) : backward_pass(order[i]));
      }
    }
    finish();
    // A full-iteration CUDA graph replays the whole pass: the host launches nothing of it.
    if (plan_.config->host && plan_.config->cuda_graphs.impl != CudaGraphs::Impl::FullIteration)
      add_host_launches(program_, *plan_.config->host, host_.finish());
    return std::move(program_);
  }

 private:
  int virtual_stages() const { return plan_.pp * plan_.vpp; }
  // Tags are unique per (direction, micro-batch, sending virtual stage).
  int tag(bool forward, int micro_batch, int sender) const {
    return (micro_batch * virtual_stages() + sender) * 2 + (forward ? 0 : 1);
  }

  std::vector<Unit> units(int chunk) const {
    std::vector<Unit> list;
    const int first_layer = plan_.split.first(stage_, chunk);
    const int end_layer = first_layer + plan_.split.layers(stage_, chunk);
    if (chunk == 0 && stage_ == 0)
      list.push_back({&plan_.embedding, plan_.embedding_params, "embedding", false});
    for (int i = first_layer; i < end_layer; ++i)
      list.push_back({&plan_.layer_steps(i), plan_.layer_params(i), "layer" + std::to_string(i), true, i});
    if (chunk == plan_.vpp - 1 && stage_ == plan_.pp - 1)
      list.push_back({&plan_.lm_head, plan_.lm_head_params, "lm_head", false});
    return list;
  }

  std::uint32_t append(trace::Op op) {
    const bool send = op.stream == kSendNext || op.stream == kSendPrev;
    const bool receive = op.stream == kRecvPrev || op.stream == kRecvNext;
    host_.add(send ? PipelineRole::Send : receive ? PipelineRole::Receive : PipelineRole::None);
    return trace::append(program_, std::move(op));
  }

  // A virtual stage with no layer (an uneven split's) passes on what it received as soon as it arrives.
  std::vector<std::uint32_t> send_deps(const std::vector<Unit>& list) {
    if (!list.empty()) return after_last_kernel();
    std::vector<std::uint32_t> deps = std::move(lane_.pending);
    lane_.pending.clear();
    return deps;
  }

  std::vector<std::uint32_t> after_last_kernel() const {
    return lane_.last_kernel ? std::vector<std::uint32_t>{*lane_.last_kernel} : std::vector<std::uint32_t>{};
  }

  std::uint32_t kernel(std::string name, const trace::ComputeSpec& spec) {
    trace::Op op;
    op.name = std::move(name);
    op.stream = kCompute;
    op.deps = std::move(lane_.pending);
    op.compute = spec;
    lane_.previous_kernel = lane_.last_kernel;
    lane_.last_kernel = append(std::move(op));
    lane_.pending = std::move(lane_.deferred);
    lane_.deferred.clear();
    if (spec.kind == trace::ComputeKind::Gemm) {
      lane_.pending.insert(lane_.pending.end(), lane_.gathering.begin(), lane_.gathering.end());
      lane_.gathering.clear();
    }
    return *lane_.last_kernel;
  }

  std::uint32_t collective(std::string name, trace::CollectiveKind kind, double bytes, int group,
                           Stream stream, std::vector<std::uint32_t> deps,
                           trace::NodeDedupRouting node_dedup = {}) {
    trace::Op op;
    op.name = std::move(name);
    op.type = trace::OpType::Collective;
    op.stream = stream;
    op.deps = std::move(deps);
    op.collective = {kind, plan_.shard.activation, bytes, static_cast<std::uint16_t>(group), node_dedup};
    return append(std::move(op));
  }

  std::uint32_t p2p(std::string name, trace::OpType type, Stream stream, int group, int offset, int tag,
                    double bytes, std::vector<std::uint32_t> deps) {
    trace::Op op;
    op.name = std::move(name);
    op.type = type;
    op.stream = stream;
    op.deps = std::move(deps);
    op.p2p = {static_cast<std::uint16_t>(group), offset, bytes, tag};
    return append(std::move(op));
  }

  // A copy of decoder layer `layer`'s saved activations to or from the host on the offload stream, after the
  // kernels issued so far (megatron_offload.h).
  std::uint32_t host_copy(std::string name, trace::Pass pass, int layer) {
    return append(activation_copy(std::move(name), offload_stream_, pass, plan_.shard.activation,
                                  plan_.offload_bytes[static_cast<std::size_t>(layer)], after_last_kernel()));
  }

  // --overlap-moe-expert-parallel-comm: each forward-and-backward pair of the steady phase runs as one
  // combined step (Megatron-Core's combined 1F1B; warm-up and cool-down run alone). The schedule's extra
  // warm-up forward makes every such pair independent (pipeline_schedule.h), so neither waits for the other.
  bool combines(const std::vector<PipelineStep>& order, std::size_t i) const {
    return plan_.config->overlap_moe_expert_parallel_comm && order[i].forward && order[i].steady &&
           i + 1 < order.size() && !order[i + 1].forward && order[i + 1].steady &&
           order[i + 1].micro_batch != order[i].micro_batch;
  }

  void run_pass(const Pass& pass) {
    host_.begin_passes(1);
    for (const Action& action : pass) action.emit();
  }

  // The two passes' pieces in turn, forward first: while one pass's expert-parallel all-to-all is in flight
  // the other's kernels run, as Megatron-Core's combined 1F1B schedules a layer's dispatch and combine
  // against the other micro-batch's attention and experts. Each pass keeps its own lane; after the step the
  // kernels after it wait for what either left pending.
  void run_combined(const Pass& forward, const Pass& backward) {
    host_.begin_passes(2);
    Lane aside = lane_;  // the backward's, starting where the forward starts
    std::size_t next[2] = {0, 0};
    const Pass* passes[2] = {&forward, &backward};
    for (int turn = 0; next[0] < forward.size() || next[1] < backward.size(); turn ^= 1) {
      const Pass& pass = *passes[turn];
      std::size_t& i = next[turn];
      if (turn == 1) std::swap(lane_, aside);
      while (i < pass.size()) {
        const Action& action = pass[i++];
        action.emit();
        if (action.ends_piece) break;
      }
      if (turn == 1) std::swap(lane_, aside);
    }
    for (auto [into, from] : {std::pair{&lane_.pending, &aside.pending},
                              {&lane_.deferred, &aside.deferred},
                              {&lane_.gathering, &aside.gathering}})
      into->insert(into->end(), from->begin(), from->end());
    if (aside.last_kernel && (!lane_.last_kernel || *aside.last_kernel > *lane_.last_kernel)) {
      lane_.last_kernel = aside.last_kernel;
      lane_.previous_kernel = aside.previous_kernel;
    }
  }

  // Appends to `pass` every step of `steps`, or (a recomputation) those of the `only` submodules.
  void add_steps(Pass& pass, const std::vector<LayerStep>& steps, const std::string& prefix,
                 RecomputedSteps only = kEveryStep) {
    for (const LayerStep& step : steps) {
      if (!only.runs(step.recompute, step.recompute_only)) continue;
      const bool expert_parallel = step.type == LayerStep::Type::Collective && !step.chunked_with_gemm &&
                                   step.group == LayerGroup::ExpertParallel && !step.dispatcher_control;
      pass.push_back({[this, &step, prefix] { run_step(step, prefix); }, expert_parallel});
    }
  }

  void run_step(const LayerStep& step, const std::string& prefix) {
    const std::string region = host_.graph_region(step, prefix);
    const bool continues = host_.continues(region);
    if (step.type == LayerStep::Type::Kernel) {
      host_.set_step(kernel(prefix + step.name, step.kernel), step, region, continues);
    } else if (step.chunked_with_gemm) {
      chunked_collective(step, prefix);
    } else if (step.type == LayerStep::Type::Collective) {
      const bool expert_parallel = step.group == LayerGroup::ExpertParallel;
      const int group = expert_parallel                                  ? g_.ep
                        : step.group == LayerGroup::ExpertTensorParallel ? g_.etp
                                                                         : g_.tp;
      const Stream stream = expert_parallel && !step.on_compute_stream ? kEp : kTp;
      const std::uint32_t op = collective(prefix + step.name, step.collective, step.bytes, group, stream,
                                          after_last_kernel(), step.node_dedup);
      host_.set_step(op, step, region, continues);
      (step.overlaps_next_kernel ? lane_.deferred : lane_.pending).push_back(op);
    } else {
      ring_attention(step, prefix);
    }
  }

  // Transformer Engine's userbuffers. An all-gather exchanges the remote chunks while the next GEMM starts on
  // the local one; the kernel after that GEMM waits for it. A reduce-scatter sends the partial sums of the
  // previous GEMM's first tp - 1 chunks while it computes the rest, and the last chunk's after it.
  void chunked_collective(const LayerStep& step, const std::string& prefix) {
    const std::string name = prefix + step.name;
    if (step.collective == trace::CollectiveKind::AllGather) {
      lane_.gathering.push_back(
          collective(name, step.collective, step.bytes, g_.tp, kTp, after_last_kernel()));
      return;
    }
    const double tp = plan_.config->tp;
    std::vector<std::uint32_t> with_gemm = program_.ops[*lane_.last_kernel].deps;
    if (lane_.previous_kernel) with_gemm.push_back(*lane_.previous_kernel);
    const std::uint32_t under =
        collective(name + ".chunks", step.collective, step.bytes * (tp - 1) / tp, g_.tp, kTp, with_gemm);
    lane_.pending.push_back(collective(name + ".last_chunk", step.collective, step.bytes / tp, g_.tp, kTp,
                                       {*lane_.last_kernel, under}));
  }

  // cp rounds over the context-parallel ring: round r computes on the K/V chunk received in round r - 1
  // while the chunk moves on to the next rank.
  void ring_attention(const LayerStep& step, const std::string& prefix) {
    const int cp = plan_.config->cp;
    std::optional<std::uint32_t> received;
    for (int round = 0; round < cp; ++round) {
      std::optional<std::uint32_t> next;
      if (round + 1 < cp) {
        const std::string name = prefix + step.name + ".ring" + std::to_string(round);
        p2p(name + ".send", trace::OpType::Send, kCpSend, g_.cp, 1, 0, step.bytes,
            received ? std::vector<std::uint32_t>{*received} : after_last_kernel());
        next = p2p(name + ".recv", trace::OpType::Recv, kCpRecv, g_.cp, -1, 0, step.bytes, {});
      }
      if (received) lane_.pending.push_back(*received);
      kernel(prefix + step.name + ".round" + std::to_string(round), step.kernel);
      received = next;
    }
  }

  // ZeRO-3 / FSDP: the 16-bit parameters of a unit, gathered over the shard group (experts over edp).
  std::uint32_t gather(const Unit& unit, const std::string& prefix, std::vector<std::uint32_t> deps) {
    const double dense = unit.params.per_gpu - unit.params.expert_per_gpu;
    std::uint32_t op = collective(prefix + unit.name + ".param_all_gather", trace::CollectiveKind::AllGather,
                                  dense * plan_.param_bytes, g_.shard, kDpGather, deps);
    if (unit.params.expert_per_gpu > 0)
      op = collective(prefix + unit.name + ".expert_param_all_gather", trace::CollectiveKind::AllGather,
                      unit.params.expert_per_gpu * plan_.param_bytes, g_.edp, kDpGather, deps);
    return op;
  }

  // Appends the units of a pass (`body` appends one unit's actions), gathering each one's parameters one
  // unit ahead under ZeRO-3.
  template <typename Body>
  void add_units(Pass& pass, const std::shared_ptr<const std::vector<Unit>>& list, const std::string& prefix,
                 Body body) {
    struct Gathering {
      std::optional<std::uint32_t> gathered;
      std::size_t first_op = 0;  // the first op of the unit being built
    };
    auto state = std::make_shared<Gathering>();
    if (plan_.shard_parameters && !list->empty())
      pass.push_back({[this, state, list, prefix] { state->gathered = gather(list->front(), prefix, {}); }});
    for (std::size_t u = 0; u < list->size(); ++u) {
      pass.push_back({[this, state] {
        if (state->gathered) lane_.pending.push_back(*state->gathered);
        state->first_op = program_.ops.size();
      }});
      body(pass, (*list)[u], u);
      if (plan_.shard_parameters && u + 1 < list->size())
        pass.push_back({[this, state, list, prefix, u] {
          auto first = static_cast<std::uint32_t>(state->first_op);
          while (program_.ops[first].stream != kCompute) ++first;
          state->gathered = gather((*list)[u + 1], prefix, {first});
        }});
    }
  }

  // Receives a tensor from the neighbouring stage. Without sequence parallelism each TP rank sends and
  // receives its 1/tp slice and the TP group all-gathers the whole tensor over NVLink before using it
  // (Megatron-LM's scatter/gather optimisation, SC21 section 4.1).
  void receive(const std::string& name, Stream stream, int offset, int tag) {
    const std::uint32_t recv =
        p2p(name, trace::OpType::Recv, stream, g_.pp, offset, tag, plan_.p2p_bytes, {});
    const int tp = plan_.config->tp;
    if (tp > 1 && !plan_.config->sp)
      lane_.pending.push_back(collective(name + ".tp_all_gather", trace::CollectiveKind::AllGather,
                                         plan_.p2p_bytes * tp, g_.tp, kTp, {recv}));
    else
      lane_.pending.push_back(recv);
  }

  Pass forward_pass(const PipelineStep& s) {
    Pass pass;
    const int vs = s.chunk * plan_.pp + stage_;
    const std::string prefix = "mb" + std::to_string(s.micro_batch) + ".c" + std::to_string(s.chunk) + ".";
    if (vs > 0)
      pass.push_back({[this, s, vs, prefix] {
        receive(prefix + "recv_activation", kRecvPrev, -1, tag(true, s.micro_batch, vs - 1));
      }});
    const auto list = std::make_shared<const std::vector<Unit>>(units(s.chunk));
    auto gathered_before = std::make_shared<std::vector<std::vector<std::uint32_t>>>(list->size());
    pass.push_back({[this, s, list, gathered_before] {
      const auto chunk = static_cast<std::size_t>(s.chunk);
      if (!gather_under_forward_ || gathered_chunk_[chunk]) return;
      gathered_chunk_[chunk] = true;
      *gathered_before = gather_updated_parameters(*list, "c" + std::to_string(s.chunk) + ".");
    }});
    add_units(pass, list, prefix, [&](Pass& p, const Unit& unit, std::size_t u) {
      p.push_back({[this, gathered_before, u, s, &unit, list] {
        const std::vector<std::uint32_t>& gathers = (*gathered_before)[u];
        lane_.pending.insert(lane_.pending.end(), gathers.begin(), gathers.end());
        if (const auto layer = offload_.offload_awaited_by(unit.index))
          if (const auto copy = offload_.offload_op(s.micro_batch, *layer)) lane_.pending.push_back(*copy);
      }});
      add_steps(p, unit.steps->forward, prefix + unit.name + ".");
      if (unit.layer && offload_.offloads(unit.index))
        p.push_back({[this, s, &unit, prefix, list] {
          offload_.record_offload(
              s.micro_batch, unit.index,
              host_copy(prefix + unit.name + ".offload", trace::Pass::Forward, unit.index));
        }});
    });
    if (vs + 1 < virtual_stages())
      pass.push_back({[this, s, vs, prefix, list] {
        const std::uint32_t send = p2p(prefix + "send_activation", trace::OpType::Send, kSendNext, g_.pp, 1,
                                       tag(true, s.micro_batch, vs), plan_.p2p_bytes, send_deps(*list));
        if (!async_sends_) lane_.pending.push_back(send);
      }});
    return pass;
  }

  // --overlap-param-gather: the previous step's updated parameters, gathered in the buckets their gradients
  // were reduced in (add_to_bucket's bucketing, over the units in backward order) from the start of the step
  // on their own stream, in forward order; returns, per unit of `list`, the gathers its forward waits for
  // (a bucket is needed by its unit that comes first in forward order).
  std::vector<std::vector<std::uint32_t>> gather_updated_parameters(const std::vector<Unit>& list,
                                                                    const std::string& prefix) {
    struct ParamBucket {
      std::size_t first_unit;
      double parameters;
      int group;
    };
    std::vector<ParamBucket> buckets;
    for (const bool expert : {false, true}) {
      if ((expert ? plan_.expert_shards : plan_.data_shards) == 1) continue;
      double parameters = 0;
      const auto close = [&](std::size_t unit) {
        if (parameters > 0) buckets.push_back({unit, parameters, expert ? g_.edp : g_.dp});
        parameters = 0;
      };
      for (std::size_t i = list.size(); i-- > 0;) {
        const PartParameters& p = list[i].params;
        parameters += expert ? p.expert_per_gpu : p.per_gpu - p.expert_per_gpu;
        if (parameters >= plan_.bucket_parameters) close(i);
      }
      close(0);
    }
    std::stable_sort(buckets.begin(), buckets.end(),
                     [](const ParamBucket& a, const ParamBucket& b) { return a.first_unit < b.first_unit; });
    std::vector<std::vector<std::uint32_t>> before(list.size());
    for (const ParamBucket& b : buckets)
      before[b.first_unit].push_back(collective(
          prefix + "bucket" + std::to_string(param_buckets_++) + ".param_all_gather",
          trace::CollectiveKind::AllGather, b.parameters * plan_.param_bytes, b.group, kDpGather, {}));
    return before;
  }

  Pass backward_pass(const PipelineStep& s) {
    Pass pass;
    const int vs = s.chunk * plan_.pp + stage_;
    const std::string prefix = "mb" + std::to_string(s.micro_batch) + ".c" + std::to_string(s.chunk) + ".";
    const bool last_micro_batch = last_backward_[static_cast<std::size_t>(s.chunk)] == s.micro_batch;
    const bool reduce =
        !plan_.shard_parameters && (last_micro_batch || plan_.shard_gradients_each_micro_batch);
    pass.push_back({[this, last_micro_batch] { last_micro_batch_ = last_micro_batch; }});
    if (vs + 1 < virtual_stages())
      pass.push_back({[this, s, vs, prefix] {
        receive(prefix + "recv_grad", kRecvNext, 1, tag(false, s.micro_batch, vs + 1));
      }});
    std::vector<Unit> reversed = units(s.chunk);
    std::reverse(reversed.begin(), reversed.end());
    const auto list = std::make_shared<const std::vector<Unit>>(std::move(reversed));
    const RecomputedSteps recomputed = recomputed_steps(*plan_.config);
    add_units(pass, list, prefix, [&](Pass& p, const Unit& unit, std::size_t) {
      const std::string name = prefix + unit.name + ".";
      if (unit.layer && offload_.enabled())
        p.push_back({[this, s, &unit, prefix, list] {
          if (const auto layer = offload_.reload_started_by(unit.index)) {
            const std::string reloaded = prefix + "layer" + std::to_string(*layer) + ".reload";
            offload_.record_reload(s.micro_batch, *layer,
                                   host_copy(reloaded, trace::Pass::BackwardData, *layer));
          }
          if (const auto reload = offload_.reload_op(s.micro_batch, unit.index))
            lane_.pending.push_back(*reload);
        }});
      if (unit.layer && recomputed.any &&
          recomputes_layer(*plan_.config, plan_.split, stage_, s.chunk, unit.index))
        add_steps(p, unit.steps->forward, name + "recompute.", recomputed);
      add_steps(p, unit.steps->backward, name);
      p.push_back({[this, &unit, name, prefix, last_micro_batch, reduce, list] {
        const std::uint32_t done = *lane_.last_kernel;
        if (last_micro_batch && !unit.layer && g_.embd >= 0) tied_grad_ready_ = done;
        if (plan_.shard_parameters) {
          reduce_scatter_unit(unit, name, done, last_micro_batch);
        } else if (reduce) {
          add_to_bucket(dense_, unit.params.per_gpu - unit.params.expert_per_gpu, done, g_.dp, prefix);
          add_to_bucket(expert_, unit.params.expert_per_gpu, done, g_.edp, prefix);
        }
      }});
    });
    pass.push_back({[this, prefix] {
      flush(dense_, g_.dp, prefix);
      flush(expert_, g_.edp, prefix);
    }});
    if (vs > 0)
      pass.push_back({[this, s, vs, prefix, list] {
        const std::uint32_t send = p2p(prefix + "send_grad", trace::OpType::Send, kSendPrev, g_.pp, -1,
                                       tag(false, s.micro_batch, vs), plan_.p2p_bytes, send_deps(*list));
        if (!async_sends_) lane_.pending.push_back(send);
      }});
    return pass;
  }

  // Gradient buckets: parameters accumulate in backward order until a bucket is full.
  struct Bucket {
    double parameters = 0;
    std::uint32_t ready = 0;
  };

  void add_to_bucket(Bucket& bucket, double parameters, std::uint32_t ready, int group,
                     const std::string& name) {
    if (parameters <= 0) return;
    bucket.parameters += parameters;
    bucket.ready = ready;
    if (bucket.parameters >= plan_.bucket_parameters) flush(bucket, group, name);
  }

  void flush(Bucket& bucket, int group, const std::string& prefix) {
    if (bucket.parameters <= 0) return;
    const int ranks = group == g_.dp ? plan_.data_shards : plan_.expert_shards;
    if (ranks == 1) {  // nothing to reduce with
      bucket = {};
      return;
    }
    const std::string name = prefix + "bucket" + std::to_string(buckets_++) + ".";
    Reduction reduction{
        name + (plan_.shard_optimizer ? "grad_reduce_scatter" : "grad_all_reduce"),
        plan_.shard_optimizer ? trace::CollectiveKind::ReduceScatter : trace::CollectiveKind::AllReduce,
        bucket.parameters * plan_.grad_bytes, group};
    // Without overlap the buckets wait for the end of the backward pass (finish()).
    if (plan_.config->overlap_grad_reduce || plan_.shard_gradients_each_micro_batch)
      reductions_.push_back(
          collective(reduction.name, reduction.kind, reduction.bytes, reduction.group, kDp, {bucket.ready}));
    else
      after_backward_.push_back(std::move(reduction));
    // The updated parameters are gathered once per step, bucket by bucket (ZeRO 2 reduces every micro-batch).
    if (plan_.shard_optimizer && last_micro_batch_ && !gather_under_forward_)
      gathers_.push_back({bucket.parameters, group});
    bucket = {};
  }

  void reduce_scatter_unit(const Unit& unit, const std::string& name, std::uint32_t done,
                           bool last_micro_batch) {
    const double dense = unit.params.per_gpu - unit.params.expert_per_gpu;
    reductions_.push_back(collective(name + "grad_reduce_scatter", trace::CollectiveKind::ReduceScatter,
                                     dense * plan_.grad_bytes, g_.shard, kDp, {done}));
    if (unit.params.expert_per_gpu > 0)
      reductions_.push_back(collective(name + "expert_grad_reduce_scatter",
                                       trace::CollectiveKind::ReduceScatter,
                                       unit.params.expert_per_gpu * plan_.grad_bytes, g_.edp, kDp, {done}));
    // Hybrid shard: the reduced shard is then all-reduced across the replicas, once per step.
    if (g_.replicate >= 0 && last_micro_batch)
      reductions_.push_back(collective(name + "grad_replica_all_reduce", trace::CollectiveKind::AllReduce,
                                       dense * plan_.grad_bytes / plan_.data_shards, g_.replicate, kDp,
                                       {reductions_.back()}));
  }

  void finish() {
    for (const Reduction& r : after_backward_)
      reductions_.push_back(collective(r.name, r.kind, r.bytes, r.group, kDp, after_last_kernel()));
    // The tied word-embedding and LM-head copies sum their gradients once both stages are done.
    if (g_.embd >= 0 && tied_grad_ready_) {
      const double parameters = plan_.embedding_params.per_gpu;
      reductions_.push_back(collective("tied_embedding_grad_all_reduce", trace::CollectiveKind::AllReduce,
                                       parameters * plan_.grad_bytes, g_.embd, kDp, {*tied_grad_ready_}));
    }
    double dense = 0, expert = 0;
    const auto count = [&](const PipelineStep& s) {
      if (!s.forward || s.micro_batch != 0) return;
      for (const Unit& unit : units(s.chunk)) {
        dense += unit.params.per_gpu - unit.params.expert_per_gpu;
        expert += unit.params.expert_per_gpu;
      }
    };
    for (const PipelineStep& s : plan_.order[static_cast<std::size_t>(stage_)]) count(s);
    const double local =
        plan_.shard_optimizer ? dense / plan_.data_shards + expert / plan_.expert_shards : dense + expert;
    lane_.pending.insert(lane_.pending.end(), reductions_.begin(), reductions_.end());
    const std::uint32_t optimizer = kernel("optimizer.step", optimizer_step(plan_, local));
    for (std::size_t b = 0; b < gathers_.size(); ++b)
      collective("bucket" + std::to_string(b) + ".param_all_gather", trace::CollectiveKind::AllGather,
                 gathers_[b].parameters * plan_.param_bytes, gathers_[b].group, kDpGather, {optimizer});
  }

  struct Gather {
    double parameters;
    int group;
  };
  struct Reduction {
    std::string name;
    trace::CollectiveKind kind;
    double bytes;
    int group;
  };

  const StagePlan& plan_;
  const GroupIds& g_;
  int stage_;
  trace::Program program_;
  // What the host does for each op of program_. Megatron-LM batches the sends and receives it does not
  // overlap (batch_p2p_comm = not overlap_p2p_comm), as Megatron-Bridge does for PP > 1 without virtual
  // stages: the 1F1B schedule's batches are a pass's send and the next pass's receive, which this builder
  // issues one after the other, and a device synchronisation follows each. Interleaved without overlap,
  // Megatron's batches hold the receives of passes further on, which this builder posts ahead of the host; a
  // synchronisation would then wait on those: not modelled.
  StageHostLaunches host_{*plan_.config, /*sync_after_p2p=*/plan_.vpp == 1 && plan_.config->batch_p2p_sync,
                          /*early_receives=*/plan_.vpp > 1 && !plan_.config->overlap_p2p_communication};
  std::vector<int> last_backward_ = std::vector<int>(static_cast<std::size_t>(plan_.vpp), -1);
  Lane lane_;  // the pass being built; under a combined step, the forward's while the backward's is aside
  bool gather_under_forward_ = false;     // --overlap-param-gather with the distributed optimizer
  std::vector<bool> gathered_chunk_ = std::vector<bool>(static_cast<std::size_t>(plan_.vpp), false);
  int param_buckets_ = 0;
  bool async_sends_ = false;  // interleaved schedule with --overlap-p2p-communication
  ActivationOffload offload_{plan_.model->layers, static_cast<int>(plan_.offload_bytes.size())};
  std::uint8_t offload_stream_ = 0;
  std::optional<std::uint32_t> tied_grad_ready_;
  Bucket dense_, expert_;
  int buckets_ = 0;
  bool last_micro_batch_ = false;  // of the backward being built
  std::vector<std::uint32_t> reductions_;
  std::vector<Gather> gathers_;
  std::vector<Reduction> after_backward_;  // gradient buckets reduced once the backward pass is over
};

}  // namespace

double optimizer_bytes_per_parameter(const StagePlan& plan) {
  const double fp32 = 4, grad = plan.grad_bytes, param = plan.param_bytes;
  const bool loss_scaling = plan.config->precision == Precision::AMP_FP16;
  double bytes = 28;                        // Adam
  if (grad < fp32) bytes += grad + fp32;    // 16-bit gradients copied into fp32
  if (loss_scaling) bytes += 2 * fp32;      // unscale and inf/NaN check: read and write
  bytes += fp32;                            // gradient norm (--clip-grad): read
  if (param < fp32) bytes += fp32 + param;  // fp32 master weights into the 16-bit parameters
  bytes += grad;                            // zero the gradient buffer
  return bytes;
}

trace::ComputeSpec optimizer_step(const StagePlan& plan, double parameters) {
  trace::ComputeSpec step;
  step.kind = trace::ComputeKind::Optimizer;
  step.pass = trace::Pass::Update;
  step.dtype = DType::FP32;
  step.flops = 12 * parameters;
  step.bytes = optimizer_bytes_per_parameter(plan) * parameters;
  step.shape = {static_cast<std::int64_t>(parameters)};
  return step;
}

trace::Program build_stage_program(const StagePlan& plan, int stage) {
  return StageBuilder(plan, stage).build();
}

}  // namespace simtrain::workload::megatron
