// Implements kineto_import.h: per rank, choose the step window, time the host between launches, turn each
// launched GPU activity into an op of its stream, then add DDP's buckets, FSDP's gathers and reductions, or
// the recorded collectives.
#include "simulator/trace/kineto_import.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/trace/ddp_buckets.h"
#include "simulator/trace/fsdp_units.h"
#include "simulator/trace/host_dispatch.h"
#include "simulator/trace/kernel_class.h"

namespace simtrain::trace {
namespace {

// When a trace has too few back-to-back kernels to measure the GPU's gap between them: the median of the
// H200 traces in traces/pytorch/ (1.2-1.5 µs).
constexpr double kDefaultKernelGap_s = 1.3e-6;
constexpr std::size_t kMinGapSamples = 16;
constexpr std::size_t kMaxStreams = 255;  // one more for the host
// The shortest a kernel gets when FSDP shards the optimizer's work over many ranks: its launch and tail.
constexpr double kMinShardedKernel_s = 2e-6;

struct Window {
  double start_us = 0;
  double end_us = 0;
};

Window choose_window(const KinetoTrace& t, const ImportOptions& options, ImportReport& report) {
  if (t.steps.empty()) {
    if (options.step)
      throw Error(t.origin, 0, "",
                  fmt::format("--step {}: the trace has no ProfilerStep windows", *options.step));
    report.warnings.push_back(t.origin + ": no ProfilerStep#N window; the whole trace is taken as one step");
    Window w{1e300, -1e300};
    for (const auto& op : t.cpu_ops)
      w.start_us = std::min(w.start_us, op.start_us), w.end_us = std::max(w.end_us, op.end_us());
    for (const auto& c : t.runtime_calls)
      w.start_us = std::min(w.start_us, c.start_us), w.end_us = std::max(w.end_us, c.end_us());
    for (const auto& a : t.gpu_activities)
      w.start_us = std::min(w.start_us, a.start_us), w.end_us = std::max(w.end_us, a.end_us());
    if (w.end_us < w.start_us)
      throw Error(t.origin, 0, "traceEvents", "no operators, runtime calls or kernels");
    w.end_us = std::nextafter(w.end_us, 1e300);  // the window is half-open: keep the last event
    return w;
  }
  if (options.step) {
    for (const KinetoStep& s : t.steps)
      if (s.number == *options.step) return {s.start_us, s.end_us};
    std::string numbers;
    for (const KinetoStep& s : t.steps) numbers += (numbers.empty() ? "" : ", ") + std::to_string(s.number);
    throw Error(t.origin, 0, "",
                fmt::format("--step {}: no ProfilerStep#{} window (the trace has {})", *options.step,
                            *options.step, numbers));
  }
  // The last window: the profiler's warm-up is behind it, so it is the steady state.
  return {t.steps.back().start_us, t.steps.back().end_us};
}

bool is_host_sync(const std::string& name) {
  return name == "cudaStreamSynchronize" || name == "cudaDeviceSynchronize" ||
         name == "cudaEventSynchronize" || name == "cudaMemcpy" || name == "cuStreamSynchronize" ||
         name == "cuCtxSynchronize" || name == "cuEventSynchronize" || name == "cuMemcpyDtoH_v2";
}

bool is_nccl_kernel(const std::string& name) {
  return name.starts_with("ncclKernel") || name.starts_with("ncclDevKernel") ||
         name.starts_with("void ncclKernel") || name.starts_with("void ncclDevKernel");
}

bool parse_collective(const std::string& name, CollectiveKind& kind) {
  if (name.find("allreduce") != std::string::npos || name.find("all_reduce") != std::string::npos)
    kind = CollectiveKind::AllReduce;
  else if (name.find("allgather") != std::string::npos || name.find("all_gather") != std::string::npos)
    kind = CollectiveKind::AllGather;
  else if (name.find("reduce_scatter") != std::string::npos ||
           name.find("reducescatter") != std::string::npos)
    kind = CollectiveKind::ReduceScatter;
  else if (name.find("alltoall") != std::string::npos || name.find("all_to_all") != std::string::npos)
    kind = CollectiveKind::AllToAll;
  else if (name.find("broadcast") != std::string::npos)
    kind = CollectiveKind::Broadcast;
  else if (name == "reduce" || name == "_reduce_oop")
    kind = CollectiveKind::Reduce;
  else
    return false;
  return true;
}

double comm_element_bytes(const std::string& dtype) {
  if (dtype == "Float" || dtype == "Int") return 4;
  if (dtype == "Half" || dtype == "BFloat16") return 2;
  if (dtype == "Double" || dtype == "Long") return 8;
  if (dtype == "Byte" || dtype == "Char" || dtype == "Bool" || dtype.starts_with("Float8")) return 1;
  return 4;
}

DType comm_dtype(const std::string& dtype) {
  if (dtype == "Half") return DType::FP16;
  if (dtype == "BFloat16") return DType::BF16;
  if (dtype.starts_with("Float8")) return DType::FP8;
  return DType::FP32;
}

// The median gap between back-to-back activities of one stream that were queued (launched before their
// predecessor ended): the GPU's own cost of starting a kernel, which the recorded durations leave out.
double kernel_gap_s(const KinetoTrace& t,
                    const std::unordered_map<std::int64_t, const KinetoRuntimeCall*>& launch) {
  std::map<std::int64_t, const KinetoGpuActivity*> previous;
  std::vector<double> gaps;
  for (const KinetoGpuActivity& a : t.gpu_activities) {
    const KinetoGpuActivity*& prev = previous[a.stream];
    if (prev) {
      const auto it = launch.find(a.correlation);
      if (it != launch.end() && it->second->end_us() < prev->end_us() - 1 &&
          a.kind == GpuActivityKind::Kernel)
        gaps.push_back(std::max(0.0, a.start_us - prev->end_us()));
    }
    prev = &a;
  }
  if (gaps.size() < kMinGapSamples) return kDefaultKernelGap_s;
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  return std::min(gaps[gaps.size() / 2] * 1e-6, 20e-6);
}

std::string short_name(const std::string& name) {
  return name.size() <= 96 ? name : name.substr(0, 93) + "...";
}

// What one rank's file gives: its program, and facts for the metadata.
struct RankImport {
  Program program;
  int rank = 0;
  double gpu_busy_s = 0;
  double host_work_s = 0;
  double flops = 0;
  std::map<DType, double> flops_by_dtype;
  double batch = 0;
  double tokens = 0;
  bool has_collectives = false;
};

// Communicators met in any rank's record_param_comms, by their rank lists.
struct GroupTable {
  std::map<std::vector<int>, std::uint16_t> index;
  std::vector<CommunicatorGroup> groups;

