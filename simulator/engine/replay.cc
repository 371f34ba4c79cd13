// Implements replay.h: builds the platform and the replay state, chooses lockstep and replica sampling, runs
// the stream actors (stream_actor.h), and breaks their timelines down.
#include "simulator/engine/replay.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include "common/error.h"
#include "common/input_limits.h"
#include "common/number_checks.h"
#include "simulator/cost/nccl_channels.h"
#include "simulator/engine/busy_intervals.h"
#include "simulator/engine/exact_sampling.h"
#include "simulator/engine/lockstep.h"
#include "simulator/engine/replay_state.h"
#include "simulator/engine/stream_actor.h"
#include "simulator/platform/simgrid_platform.h"

namespace sg4 = simgrid::s4u;

XBT_LOG_EXTERNAL_CATEGORY(ker_engine);  // SimGrid's engine log, which reports deadlocks

namespace simtrain::engine {
namespace {

// Scales a link's bandwidth; a split-duplex link is two SimGrid links, "<name>_UP" and "<name>_DOWN".
void degrade_link(const std::string& name, double factor) {
  if (!(factor > 0)) throw Error("--degrade: the factor must be positive, got " + std::to_string(factor));
  // Collectives inside a node are costed analytically from the spec's NVLink figures, not by flows through
  // the GPU links: degrading one would change nothing, so it is refused rather than ignored.
  if (name.find("-gpu") != std::string::npos)
    throw Error("--degrade: '" + name +
                "' is a GPU's NVLink port; intra-node collectives are analytic, so "
                "degrade a node uplink or a switch link instead");
  int found = 0;
  for (const std::string& candidate : {name, name + "_UP", name + "_DOWN"}) {
    if (sg4::Link* link = sg4::Link::by_name_or_null(candidate)) {
      link->set_bandwidth(link->get_bandwidth() * factor);
      ++found;
    }
  }
  if (found == 0)
    throw Error("--degrade: no link named '" + name +
                "' on this platform (links are named like node0-uplink, leaf0-uplink)");
}

// SimGrid aborts the process on a duration that is not finite, and durations summed past the double range
// would make one: refuse, naming the op, any compute time (times its rank's slowdown) beyond what one
// operation can take.
void check_durations(const trace::Trace& trace, const cost::ProgramCosts& costs, double max_slowdown) {
  for (std::size_t p = 0; p < trace.programs.size(); ++p)
    for (std::size_t i = 0; i < costs.duration_s[p].size(); ++i) {
      const auto why = range_violation(costs.duration_s[p][i] * max_slowdown, {0, true, kMaxDuration_s});
      if (!why) continue;
      throw Error("programs[" + std::to_string(p) + "].ops[" + std::to_string(i) + "] (" +
                  trace.programs[p].ops[i].name + "): its duration in seconds " + *why +
                  " (check the profile's times, the trace's durations and --straggler)");
    }
}

// AddressSanitizer's red zones make every frame several times larger (SIMTRAIN_SANITIZE builds).
#if defined(__SANITIZE_ADDRESS__)
constexpr const char* kActorStackSize = "--cfg=contexts/stack-size:2048";
#else
constexpr const char* kActorStackSize = "--cfg=contexts/stack-size:256";
#endif

platform::BuiltPlatform build(const PlatformSource& source, sg4::Engine& engine) {
  if (source.spec) return platform::build_platform(*source.spec, engine);
  return platform::load_simgrid_xml(source.xml_path, source.xml_gpus_per_node, engine);
}

}  // namespace

namespace {

// SimGrid's time-advance signal is process-wide and outlives each Engine: connected once, it forwards to
// the progress callback of the replay under way, if any.
const std::function<void(double, std::uint64_t)>* active_progress = nullptr;
std::uint64_t advances = 0;

void forward_time_advances() {
  static const bool connected = [] {
    sg4::Engine::on_time_advance_cb([](double) {
      if (active_progress) (*active_progress)(sg4::Engine::get_clock(), ++advances);
    });
    return true;
  }();
  (void)connected;
}

// Sets the active progress callback for the lifetime of one replay, however it ends.
class ProgressScope {
 public:
  explicit ProgressScope(const std::function<void(double, std::uint64_t)>& progress) {
    if (!progress) return;
    forward_time_advances();
    advances = 0;
    active_progress = &progress;
  }
  ~ProgressScope() { active_progress = nullptr; }
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;
};

}  // namespace

ReplayResult replay(const trace::Trace& trace, const cost::ProgramCosts& costs,
                    const calibration::Efficiencies& efficiencies, const PlatformSource& source,
                    const ReplayOptions& options) {
  // SimGrid's own logging would interleave with our output; errors reach the user as exceptions instead.
  // Stacks stay small and without guard pages: two actors per rank at 16k ranks would otherwise exceed
  // Linux's default limit of 65,536 memory mappings per process.
  std::vector<std::string> args = {"simtrain", "--log=root.thres:critical", kActorStackSize,
                                   "--cfg=contexts/guard-size:0"};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  sg4::Engine engine(&argc, argv.data());
  platform::configure_exact_network(engine);

  platform::BuiltPlatform built = build(source, engine);
  for (const auto& [name, factor] : options.degraded_links) degrade_link(name, factor);
  const InterNodeRoute route = inter_node_route(built);
  // Lockstep stands a rank for others that see the same machine: not with a straggler, nor with a degraded
  // link where each GPU has its own rail (the rail of a represented GPU would not be simulated).
  const bool asymmetric =
      !options.rank_slowdown.empty() || (!options.degraded_links.empty() && !route.shared_by_node);
  LockstepPlan lockstep = plan_lockstep(trace, asymmetric ? "" : options.lockstep_group, built.gpus_per_node);
  // Node lockstep where no tensor-parallel lockstep applies, or where the latter must carry a group (an
  // expert-parallel group over tensor-parallel pairs) and the node's one rank can stand for all of its GPUs:
  // its own links must carry what the node sends (InterNodeRoute::first_gpu_carries_node).
  if ((lockstep.group < 0 || !lockstep.carried.empty()) && !asymmetric && !options.lockstep_group.empty() &&
      built.intra_node_bandwidth_Bps > 0 && !options.stepwise_collectives && route.first_gpu_carries_node) {
    LockstepPlan node = plan_node_lockstep(trace, built.gpus_per_node);
    if (node.whole_nodes) lockstep = std::move(node);
  }
  // Replicas: `--fidelity fast` samples them where their layout allows it, whether or not the fabric could
  // bind (contention above the nodes is then only the sample's), and folds them into one otherwise; full
  // fidelity samples them only where that is exact (sample_replicas, fabric_never_binds).
  bool sampled_exactly = false;
  if (!options.folded_group.empty() && !asymmetric) {
    LockstepPlan sampled =
        options.stepwise_collectives
            ? lockstep
            : sample_replicas(trace, options.folded_group, built.gpus_per_node, false, lockstep);
    lockstep = !sampled.sampled.empty() ? std::move(sampled)
                                        : fold_replicas(trace, options.folded_group, std::move(lockstep));
  }
  // Full fidelity's sample, taken below once the collectives' algorithms can be worked out.
  LockstepPlan full_sample;
  if (options.folded_group.empty() && !options.sampled_group.empty() && !asymmetric &&
      !options.stepwise_collectives && fabric_never_binds(source, options))
    full_sample = sample_replicas(trace, options.sampled_group, built.gpus_per_node, false, lockstep);
  ReplayState state(trace, costs, efficiencies, std::move(built), std::move(lockstep));
  state.nccl = options.nccl;
  state.stepwise = options.stepwise_collectives;
  state.inter_node_latency_s = route.latency_s;
  state.inter_node_bandwidth_Bps = route.ring_bandwidth_Bps;
  state.node_gpus_share_uplink = route.shared_by_node;
  if (options.gpu_sm_count > 0) {
    const int channels =
        cost::nccl_collective_channels(state.platform.nccl_network_channels, options.nccl.min_channels);
    state.comm_sm_fraction = std::min(0.5, std::max(0, channels) / static_cast<double>(options.gpu_sm_count));
  }
  if (!full_sample.sampled.empty() &&
      std::all_of(full_sample.sampled.begin(), full_sample.sampled.end(),
                  [&](const SampledGroup& s) { return crosses_nodes_in_rings(state, s.group); })) {
    state.lockstep = std::move(full_sample);
    state.communicator_facts.clear();  // their simulated member counts follow the sample
    sampled_exactly = true;
  }
  const bool nvls_forced =
      options.nccl.algorithm && (*options.nccl.algorithm == cost::NcclAlgorithm::NVLS ||
                                 *options.nccl.algorithm == cost::NcclAlgorithm::NVLSTree);
  if (nvls_forced && state.platform.nvls_bandwidth_Bps <= 0)
    throw Error(std::string("--nccl-algo ") + cost::to_string(*options.nccl.algorithm) +
                ": this platform's NVSwitch has no NVLS (its spec sets no intra_node.nvls_efficiency)");
  if (options.nccl.collnet && !state.platform.sharp)
    throw Error(
        "--nccl-collnet-enable: this platform's network does not reduce in its switches (its spec sets no "
        "nics.sharp = true)");
  if (options.nccl.collnet &&
      (state.platform.ll128_bandwidth_fraction <= 0 || state.platform.nccl_chunk_latency_s > 0 ||
       state.platform.nccl_channel_latency_s > 0))
    throw Error(
        "--nccl-collnet-enable: CollNet is priced with NCCL's tuner terms, which this platform does not take "
        "(its spec gives no intra_node LL128 figures, or network proxy costs)");
  const bool collnet_forced =
      options.nccl.algorithm && (*options.nccl.algorithm == cost::NcclAlgorithm::CollNetDirect ||
                                 *options.nccl.algorithm == cost::NcclAlgorithm::CollNetChain);
  if (collnet_forced && !options.nccl.collnet)
    throw Error(std::string("--nccl-algo ") + cost::to_string(*options.nccl.algorithm) +
                ": CollNet runs only where it is enabled (--nccl-collnet-enable, as NCCL_COLLNET_ENABLE=1)");
  if (options.nccl.protocol == cost::NcclProtocol::LL && state.platform.ll_bandwidth_fraction <= 0 &&
      state.platform.nccl_channel_latency_s <= 0)
    throw Error(
        "--nccl-proto ll: this platform's spec gives no LL figures (intra_node.ll_step_latency_us, "
        "ll_bandwidth_fraction, or nics.nccl_channel_latency_us)");
  if (options.nccl.protocol == cost::NcclProtocol::LL128 && state.platform.ll128_bandwidth_fraction <= 0)
    throw Error(
        "--nccl-proto ll128: this platform's spec gives no LL128 figures "
        "(intra_node.ll128_step_latency_us, ll128_bandwidth_fraction)");
  if (static_cast<int>(state.platform.gpu_hosts.size()) < trace.world_size)
    throw Error("the trace has " + std::to_string(trace.world_size) + " ranks but the platform only " +
                std::to_string(state.platform.gpu_hosts.size()) + " GPUs");
  for (const auto& [rank, factor] : options.rank_slowdown) {
    if (rank < 0 || rank >= trace.world_size)
      throw Error("--straggler: rank " + std::to_string(rank) + " is not in 0.." +
                  std::to_string(trace.world_size - 1));
    if (!(factor > 0)) throw Error("--straggler: the slowdown must be positive");
    if (state.slowdown.empty()) state.slowdown.assign(trace.world_size, 1.0);
    state.slowdown[rank] = factor;
  }
  check_durations(
      trace, costs,
      state.slowdown.empty() ? 1.0 : *std::max_element(state.slowdown.begin(), state.slowdown.end()));
  // The timeline shows the first simulated ranks (lockstep members have no events of their own).
  state.on_timeline.assign(trace.world_size, 0);
  for (int rank = 0, shown = 0; rank < trace.world_size && shown < options.timeline_ranks; ++rank)
    if (state.lockstep.is_representative(rank)) state.on_timeline[rank] = 1, ++shown;
  for (const auto& program : trace.programs) state.plans.push_back(plan_program(program));
  state.ranks.resize(trace.world_size);
  for (int rank = 0; rank < trace.world_size; ++rank) {
    RankState& r = state.ranks[rank];
    const trace::Program& program = trace.program_of(rank);
    if (!state.lockstep.is_representative(rank)) continue;
    r.done.assign(program.ops.size(), 0);
    const std::vector<char>& host_stream = state.plans[trace.rank_program[rank]].host_stream;
    if (std::find(host_stream.begin(), host_stream.end(), 1) != host_stream.end())
      r.host_ready_s.assign(program.ops.size(), 0);
    for (int stream = 0; stream < static_cast<int>(program.streams.size()); ++stream) {
      if (state.plans[trace.rank_program[rank]].stream_ops[stream].empty()) {
        ++r.streams_finished;
        continue;
      }
      create_stream_actor(state, rank, stream);
    }
  }
  // A deadlocked trace is reported below as an Error naming the stuck rank; SimGrid's own account of it
  // (several lines naming its source files) would only confuse a user, so it is silenced here.
  xbt_log_threshold_set(&_XBT_LOGV(ker_engine), xbt_log_priority_infinite);
  {
    const ProgressScope progress(options.progress);
    engine.run();
  }

  ReplayResult result;
  result.nodes = state.platform.nodes;
  result.gpus_per_node = state.platform.gpus_per_node;
  result.flows = state.flows;
  result.compute_waits = state.compute_waits;
  result.lockstep_size = state.lockstep.size;
  result.replicas_folded = state.lockstep.folded_group >= 0;
  if (!state.lockstep.sampled.empty()) {
    result.replicas_simulated = state.lockstep.sampled.front().members;
    result.replicas = state.lockstep.sampled.front().of;
    result.replicas_sampled_exactly = sampled_exactly;
  }
  for (int a = 0; a < cost::kNcclAlgorithmCount; ++a)
    for (int p = 0; p < 3; ++p)
      if (state.algorithm_counts[a][p] > 0)
        result.collective_algorithms[std::string(cost::to_string(static_cast<cost::NcclAlgorithm>(a))) + "/" +
                                     cost::to_string(static_cast<cost::NcclProtocol>(p))] =
            state.algorithm_counts[a][p];
  for (int rank = 0; rank < trace.world_size; ++rank) {
    const RankState& r = state.ranks[state.lockstep.representative[rank]];
    if (r.streams_finished != static_cast<int>(trace.program_of(rank).streams.size()))
      throw Error("the trace deadlocks: rank " + std::to_string(rank) +
                  " waits forever (a collective or receive without its partner, or a dependency cycle)");
    result.makespan_s = std::max(result.makespan_s, r.end_s);
  }
  result.ranks.resize(trace.world_size);
  for (int rank = 0; rank < trace.world_size; ++rank) {
    if (!state.lockstep.is_representative(rank)) continue;
    RankState& r = state.ranks[rank];
    RankTimes& t = result.ranks[rank];
    t.end_s = r.end_s;
    t.compute_s = union_length(r.compute_busy);
    t.exposed_comm_s = uncovered_length(r.comm_busy, r.compute_busy);
    // A stream held back by its own launch waits for the host, whatever pipeline transfer is open beside it:
    // the time is host-bound (under a host-bound schedule the receives were posted long before, and counting
    // them first showed the host's time as a bubble). Waiting on a neighbour with nothing else going on, the
    // launches done, is the bubble; the host still working with the GPU idle otherwise (its work after the
    // last kernel) is host-bound again.
    std::vector<Interval> busy = r.compute_busy;
    busy.insert(busy.end(), r.comm_busy.begin(), r.comm_busy.end());
    t.host_bound_s = uncovered_length(r.launch_wait, busy);
    busy.insert(busy.end(), r.launch_wait.begin(), r.launch_wait.end());
    t.pipeline_bubble_s = uncovered_length(r.p2p_busy, busy);
    busy.insert(busy.end(), r.p2p_busy.begin(), r.p2p_busy.end());
    t.host_bound_s += uncovered_length(r.host_busy, busy);
    busy.insert(busy.end(), r.host_busy.begin(), r.host_busy.end());
    t.offload_bound_s = uncovered_length(r.copy_busy, busy);
    for (const auto& [group, intervals] : r.comm_by_group)
      if (group < trace.groups.size())
        t.exposed_by_group_s[trace.groups[group].name] += uncovered_length(intervals, r.compute_busy);
    t.idle_s = std::max(0.0, result.makespan_s - t.compute_s - t.exposed_comm_s - t.pipeline_bubble_s -
                                 t.host_bound_s - t.offload_bound_s);
    result.events.insert(result.events.end(), r.events.begin(), r.events.end());
  }
  // A lockstep member's iteration is its representative's.
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (!state.lockstep.is_representative(rank))
      result.ranks[rank] = result.ranks[state.lockstep.representative[rank]];
  return result;
}

}  // namespace simtrain::engine
