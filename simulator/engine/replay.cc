// Implements replay.h: the SimGrid actors that replay a trace, and the breakdown of their timelines.
#include "simulator/engine/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>

#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include "common/error.h"
#include "common/input_limits.h"
#include "common/number_checks.h"
#include "simulator/cost/collective_algorithm.h"
#include "simulator/engine/busy_intervals.h"
#include "simulator/engine/lockstep.h"
#include "simulator/platform/simgrid_platform.h"

namespace sg4 = simgrid::s4u;

XBT_LOG_EXTERNAL_CATEGORY(ker_engine);  // SimGrid's engine log, which reports deadlocks

namespace simtrain::engine {
namespace {

// Per program: each stream's ops in issue order, and which ops another stream waits for. Ops nobody on
// another stream waits for can be fused with their neighbours into one simulated interval.
struct ProgramPlan {
  std::vector<std::vector<std::uint32_t>> stream_ops;
  std::vector<char> awaited_by_other_stream;
  std::vector<char> host_stream;  // [stream]: every op is ComputeKind::Host (an imported trace's host)
};

ProgramPlan plan_program(const trace::Program& program) {
  ProgramPlan plan;
  plan.stream_ops.resize(program.streams.size());
  plan.awaited_by_other_stream.assign(program.ops.size(), 0);
  plan.host_stream.assign(program.streams.size(), 0);
  for (std::uint32_t i = 0; i < program.ops.size(); ++i) {
    const trace::Op& op = program.ops[i];
    plan.stream_ops[op.stream].push_back(i);
    const bool host = op.type == trace::OpType::Compute && op.compute.kind == trace::ComputeKind::Host;
    if (plan.stream_ops[op.stream].size() == 1) plan.host_stream[op.stream] = host;
    if (!host) plan.host_stream[op.stream] = 0;
    for (std::uint32_t dep : op.deps)
      if (program.ops[dep].stream != op.stream) plan.awaited_by_other_stream[dep] = 1;
  }
  return plan;
}

// What one rank's stream actors share: which ops have ended, and a condition variable to wait on.
struct RankState {
  std::vector<char> done;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr ended;
  std::vector<Interval> compute_busy;
  std::vector<Interval> host_busy;  // the launching thread's work (ComputeKind::Host ops)
  std::vector<Interval> comm_busy;  // collectives
  std::vector<Interval> p2p_busy;   // sends and receives (pipeline stages)
  std::map<std::uint16_t, std::vector<Interval>> comm_by_group;  // collectives and transfers, by group
  std::vector<OpEvent> events;
  double end_s = 0;
  int streams_finished = 0;
  // Collectives started so far per (communicator, stream): the instance a rendezvous belongs to.
  std::map<std::pair<const std::vector<int>*, int>, std::uint64_t> collectives_started;
};

// Where the simulated members of one collective instance wait for each other: a ring's or tree's result
// reaches a rank only once every member's data has gone round, so no member is done before the slowest.
struct Rendezvous {
  int arrived = 0;
  sg4::ConditionVariablePtr all_arrived;
};

// A communicator's placement on nodes, and how many of its members have actors of their own (lockstep).
struct CommunicatorFacts {
  cost::CommunicatorPlacement placement;
  int simulated_members = 0;
};

struct ReplayState {
  ReplayState(const trace::Trace& t, const cost::ProgramCosts& c, const calibration::Efficiencies& e,
              platform::BuiltPlatform p, LockstepPlan l)
      : trace(t),
        costs(c),
        efficiencies(e),
        communicators(t),
        platform(std::move(p)),
        lockstep(std::move(l)) {}