  std::uint16_t group_of(const std::vector<int>& ranks, const std::string& pg_name,
                         const std::string& origin) {
    const auto it = index.find(ranks);
    if (it != index.end()) return it->second;
    if (groups.size() >= 65535) throw Error(origin, 0, "", "more than 65535 process groups");
    groups.push_back({"pg" + (pg_name.empty() ? std::to_string(groups.size()) : pg_name) + "." +
                          std::to_string(groups.size()),
                      {ranks}});
    return index[ranks] = static_cast<std::uint16_t>(groups.size() - 1);
  }
};

// The batch (and tokens) of a step: the first image convolution's or token embedding's leading dimension.
void infer_batch(const KinetoCpuOp& op, RankImport& out) {
  if (out.batch > 0) return;
  if (op.name == "aten::conv2d" && !op.input_dims.empty() && op.input_dims[0].size() == 4) {
    out.batch = static_cast<double>(op.input_dims[0][0]);
  } else if (op.name == "aten::embedding" && op.input_dims.size() > 1 && op.input_dims[1].size() == 2) {
    out.batch = static_cast<double>(op.input_dims[1][0]);
    out.tokens = out.batch * static_cast<double>(op.input_dims[1][1]);
  }
}

class RankBuilder {
 public:
  RankBuilder(const KinetoTrace& t, const ImportOptions& options, ImportReport& report, GroupTable& groups)
      : t_(t), options_(options), report_(report), groups_(groups) {}

  RankImport build(int ddp_ranks) {
    const Window window = choose_window(t_, options_, report_);
    for (const KinetoRuntimeCall& c : t_.runtime_calls) launch_of_.emplace(c.correlation, &c);
    boundaries_ = boundaries_in(window);
    for (const Boundary& b : boundaries_) {
      boundary_times_.push_back(b.call->start_us);
      if (!b.activity) continue;
      launches_.push_back(&b);
      launching_threads_.insert(b.call->thread);
    }
    check_every_activity_launched(window);
    if (launches_.empty())
      throw Error(t_.origin, 0, "traceEvents", "the step has no GPU kernels, copies or memsets");
    collect_step_facts(window);
    std::vector<double> work = host_work_in(window, boundary_times_);
    if (!options_.step) take_floor_of_other_windows(window, work);
    for (double w : work) out_.host_work_s += w;
    for (const Boundary& b : boundaries_)
      if (b.activity) out_.gpu_busy_s += b.activity->duration_us * 1e-6;
    double fraction = kDefaultHostSpeedFraction / options_.host_speed;
    if (options_.host_step_time_s > 0)
      fraction = calibrate_speed_fraction(out_.host_work_s, out_.gpu_busy_s, options_.host_step_time_s);
    gap_s_ = kernel_gap_s(t_, launch_of_);
    if (ddp_ranks > 0 && options_.sharding == DataParallelSharding::Fsdp)
      plan_fsdp_units();
    else if (ddp_ranks > 0)
      buckets_ = plan_ddp_buckets(gradients_ready(), options_.ddp_bucket_bytes);
    ranks_ = ddp_ranks;
    emit_ops(work, fraction);
    return std::move(out_);
  }

 private:
  // A launch or a host synchronisation, in host order.
  struct Boundary {
    const KinetoRuntimeCall* call = nullptr;
    const KinetoGpuActivity* activity = nullptr;  // null for a synchronisation
    OperatorStack launchers;
  };

  // The window's launches and synchronisations, each with the operators enclosing it on its thread.
  std::vector<Boundary> boundaries_in(const Window& window) const {
    std::unordered_map<std::int64_t, const KinetoGpuActivity*> activity_of;
    for (const KinetoGpuActivity& a : t_.gpu_activities) activity_of.emplace(a.correlation, &a);
    std::vector<Boundary> boundaries;
    std::map<std::int64_t, std::vector<const KinetoCpuOp*>> open;  // per thread, by a sweep in start order
    std::size_t next_op = 0;
    for (const KinetoRuntimeCall& c : t_.runtime_calls) {
      if (c.start_us < window.start_us || c.start_us >= window.end_us) continue;
      const auto found = activity_of.find(c.correlation);
      const bool launches = found != activity_of.end();
      if (!launches && !is_host_sync(c.name)) continue;
      for (; next_op < t_.cpu_ops.size() && t_.cpu_ops[next_op].start_us <= c.start_us; ++next_op) {
        const KinetoCpuOp& op = t_.cpu_ops[next_op];
        auto& stack = open[op.thread];
        while (!stack.empty() && stack.back()->end_us() <= op.start_us) stack.pop_back();
        stack.push_back(&op);
      }
      auto& stack = open[c.thread];
      while (!stack.empty() && stack.back()->end_us() <= c.start_us) stack.pop_back();
      boundaries.push_back({&c, launches ? found->second : nullptr, stack});
    }
    return boundaries;
  }

  void check_every_activity_launched(const Window& window) {
    for (const KinetoGpuActivity& a : t_.gpu_activities) {
      if (a.start_us < window.start_us || a.start_us >= window.end_us) continue;
      if (!launch_of_.contains(a.correlation))
        throw Error(t_.origin, 0, fmt::format("traceEvents[{}] ('{}')", a.event, short_name(a.name)),
                    fmt::format("no CUDA runtime call launched it (correlation {})", a.correlation));
    }
  }