  const trace::Trace& trace;
  const cost::ProgramCosts& costs;
  const calibration::Efficiencies& efficiencies;
  const trace::CommunicatorIndex communicators;
  platform::BuiltPlatform platform;
  LockstepPlan lockstep;  // set once, before the actors start (replay())
  std::vector<ProgramPlan> plans;
  std::vector<RankState> ranks;
  std::vector<char> on_timeline;  // [rank]: record this rank's op events
  std::vector<double> slowdown;   // [rank]: compute slowdown of stragglers; empty = none
  std::map<const std::vector<int>*, CommunicatorFacts> communicator_facts;
  std::unordered_map<std::uint64_t, double> route_latency_s;
  std::unordered_map<std::uint64_t, double> route_bandwidth_Bps;
  std::uint64_t flows = 0;
  std::uint64_t compute_waits = 0;
  cost::NcclOverride nccl;
  bool stepwise = false;
  // Between nodes, for the algorithm choice (collective_algorithm.h); 0 on one node.
  double inter_node_latency_s = 0;
  double inter_node_bandwidth_Bps = 0;
  bool node_gpus_share_uplink = true;
  std::map<std::tuple<const std::vector<int>*, int, std::uint64_t>, Rendezvous> rendezvous;
  sg4::MutexPtr rendezvous_mutex;
  std::uint64_t algorithm_counts[4][3] = {};  // [NcclAlgorithm][NcclProtocol]

  // What a communicator's collectives need to know of it, worked out on its first collective.
  const CommunicatorFacts& facts(const std::vector<int>& members) {
    auto it = communicator_facts.find(&members);
    if (it != communicator_facts.end()) return it->second;
    CommunicatorFacts f{cost::place_communicator(members, platform.gpus_per_node), 0};
    for (int member : members) f.simulated_members += lockstep.is_representative(member) ? 1 : 0;
    return communicator_facts.emplace(&members, std::move(f)).first->second;
  }

  // What one rank does in one collective: NCCL's algorithm and protocol, its flows and analytic parts.
  cost::RankCollectivePlan collective_plan(const trace::Op& op, int rank, const std::vector<int>& members,
                                           const CommunicatorFacts& facts) const {
    cost::CollectiveLayout layout{
        &members,
        &facts.placement,
        communicators.position(op.collective.group, rank),
        platform.gpus_per_node,
        platform.intra_node_bandwidth_Bps,
        platform.intra_node_latency_s,
        platform.nvls_bandwidth_Bps,
        platform.nvls_latency_s,
        platform.nvls_step_latency_s,
        {platform.ll_step_latency_s, platform.ll_bandwidth_fraction, platform.ll128_step_latency_s,
         platform.ll128_bandwidth_fraction, platform.simple_step_latency_s},
        inter_node_latency_s,
        inter_node_bandwidth_Bps,
        {platform.nccl_network_channels, platform.nccl_chunk_latency_s, platform.nccl_channel_latency_s,
         nccl.buffer_bytes},
        nccl,
        stepwise,
        lockstep.whole_nodes};
    // NVLink nodes (their specs carry NCCL's ring protocol figures) on a network without proxy costs of its
    // own: NCCL's tuner terms price the collectives across nodes (cost/nccl_tuner.h).
    layout.nccl_tuner = !layout.network.has_costs() && platform.ll128_bandwidth_fraction > 0;
    layout.nccl_net_overhead_s = platform.nccl_net_overhead_s;
    // Grace superchips (gh200, gb200, gb300) put Arm CPUs beside the GPUs.
    layout.arm_host = platform.gpu.starts_with("gh") || platform.gpu.starts_with("gb");
    return cost::plan_collective(op.collective.kind, op.collective.bytes, layout, efficiencies);
  }

  // Bytes a flow between two ranks carries on the wire. A lockstep representative's flows to another node
  // stand for its whole group's: through a shared uplink they are the group's bytes; where each GPU has its
  // own rail, the members' flows run alike on their own rails. Inside a node each member has its own links.
  std::uint64_t wire_bytes(double bytes, int from, int to) const {
    return static_cast<std::uint64_t>(std::llround(bytes * wire_scale(from, to)));
  }
  double wire_scale(int from, int to) const {
    return platform.node_of(from) == platform.node_of(to) ? 1 : node_gpus_share_uplink ? lockstep.size : 1;
  }

  double route_bandwidth(int from, int to) {
    std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
    auto it = route_bandwidth_Bps.find(key);
    if (it != route_bandwidth_Bps.end()) return it->second;
    double latency = 0, bandwidth = std::numeric_limits<double>::infinity();
    std::vector<sg4::Link*> links;
    platform.gpu_hosts[from]->route_to(platform.gpu_hosts[to], links, &latency);
    for (const sg4::Link* link : links) bandwidth = std::min(bandwidth, link->get_bandwidth());
    route_bandwidth_Bps.emplace(key, bandwidth);
    return bandwidth;
  }