  // What the step says beyond its timeline: the gradients (for DDP) and the batch.
  void collect_step_facts(const Window& window) {
    for (const KinetoCpuOp& op : t_.cpu_ops) {
      if (op.start_us < window.start_us || op.start_us >= window.end_us) continue;
      // A gradient may be stolen without a kernel, on a thread that launches nothing.
      if (op.name == "torch::autograd::AccumulateGrad") accumulate_grads_.push_back(&op);
      if (launching_threads_.contains(op.thread)) infer_batch(op, out_);
    }
  }

  // The profiled host work between the window's boundaries (host_dispatch.h), on the launching threads.
  std::vector<double> host_work_in(const Window& window, const std::vector<double>& boundary_times) const {
    std::vector<HostEvent> events;
    for (const KinetoCpuOp& op : t_.cpu_ops)
      if (op.start_us >= window.start_us && op.start_us < window.end_us &&
          launching_threads_.contains(op.thread))
        events.push_back({op.start_us, op.end_us(), op.thread});
    for (const KinetoRuntimeCall& c : t_.runtime_calls)
      if (c.start_us >= window.start_us && c.start_us < window.end_us &&
          launching_threads_.contains(c.thread))
        events.push_back({c.start_us, c.end_us(), c.thread});
    std::sort(events.begin(), events.end(), [](const HostEvent& a, const HostEvent& b) {
      return a.start_us < b.start_us || (a.start_us == b.start_us && a.end_us > b.end_us);
    });
    return host_work_per_stretch(events, boundary_times, window.start_us, window.end_us);
  }

  // The profiler's noise (a descheduled thread, a garbage collection) only ever adds host time, so where
  // other ProfilerStep windows launched the same kernels in the same order, each stretch's host work is
  // the least any window took.
  void take_floor_of_other_windows(const Window& chosen, std::vector<double>& work) const {
    for (const KinetoStep& step : t_.steps) {
      const Window other{step.start_us, step.end_us};
      if (other.start_us == chosen.start_us) continue;
      const std::vector<Boundary> boundaries = boundaries_in(other);
      if (boundaries.size() != boundaries_.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < boundaries.size() && same; ++i)
        same = (boundaries[i].activity == nullptr) == (boundaries_[i].activity == nullptr) &&
               (!boundaries[i].activity || boundaries[i].activity->name == boundaries_[i].activity->name);
      if (!same) continue;
      std::vector<double> times;
      for (const Boundary& b : boundaries) times.push_back(b.call->start_us);
      const std::vector<double> other_work = host_work_in(other, times);
      for (std::size_t i = 0; i < work.size(); ++i) work[i] = std::min(work[i], other_work[i]);
    }
  }

  // The step's gradients in the order they became ready, each ready after the last activity launched before
  // its AccumulateGrad ended; sets backward_end_ to the first activity after the last of them.
  std::vector<GradientReady> gradients_ready() {
    std::vector<GradientReady> gradients;
    for (const KinetoCpuOp* op : accumulate_grads_) {
      if (op->input_dims.empty() || op->input_types.empty()) continue;
      double elements = 1;
      for (std::int64_t d : op->input_dims[0]) elements *= static_cast<double>(d);
      GradientReady g;
      g.bytes = elements * std::max(1.0, element_bytes(op->input_types[0]));
      if (!dtype_of_profiler_type(op->input_types[0], g.dtype)) g.dtype = DType::FP32;
      const auto after = std::upper_bound(launches_.begin(), launches_.end(), op->end_us(),
                                          [](double t, const Boundary* b) { return t < b->call->start_us; });
      if (after == launches_.begin()) continue;
      g.ready_after = static_cast<std::size_t>(after - launches_.begin()) - 1;
      gradients.push_back(g);
      backward_end_ = std::max(backward_end_, g.ready_after + 1);
    }
    if (gradients.empty())
      throw Error(t_.origin, 0, "",
                  "scaling out as DDP or FSDP needs the step's gradients (torch::autograd::AccumulateGrad "
                  "operators with record_shapes), and the trace has none");
    std::stable_sort(gradients.begin(), gradients.end(), [](const GradientReady& a, const GradientReady& b) {
      return a.ready_after < b.ready_after;
    });
    return gradients;
  }

  // FSDP's units, with their backward and forward spans among the step's activities.
  void plan_fsdp_units() {
    const std::vector<GradientReady> gradients = gradients_ready();
    // Backward starts with the first activity the autograd engine launched.
    std::size_t backward_start = launches_.size();
    for (std::size_t i = 0; i < launches_.size() && backward_start == launches_.size(); ++i)
      for (const KinetoCpuOp* op : launches_[i]->launchers)
        if (op->name.starts_with("autograd::engine::evaluate_function")) {
          backward_start = i;
          break;
        }
    if (backward_start >= gradients.front().ready_after + 1)
      throw Error(t_.origin, 0, "",
                  "scaling out as FSDP needs the step's backward pass (autograd::engine::evaluate_function "
                  "operators before its first gradient), and the trace has none");
    units_ = trace::plan_fsdp_units(gradients, options_.fsdp_min_unit_params, backward_start);
    std::vector<double> seconds;
    for (const Boundary* b : launches_) seconds.push_back(b->activity->duration_us * 1e-6);
    place_fsdp_forward(units_, seconds, backward_start);
  }

  std::uint8_t stream_index(const std::string& name) {
    const auto it = stream_of_.find(name);
    if (it != stream_of_.end()) return it->second;
    if (out_.program.streams.size() > kMaxStreams)
      throw Error(t_.origin, 0, "", fmt::format("more than {} CUDA streams", kMaxStreams));
    out_.program.streams.push_back(name);
    return stream_of_[name] = static_cast<std::uint8_t>(out_.program.streams.size() - 1);
  }

  std::uint32_t add(Op op) {
    const std::uint32_t index = append(out_.program, std::move(op));
    last_on_stream_[out_.program.ops[index].stream] = index;
    return index;
  }

  std::uint32_t add_host_op(double seconds) {
    Op op;
    op.name = "host";
    op.stream = stream_index("host");
    op.compute.kind = ComputeKind::Host;
    op.compute.duration_s = seconds;
    op.deps = std::move(host_waits_);
    host_waits_.clear();
    return add(std::move(op));
  }

  // A collective when the activity is an NCCL kernel that c10d's record_param_comms launched.
  bool as_collective(const Boundary& b, Op& op) {
    if (!is_nccl_kernel(b.activity->name)) return false;
    for (auto it = b.launchers.rbegin(); it != b.launchers.rend(); ++it) {
      const KinetoCpuOp& comm = **it;
      if (comm.collective.empty()) continue;
      CollectiveKind kind;
      if (!parse_collective(comm.collective, kind) || comm.process_group_ranks.size() < 2) return false;
      const double size = comm_element_bytes(comm.comm_dtype);
      const double elements = kind == CollectiveKind::AllGather ? comm.out_elements : comm.in_elements;
      op.type = OpType::Collective;
      op.collective.kind = kind;
      op.collective.dtype = comm_dtype(comm.comm_dtype);
      op.collective.bytes = std::max(1.0, elements * size);
      op.collective.group = groups_.group_of(comm.process_group_ranks, comm.process_group_name, t_.origin);
      out_.has_collectives = true;
      return true;
    }
    return false;
  }

  Op fsdp_collective(std::string name, CollectiveKind kind, const FsdpUnit& unit, const char* stream,
                     std::uint32_t after) {
    Op op;
    op.name = std::move(name);
    op.type = OpType::Collective;
    op.stream = stream_index(stream);
    op.deps = {after};
    op.collective.kind = kind;
    op.collective.dtype = unit.dtype;
    op.collective.bytes = unit.bytes;
    op.collective.group = 0;
    return op;
  }