  double route_latency(int from, int to) {
    std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint32_t>(to);
    auto it = route_latency_s.find(key);
    if (it != route_latency_s.end()) return it->second;
    double latency = 0;
    std::vector<sg4::Link*> links;
    platform.gpu_hosts[from]->route_to(platform.gpu_hosts[to], links, &latency);
    route_latency_s.emplace(key, latency);
    return latency;
  }
};

// Between nodes, for the algorithm choice (collective_algorithm.h) and lockstep: the route from the first GPU
// of node 0 to the first of node 1, its latency, and the bandwidth one ring of equal local index gets on it
// (its slowest link per GPU: a link the node's GPUs all cross, as they do an aggregated uplink, counts at 1/L
// of its bandwidth; not where each GPU has its own rail). Zeros on one node.
struct InterNodeRoute {
  double latency_s = 0;
  double ring_bandwidth_Bps = 0;
  bool shared_by_node = true;  // the node's GPUs reach other nodes through one bottleneck link
};

InterNodeRoute inter_node_route(const platform::BuiltPlatform& platform) {
  InterNodeRoute route;
  if (platform.nodes < 2) return route;
  const int other = platform.gpus_per_node;
  std::vector<sg4::Link*> links;
  platform.gpu_hosts[0]->route_to(platform.gpu_hosts[other], links, &route.latency_s);
  const sg4::Link* slowest = nullptr;
  for (const sg4::Link* link : links)
    if (!slowest || link->get_bandwidth() < slowest->get_bandwidth()) slowest = link;
  if (!slowest) return route;
  route.ring_bandwidth_Bps = slowest->get_bandwidth();
  if (platform.gpus_per_node < 2) return route;
  std::vector<sg4::Link*> neighbour_links;
  double unused = 0;
  platform.gpu_hosts[1]->route_to(platform.gpu_hosts[other + 1], neighbour_links, &unused);
  // The bottleneck is the link of least bandwidth per GPU crossing it: a link the node's GPUs share (its
  // aggregated uplink) gives each 1/L of itself. On an NVL72 domain the uplink (64 NICs) is faster than one
  // GPU's NVLink link, yet each GPU's share of it is far slower.
  double least_Bps = std::numeric_limits<double>::infinity();
  for (const sg4::Link* link : links) {
    const bool shared =
        std::find(neighbour_links.begin(), neighbour_links.end(), link) != neighbour_links.end();
    const double per_gpu_Bps = link->get_bandwidth() / (shared ? platform.gpus_per_node : 1);
    if (per_gpu_Bps < least_Bps) {
      least_Bps = per_gpu_Bps;
      route.shared_by_node = shared;
    }
  }
  route.ring_bandwidth_Bps = least_Bps;
  return route;
}

sg4::Mailbox* mailbox(char kind, int group, int channel, int from, int to) {
  return sg4::Mailbox::by_name(std::string(1, kind) + std::to_string(group) + "." + std::to_string(channel) +
                               ":" + std::to_string(from) + ">" + std::to_string(to));
}

// The simulated payload: only its size matters.
char payload_marker;

class StreamActor {
 public:
  StreamActor(ReplayState& state, int rank, int stream)
      : state_(state),
        rank_(rank),
        stream_(stream),
        self_(state.ranks[rank]),
        program_(state.trace.program_of(rank)),
        plan_(state.plans[state.trace.rank_program[rank]]),
        durations_(state.costs.duration_s[state.trace.rank_program[rank]]),
        // A straggler's GPU is slow, not its host.
        slowdown_(state.slowdown.empty() || plan_.host_stream[stream] ? 1.0 : state.slowdown[rank]),
        host_stream_(plan_.host_stream[stream]) {}