  // FSDP's parameter all-gathers that the host issues just before launching activity `ordinal`, and the
  // one that activity waits for. Forward gathers each unit as the host reaches it; backward prefetches the
  // next unit's parameters as the host starts a unit (BACKWARD_PRE), and the root unit, first in backward,
  // was never freed.
  void add_fsdp_gathers(std::size_t ordinal, std::uint32_t host, Op& activity) {
    for (std::size_t u = units_.size(); u-- > 0;) {
      if (units_[u].forward_first == ordinal) {
        const std::uint32_t gather =
            add(fsdp_collective(fmt::format("fsdp unit {} forward all-gather", u), CollectiveKind::AllGather,
                                units_[u], "nccl:fsdp-gather", host));
        activity.deps.push_back(gather);
      }
      if (units_[u].backward_first == ordinal && u + 1 < units_.size())
        backward_gathers_[u + 1] =
            add(fsdp_collective(fmt::format("fsdp unit {} backward all-gather", u + 1),
                                CollectiveKind::AllGather, units_[u + 1], "nccl:fsdp-gather", host));
      if (units_[u].backward_first == ordinal && backward_gathers_.contains(u))
        activity.deps.push_back(backward_gathers_[u]);
    }
  }

  void emit_ops(const std::vector<double>& work, double fraction) {
    stream_index("host");
    std::size_t launch_ordinal = 0;
    std::vector<std::uint32_t> reductions;  // DDP's all-reduces or FSDP's reduce-scatters
    std::size_t next_bucket = 0;
    std::size_t next_sync = 0;
    for (std::size_t i = 0; i < boundaries_.size(); ++i) {
      const Boundary& b = boundaries_[i];
      const std::uint32_t host = add_host_op(work[i] * fraction);
      // Streams told to wait on another stream's event before this point.
      for (; next_sync < t_.syncs.size() && t_.syncs[next_sync].start_us <= b.call->start_us; ++next_sync) {
        const KinetoSync& s = t_.syncs[next_sync];
        if (s.stream < 0 || s.wait_on_stream < 0 || s.stream == s.wait_on_stream) continue;
        const auto waited = stream_of_.find("cuda:" + std::to_string(s.wait_on_stream));
        if (waited != stream_of_.end() && last_on_stream_.contains(waited->second))
          stream_waits_["cuda:" + std::to_string(s.stream)].push_back(last_on_stream_[waited->second]);
      }
      if (!b.activity) {
        // The host waits here for everything launched so far.
        for (const auto& [stream, last] : last_on_stream_)
          if (out_.program.streams[stream] != "host") host_waits_.push_back(last);
        continue;
      }
      const std::string stream_name = "cuda:" + std::to_string(b.activity->stream);
      Op op;
      op.stream = stream_index(stream_name);
      op.name = short_name(b.launchers.empty() ? b.activity->name : b.launchers.back()->name);
      op.deps.push_back(host);
      if (auto waits = stream_waits_.find(stream_name); waits != stream_waits_.end()) {
        op.deps.insert(op.deps.end(), waits->second.begin(), waits->second.end());
        stream_waits_.erase(waits);
      }
      add_fsdp_gathers(launch_ordinal, host, op);
      if (!as_collective(b, op)) {
        op.compute = classify_activity(*b.activity, b.launchers);
        op.compute.duration_s = b.activity->duration_us * 1e-6;
        // Under FSDP, what follows backward (unscaling, clipping, the optimizer) touches the local shard.
        if (!units_.empty() && launch_ordinal >= backward_end_)
          op.compute.duration_s =
              std::max(op.compute.duration_s / ranks_, std::min(op.compute.duration_s, kMinShardedKernel_s));
        op.compute.duration_s += gap_s_;
        if (op.compute.kind == ComputeKind::Gemm || op.compute.kind == ComputeKind::Conv ||
            op.compute.kind == ComputeKind::Attention) {
          out_.flops += op.compute.flops;
          out_.flops_by_dtype[op.compute.dtype] += op.compute.flops;
        }
      }
      // The first activity after backward waits for the gradients' reductions, as DDP's finalize and FSDP's
      // post-backward callback make it.
      if (!reductions.empty() && launch_ordinal == backward_end_)
        op.deps.insert(op.deps.end(), reductions.begin(), reductions.end());
      const std::uint32_t index = add(std::move(op));
      for (std::size_t u = 0; u < units_.size(); ++u)
        if (units_[u].ready_after == launch_ordinal)
          reductions.push_back(
              add(fsdp_collective(fmt::format("fsdp unit {} reduce-scatter", u),
                                  CollectiveKind::ReduceScatter, units_[u], "nccl:fsdp-reduce", index)));
      for (; next_bucket < buckets_.size() && buckets_[next_bucket].ready_after == launch_ordinal;
           ++next_bucket) {
        Op reduce;
        reduce.name =
            fmt::format("ddp bucket {} ({} gradients)", next_bucket, buckets_[next_bucket].gradients);
        reduce.type = OpType::Collective;
        reduce.stream = stream_index("nccl:ddp");
        reduce.deps = {index};
        reduce.collective.kind = CollectiveKind::AllReduce;
        reduce.collective.dtype = buckets_[next_bucket].dtype;
        reduce.collective.bytes = buckets_[next_bucket].bytes;
        reduce.collective.group = 0;
        reductions.push_back(add(std::move(reduce)));
      }
      ++launch_ordinal;
    }
    add_host_op(work.back() * fraction);
  }