  void operator()() {
    for (std::uint32_t index : plan_.stream_ops[stream_]) {
      const trace::Op& op = program_.ops[index];
      wait_for_other_streams(op);
      double start = sg4::Engine::get_clock() + pending_s_;
      if (op.type == trace::OpType::Compute) {
        pending_s_ += durations_[index] * slowdown_;
        if (plan_.awaited_by_other_stream[index]) flush_compute();
      } else {
        flush_compute();
        start = sg4::Engine::get_clock();
        if (op.type == trace::OpType::Collective) {
          run_collective(op);
          self_.comm_busy.push_back({start, sg4::Engine::get_clock()});
          self_.comm_by_group[op.collective.group].push_back(self_.comm_busy.back());
        } else {
          run_point_to_point(op);
          self_.p2p_busy.push_back({start, sg4::Engine::get_clock()});
          self_.comm_by_group[op.p2p.group].push_back(self_.p2p_busy.back());
        }
      }
      if (state_.on_timeline[rank_]) {
        OpEvent event;
        event.rank = rank_;
        event.op = index;
        event.start_s = start;
        event.end_s = op.type == trace::OpType::Compute ? start + durations_[index] * slowdown_
                                                        : sg4::Engine::get_clock();
        // All-to-all is NCCL's point-to-point exchange: no algorithm or protocol is chosen for it.
        if (op.type == trace::OpType::Collective && op.collective.kind != trace::CollectiveKind::AllToAll)
          event.algorithm = algorithm_, event.protocol = protocol_;
        self_.events.push_back(event);
      }
      mark_done(index);
    }
    flush_compute();
    self_.end_s = std::max(self_.end_s, sg4::Engine::get_clock());
    ++self_.streams_finished;
  }

 private:
  void wait_for_other_streams(const trace::Op& op) {
    for (std::uint32_t dep : op.deps) {
      if (program_.ops[dep].stream == op.stream || self_.done[dep]) continue;
      flush_compute();
      std::unique_lock lock(*self_.mutex);
      while (!self_.done[dep]) self_.ended->wait(lock);
    }
  }

  void mark_done(std::uint32_t index) {
    self_.done[index] = 1;
    if (plan_.awaited_by_other_stream[index]) {
      std::unique_lock lock(*self_.mutex);
      self_.ended->notify_all();
    }
  }

  // Back-to-back kernels are simulated as one interval: nothing can observe the boundaries between them.
  void flush_compute() {
    if (pending_s_ <= 0) return;
    double now = sg4::Engine::get_clock();
    (host_stream_ ? self_.host_busy : self_.compute_busy).push_back({now, now + pending_s_});
    sg4::this_actor::sleep_for(pending_s_);
    pending_s_ = 0;
    ++state_.compute_waits;
  }

  void run_collective(const trace::Op& op) {
    const auto& members = state_.communicators.communicator(op.collective.group, rank_);
    const CommunicatorFacts& facts = state_.facts(members);
    cost::RankCollectivePlan plan = state_.collective_plan(op, rank_, members, facts);
    if (members.size() > 1 && op.collective.kind != trace::CollectiveKind::AllToAll)
      ++state_.algorithm_counts[static_cast<int>(plan.algorithm)][static_cast<int>(plan.protocol)];
    algorithm_ = plan.algorithm;
    protocol_ = plan.protocol;
    // The intra-node phases' transfers pipeline with the inter-node flows: the collective lasts as long as
    // the slower, plus every step's latency, intra-node and inter-node, one after the other.
    const double started = sg4::Engine::get_clock();
    double extra_latency_s = 0;
    if (plan.steps > 0 && op.collective.group == state_.lockstep.folded_group)
      extra_latency_s = folded_flows_s(plan);
    else if (plan.steps > 0 && op.collective.group == state_.lockstep.sampled_group)
      extra_latency_s = sampled_flows(op, plan, members);
    else if (plan.steps > 0)
      extra_latency_s = run_flows(op, plan);
    const double intra_s = plan.intra_node_before_s + plan.intra_node_after_s;
    const double wait_s = std::max(0.0, started + intra_s - sg4::Engine::get_clock()) + extra_latency_s +
                          plan.intra_node_latency_s;
    if (wait_s > 0) sg4::this_actor::sleep_for(wait_s);
    wait_for_members(members, facts.simulated_members);
  }

  // Blocks until the `expected` simulated members of this collective instance have all reached it.
  void wait_for_members(const std::vector<int>& members, int expected) {
    if (expected <= 1) return;
    const auto key = std::make_tuple(&members, stream_, self_.collectives_started[{&members, stream_}]++);
    std::unique_lock lock(*state_.rendezvous_mutex);
    Rendezvous& r = state_.rendezvous[key];
    if (!r.all_arrived) r.all_arrived = sg4::ConditionVariable::create();
    if (++r.arrived == expected) {
      r.all_arrived->notify_all();
      state_.rendezvous.erase(key);
      return;
    }
    const sg4::ConditionVariablePtr all_arrived = r.all_arrived;
    while (state_.rendezvous.count(key)) all_arrived->wait(lock);
  }

  // The flows of a collective over folded replicas, whose other members are not simulated: each flow takes
  // its route's latency plus its bytes over the route's slowest link, as it would with no other traffic.
  // Returns the latency of the further steps, like run_flows().
  double folded_flows_s(const cost::RankCollectivePlan& plan) {
    double flows_s = 0, hop_latency_s = 0;
    for (const auto& send : plan.sends) {
      const double latency = state_.route_latency(rank_, send.peer);
      hop_latency_s = std::max(hop_latency_s, latency);
      flows_s = std::max(flows_s, latency + state_.wire_bytes(send.bytes, rank_, send.peer) /
                                                state_.route_bandwidth(rank_, send.peer));
    }
    if (flows_s > 0) sg4::this_actor::sleep_for(flows_s);
    return (plan.steps - 1) * hop_latency_s + plan.software_latency_s;
  }

  // Runs the coalesced flows of a collective and returns the latency of the steps they stand for, beyond the
  // one SimGrid charged. A ring step lasts as long as its slowest hop; each rank charges the slowest of its
  // own hops, which on a uniform fabric is every hop's latency.
  double run_flows(const trace::Op& op, const cost::RankCollectivePlan& plan) {
    if (state_.stepwise) return run_flows_step_by_step(op, plan);
    std::vector<sg4::CommPtr> comms;
    for (const auto& send : plan.sends)
      comms.push_back(mailbox('c', op.collective.group, stream_, rank_, send.peer)
                          ->put_async(&payload_marker, state_.wire_bytes(send.bytes, rank_, send.peer)));
    std::vector<char*> received(plan.receives.size());
    for (std::size_t i = 0; i < plan.receives.size(); ++i)
      comms.push_back(
          mailbox('c', op.collective.group, stream_, plan.receives[i].peer, rank_)->get_async(&received[i]));
    sg4::Comm::wait_all(comms);
    state_.flows += plan.sends.size();
    return further_steps_latency_s(plan);
  }

  // The longest route latency to or from this rank's real peers in a collective.
  double hop_latency_s(const cost::RankCollectivePlan& plan) {
    double latency_s = 0;
    for (const auto& send : plan.sends)
      latency_s = std::max(latency_s, state_.route_latency(rank_, send.peer));
    for (const auto& recv : plan.receives)
      latency_s = std::max(latency_s, state_.route_latency(recv.peer, rank_));
    return latency_s;
  }

  // The latency of a collective's steps after the first (which its flows paid), plus its software latency.
  double further_steps_latency_s(const cost::RankCollectivePlan& plan) {
    return (plan.steps - 1) * hop_latency_s(plan) + plan.software_latency_s;
  }

  // The flows of a collective of a sampled group (lockstep.h, sample_replicas): each flow goes to the
  // simulated member standing for its peer (equal position modulo the sample, on another node when the peer
  // is on another node), as a host-to-host flow that needs no matching receive: the sample's members,
  // sending alike, load every simulated node's NICs with one flow per peer in each direction, as the whole
  // communicator does. Returns the latency of the further steps, like run_flows(), from the real peers'
  // routes, plus what the real routes' latency exceeds the one SimGrid charged on the sample's routes.
  double sampled_flows(const trace::Op& op, const cost::RankCollectivePlan& plan,
                       const std::vector<int>& members) {
    const int kept = state_.lockstep.sampled_members;
    const int per_node = state_.lockstep.sampled_per_node;
    const int my_node = state_.platform.node_of(rank_);
    std::vector<sg4::CommPtr> comms;
    double charged_latency_s = 0;
    for (const auto& send : plan.sends) {
      const int position = state_.communicators.position(op.collective.group, send.peer);
      int stand_in = members[position % kept];
      if (state_.platform.node_of(stand_in) == my_node && state_.platform.node_of(send.peer) != my_node)
        stand_in = members[(position + per_node) % kept];
      charged_latency_s = std::max(charged_latency_s, state_.route_latency(rank_, stand_in));
      comms.push_back(sg4::Comm::sendto_async(state_.platform.gpu_hosts[rank_],
                                              state_.platform.gpu_hosts[stand_in],
                                              state_.wire_bytes(send.bytes, rank_, send.peer)));
    }
    sg4::Comm::wait_all(comms);
    state_.flows += plan.sends.size();
    return further_steps_latency_s(plan) +
           (plan.sends.empty() ? 0 : std::max(0.0, hop_latency_s(plan) - charged_latency_s));
  }