  const KinetoTrace& t_;
  const ImportOptions& options_;
  ImportReport& report_;
  GroupTable& groups_;
  RankImport out_;
  std::unordered_map<std::int64_t, const KinetoRuntimeCall*> launch_of_;
  std::vector<Boundary> boundaries_;
  std::vector<double> boundary_times_;
  std::vector<const Boundary*> launches_;
  std::unordered_set<std::int64_t> launching_threads_;
  std::vector<const KinetoCpuOp*> accumulate_grads_;
  std::vector<DdpBucket> buckets_;
  std::vector<FsdpUnit> units_;
  std::map<std::size_t, std::uint32_t> backward_gathers_;  // by unit, prefetched before the unit's backward
  std::size_t backward_end_ = 0;
  int ranks_ = 0;
  double gap_s_ = kDefaultKernelGap_s;
  std::map<std::string, std::uint8_t> stream_of_;
  std::map<std::uint8_t, std::uint32_t> last_on_stream_;
  std::map<std::string, std::vector<std::uint32_t>> stream_waits_;
  std::vector<std::uint32_t> host_waits_;
};

std::string model_name(const std::string& origin) {
  std::string name = origin.substr(origin.find_last_of('/') + 1);
  for (const char* suffix : {".gz", ".json", ".pt.trace"})
    if (name.size() > std::string(suffix).size() && name.ends_with(suffix))
      name.resize(name.size() - std::string(suffix).size());
  return name;
}

void report_unknown_kinds(const KinetoTrace& t, ImportReport& report) {
  if (t.unknown_kinds.empty()) return;
  std::string kinds;
  std::uint64_t total = 0;
  for (const auto& [kind, count] : t.unknown_kinds) {
    kinds += (kinds.empty() ? "" : ", ") + fmt::format("{} x{}", kind, count);
    total += count;
  }
  report.warnings.push_back(
      fmt::format("{}: {} events of kinds simtrain does not use were skipped ({})", t.origin, total, kinds));
}

}  // namespace

std::string profile_for_device_name(const std::string& device_name) {
  const auto has = [&](const char* part) { return device_name.find(part) != std::string::npos; };
  if (has("H200")) return "h200-sxm";
  if (has("H100")) return "h100-sxm5";
  if (has("A100") && has("40GB")) return "a100-sxm4-40gb";
  if (has("A100")) return "a100-sxm4-80gb";
  if (has("V100")) return "v100-sxm2-32gb";
  return {};
}

Trace import_kineto(const std::vector<KinetoTrace>& ranks, const ImportOptions& options,
                    ImportReport& report) {
  if (ranks.empty()) throw Error("no trace files given");
  if (!(options.host_speed > 0) || options.host_speed > 1e3)
    throw Error("--host-speed: must be in (0, 1000]");
  const int ddp = options.data_parallel_ranks;
  if (ddp > 0 && ranks.size() > 1)
    throw Error(ranks[0].origin, 0, "",
                "scaling out as DDP or FSDP takes the trace of one rank, not several");
  if (ddp < 0 || ddp > kMaxRanks) throw Error("--gpus: out of range");
  if (!(options.fsdp_min_unit_params >= 1) || options.fsdp_min_unit_params > 1e13)
    throw Error("--fsdp-min-params: must be in [1, 1e13]");

  GroupTable groups;
  Trace trace;
  std::vector<RankImport> imports;
  std::set<int> seen_ranks;
  for (std::size_t f = 0; f < ranks.size(); ++f) {
    report_unknown_kinds(ranks[f], report);
    RankBuilder builder(ranks[f], options, report, groups);
    RankImport r = builder.build(ddp);
    r.rank = ranks[f].rank >= 0 ? ranks[f].rank : static_cast<int>(f);
    if (!seen_ranks.insert(r.rank).second)
      throw Error(ranks[f].origin, 0, "distributedInfo.rank", fmt::format("rank {} given twice", r.rank));
    if (ddp > 0 && r.has_collectives)
      throw Error(ranks[f].origin, 0, "",
                  "the trace already has collectives: scale out the trace of a single-GPU run instead");
    imports.push_back(std::move(r));
  }

  const RankImport& first = imports.front();
  TraceMetadata& m = trace.metadata;
  m.model = model_name(ranks[0].origin);
  m.generator = "kineto import";
  m.recorded_gpu = profile_for_device_name(ranks[0].gpu_name);
  if (m.recorded_gpu.empty())
    report.warnings.push_back(ranks[0].origin + ": GPU '" + ranks[0].gpu_name +
                              "' has no simtrain profile; its kernels are taken as recorded on any GPU");
  double world = ddp > 0 ? ddp : 0;
  for (std::size_t f = 0; f < ranks.size(); ++f)
    world = std::max({world, static_cast<double>(ranks[f].world_size), imports[f].rank + 1.0});
  trace.world_size = static_cast<int>(world);
  const double replicas = ddp > 0 ? ddp : static_cast<double>(imports.size());
  m.samples_per_iteration = first.batch * replicas;
  m.tokens_per_iteration = first.tokens * replicas;
  double flops = 0;
  for (const RankImport& r : imports) flops += r.flops;
  m.model_flops_per_iteration = ddp > 0 ? first.flops * ddp : flops * trace.world_size / imports.size();
  m.compute_dtype = DType::FP32;
  double most = -1;
  for (const auto& [dtype, f] : first.flops_by_dtype)
    if (f > most) most = f, m.compute_dtype = dtype;
  if (first.batch == 0)
    report.warnings.push_back(
        ranks[0].origin +
        ": no conv2d or embedding input to read the batch from; throughput is not reported");

  if (ddp > 0) {
    m.parallelism = options.sharding == DataParallelSharding::Fsdp ? "fsdp" : "ddp";
    trace.programs.push_back(std::move(imports.front().program));
    trace.programs.front().name = m.parallelism + " rank";
    trace.rank_program.assign(ddp, 0);
    std::vector<int> all(ddp);
    for (int r = 0; r < ddp; ++r) all[r] = r;
    trace.groups.push_back({"dp", {all}});
  } else {
    m.parallelism = "as recorded";
    trace.groups = std::move(groups.groups);
    if (imports.size() != static_cast<std::size_t>(trace.world_size))
      throw Error(ranks[0].origin, 0, "distributedInfo.world_size",
                  fmt::format("the job has {} ranks but {} trace files were given: give one file per rank",
                              trace.world_size, imports.size()));
    trace.rank_program.assign(trace.world_size, 0);
    for (std::size_t i = 0; i < imports.size(); ++i) {
      imports[i].program.name = "rank " + std::to_string(imports[i].rank);
      trace.rank_program[imports[i].rank] = static_cast<std::uint32_t>(trace.programs.size());
      trace.programs.push_back(std::move(imports[i].program));
    }
  }
  validate(trace, ranks[0].origin);
  return trace;
}

}  // namespace simtrain::trace