  // The reference for coalescing: the same flows cut into the plan's steps, one step after the other, each
  // lasting until this rank's sends and receives of the step are done; SimGrid charges every step's
  // latency itself.
  double run_flows_step_by_step(const trace::Op& op, const cost::RankCollectivePlan& plan) {
    std::vector<char*> received(plan.receives.size());
    for (int step = 0; step < plan.steps; ++step) {
      std::vector<sg4::CommPtr> comms;
      for (const auto& send : plan.sends)
        comms.push_back(
            mailbox('c', op.collective.group, stream_, rank_, send.peer)
                ->put_async(&payload_marker, state_.wire_bytes(send.bytes / plan.steps, rank_, send.peer)));
      for (std::size_t i = 0; i < plan.receives.size(); ++i)
        comms.push_back(mailbox('c', op.collective.group, stream_, plan.receives[i].peer, rank_)
                            ->get_async(&received[i]));
      sg4::Comm::wait_all(comms);
      state_.flows += plan.sends.size();
    }
    return plan.software_latency_s;
  }

  void run_point_to_point(const trace::Op& op) {
    const auto& members = state_.communicators.communicator(op.p2p.group, rank_);
    int n = static_cast<int>(members.size());
    int position = state_.communicators.position(op.p2p.group, rank_);
    // In 64 bits: an offset near INT32_MAX from a trace file must wrap around the communicator, not overflow.
    const std::int64_t offset = (std::int64_t{position} + op.p2p.peer_offset) % n;
    int peer = members[static_cast<std::size_t>((offset + n) % n)];
    if (op.type == trace::OpType::Send) {
      mailbox('p', op.p2p.group, op.p2p.tag, rank_, peer)
          ->put(&payload_marker, state_.wire_bytes(op.p2p.bytes, rank_, peer));
      ++state_.flows;
    } else {
      mailbox('p', op.p2p.group, op.p2p.tag, peer, rank_)->get<char>();
    }
  }

  ReplayState& state_;
  int rank_;
  int stream_;
  RankState& self_;
  const trace::Program& program_;
  const ProgramPlan& plan_;
  const std::vector<double>& durations_;
  const double slowdown_;   // a straggler's compute factor, 1 otherwise
  const bool host_stream_;  // the stream holds the host's work, not the GPU's
  double pending_s_ = 0;
  cost::NcclAlgorithm algorithm_ = cost::NcclAlgorithm::Ring;  // of the last collective
  cost::NcclProtocol protocol_ = cost::NcclProtocol::Simple;
};

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

// Whether every collective of `group` crosses nodes as rings, which load every node alike (replica sampling
// is exact only then; lockstep.h): reduce-scatters and all-gathers always do, an all-reduce when NCCL's
// choice for its size and placement is the ring rather than the double binary tree (or NVLS-tree, whose
// load differs from node to node). The choice is the same on every communicator of the group, which
// sample_replicas() found laid out alike, so the first member of each program's communicator decides.
bool crosses_nodes_in_rings(ReplayState& state, int group) {
  std::vector<int> rank_of_program(state.trace.programs.size(), -1);
  for (int rank = state.trace.world_size - 1; rank >= 0; --rank)
    rank_of_program[state.trace.rank_program[rank]] = rank;
  for (std::size_t p = 0; p < state.trace.programs.size(); ++p) {
    const int rank = rank_of_program[p];
    if (rank < 0) continue;
    for (const trace::Op& op : state.trace.programs[p].ops) {
      if (op.type != trace::OpType::Collective || op.collective.group != group) continue;
      if (op.collective.kind == trace::CollectiveKind::ReduceScatter ||
          op.collective.kind == trace::CollectiveKind::AllGather)
        continue;
      if (op.collective.kind != trace::CollectiveKind::AllReduce) return false;
      const auto& members = state.communicators.communicator(op.collective.group, rank);
      const cost::RankCollectivePlan plan = state.collective_plan(op, rank, members, state.facts(members));
      if (plan.algorithm != cost::NcclAlgorithm::Ring) return false;
    }
  }
  return true;
}

// Whether no link above the nodes can limit a flow, whatever the traffic: a star, or a fat-tree whose every
// level's uplink carries the sum of the bandwidth below it (oversubscription at most 1). Each flow through
// such a link also crosses one of the links below it, whose capacities add up to the link's own, so the link
// is never a flow's bottleneck. Replica sampling relies on it (lockstep.h); degraded links void it.
bool fabric_never_binds(const PlatformSource& source, const ReplayOptions& options) {
  if (!source.spec || !options.degraded_links.empty()) return false;
  const platform::FabricSpec& fabric = source.spec->fabric;
  if (fabric.topology == platform::FabricTopology::Star) return true;
  if (fabric.topology != platform::FabricTopology::FatTree) return false;
  return fabric.leaf_oversubscription <= 1 && (fabric.levels < 3 || fabric.spine_oversubscription <= 1);
}

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
  if (lockstep.group < 0 && !asymmetric && !options.lockstep_group.empty() &&
      built.intra_node_bandwidth_Bps > 0 && !options.stepwise_collectives)
    lockstep = plan_node_lockstep(trace, built.gpus_per_node);
  // Replicas: `--fidelity fast` samples them where their layout allows it, whether or not the fabric could
  // bind (contention above the nodes is then only the sample's), and folds them into one otherwise; full
  // fidelity samples them only where that is exact (sample_replicas, fabric_never_binds).
  bool sampled_exactly = false;
  if (!options.folded_group.empty() && !asymmetric) {
    LockstepPlan sampled =
        options.stepwise_collectives
            ? lockstep
            : sample_replicas(trace, options.folded_group, built.gpus_per_node, false, lockstep);
    lockstep = sampled.sampled_group >= 0 ? std::move(sampled)
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
  state.rendezvous_mutex = sg4::Mutex::create();
  state.inter_node_latency_s = route.latency_s;
  state.inter_node_bandwidth_Bps = route.ring_bandwidth_Bps;
  state.node_gpus_share_uplink = route.shared_by_node;
  if (full_sample.sampled_group >= 0 && crosses_nodes_in_rings(state, full_sample.sampled_group)) {
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
    r.mutex = sg4::Mutex::create();
    r.ended = sg4::ConditionVariable::create();
    for (int stream = 0; stream < static_cast<int>(program.streams.size()); ++stream) {
      if (state.plans[trace.rank_program[rank]].stream_ops[stream].empty()) {
        ++r.streams_finished;
        continue;
      }
      sg4::Actor::create("r" + std::to_string(rank) + "s" + std::to_string(stream),
                         state.platform.gpu_hosts[rank], StreamActor(state, rank, stream));
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
  if (state.lockstep.sampled_group >= 0) {
    result.replicas_simulated = state.lockstep.sampled_members;
    result.replicas = state.lockstep.sampled_of;
    result.replicas_sampled_exactly = sampled_exactly;
  }
  for (int a = 0; a < 4; ++a)
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
    // Waiting on a pipeline neighbour with neither compute nor a collective going on is the bubble.
    std::vector<Interval> busy = r.compute_busy;
    busy.insert(busy.end(), r.comm_busy.begin(), r.comm_busy.end());
    t.pipeline_bubble_s = uncovered_length(r.p2p_busy, busy);
    busy.insert(busy.end(), r.p2p_busy.begin(), r.p2p_busy.end());
    t.host_bound_s = uncovered_length(r.host_busy, busy);
    for (const auto& [group, intervals] : r.comm_by_group)
      if (group < trace.groups.size())
        t.exposed_by_group_s[trace.groups[group].name] += uncovered_length(intervals, r.compute_busy);
    t.idle_s = std::max(
        0.0, result.makespan_s - t.compute_s - t.exposed_comm_s - t.pipeline_bubble_s - t.host_bound_s);
    result.events.insert(result.events.end(), r.events.begin(), r.events.end());
  }
  // A lockstep member's iteration is its representative's.
  for (int rank = 0; rank < trace.world_size; ++rank)
    if (!state.lockstep.is_representative(rank))
      result.ranks[rank] = result.ranks[state.lockstep.representative[rank]];
  return result;
}

}  // namespace simtrain::engine
