// Implements stream_actor.h: one (rank, stream)'s ops in order, compute as sleeps, collectives and
// transfers as SimGrid flows.
#include "simulator/engine/stream_actor.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>

namespace sg4 = simgrid::s4u;

namespace simtrain::engine {
namespace {

sg4::Mailbox* mailbox(char kind, int group, int channel, int from, int to) {
  return sg4::Mailbox::by_name(std::string(1, kind) + std::to_string(group) + "." + std::to_string(channel) +
                               ":" + std::to_string(from) + ">" + std::to_string(to));
}

// The simulated payload: only its size matters.
char payload_marker;

// Kernels sharing their SMs with collectives end once the work left is below this share of theirs.
constexpr double kNegligibleWorkFraction = 1e-4;
// Collectives running at once hold at most this share of the GPU together (NCCL's channels are per
// communicator, but the kernels beside them keep SMs), so kernels always progress and the rounds that
// sleep through their lost work shrink at least this fast.
constexpr double kMostHeldShare = 0.5;

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
        // A straggler's GPU is slow, not its host nor its copy engines' link to it.
        slowdown_(state.slowdown.empty() || plan_.host_stream[stream] || plan_.copy_stream[stream]
                      ? 1.0
                      : state.slowdown[rank]),
        host_stream_(plan_.host_stream[stream]),
        copy_stream_(plan_.copy_stream[stream]),
        contended_(state.comm_sm_fraction > 0 && !host_stream_ && !copy_stream_) {}

  void operator()() {
    for (std::uint32_t index : plan_.stream_ops[stream_]) {
      const trace::Op& op = program_.ops[index];
      wait_for_other_streams(op);
      double start = sg4::Engine::get_clock() + pending_s_;
      if (op.type == trace::OpType::Compute) {
        pending_s_ += durations_[index] * slowdown_;
        if (host_stream_)
          self_.host_ready_s[index] = sg4::Engine::get_clock() + pending_s_;
        else if (plan_.awaited_by_other_stream[index])
          flush_compute();
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
        // All-to-all and sendrecv are NCCL's point-to-point exchanges: no algorithm or protocol is chosen.
        if (op.type == trace::OpType::Collective && !cost::is_point_to_point(op.collective.kind))
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
      const std::uint8_t stream = program_.ops[dep].stream;
      if (stream == op.stream) continue;
      if (!self_.done[dep]) {
        flush_compute();
        if (!self_.done[dep]) {  // it did not end while this stream's last kernels ran
          const double from = sg4::Engine::get_clock();
          self_.waiting[dep].push_back(sg4::Actor::self());
          sg4::this_actor::suspend();  // until mark_done(dep)
          // A host op the host has not reached yet (it waits on a synchronisation): waiting for the launch.
          if (plan_.host_stream[stream]) note_launch_wait(from, sg4::Engine::get_clock());
        }
      }
      if (plan_.host_stream[stream]) wait_for_launch(self_.host_ready_s[dep]);
    }
  }

  // A host op is done once the host has reached it, possibly ahead of the clock: the op after it starts no
  // earlier than its end. Idle until then, not busy. The pending kernels end before that launch and nothing
  // else waits on them (those awaited were flushed when they were queued), so one sleep covers both.
  // The host's launch is a dependency like the others but comes last (host_launch.h), so the time slept here
  // is what the launch alone held the stream back: host-bound time in the breakdown.
  void wait_for_launch(double ready_s) {
    const double now = sg4::Engine::get_clock();
    if (ready_s <= now + pending_s_) return;
    if (contended_) {  // the kernels' end is known only once they have run
      flush_compute();
      const double after = sg4::Engine::get_clock();
      if (ready_s > after) {
        note_launch_wait(after, ready_s);
        sg4::this_actor::sleep_for(ready_s - after);
      }
      return;
    }
    note_launch_wait(now + pending_s_, ready_s);
    record_pending_compute(now);
    sg4::this_actor::sleep_for(ready_s - now);
  }

  void mark_done(std::uint32_t index) {
    self_.done[index] = 1;
    if (!plan_.awaited_by_other_stream[index]) return;
    const auto waiting = self_.waiting.find(index);
    if (waiting == self_.waiting.end()) return;
    for (sg4::Actor* actor : waiting->second) actor->resume();
    self_.waiting.erase(waiting);
  }

  // Back-to-back kernels are simulated as one interval: nothing can observe the boundaries between them.
  void flush_compute() {
    if (pending_s_ <= 0) return;
    const double pending_s = pending_s_;
    if (contended_) {
      // The kernels run at the rate the collectives holding SMs leave them (comm_sm_fraction in
      // replay_state.h): sleep through the work left as if at full speed, which never overshoots, then take
      // what the collectives held meanwhile as work still to do, until what is left is negligible.
      const double start = sg4::Engine::get_clock();
      pending_s_ = 0;
      double left_s = pending_s;
      for (double from = start; left_s > kNegligibleWorkFraction * pending_s;) {
        ++state_.compute_waits;
        sg4::this_actor::sleep_for(left_s);
        const double to = sg4::Engine::get_clock();
        left_s = std::min(kMostHeldShare * (to - from), state_.comm_sm_fraction * self_.sms_held_s(from, to));
        from = to;
      }
      self_.compute_busy.push_back({start, sg4::Engine::get_clock()});
      return;
    }
    record_pending_compute(sg4::Engine::get_clock());
    sg4::this_actor::sleep_for(pending_s);
  }

  // A wait for a launch, as the breakdown counts it: a device stream's only (a host stream waiting on another
  // host thread's op is the host's own wait).
  void note_launch_wait(double from, double to) {
    if (!host_stream_) self_.launch_wait.push_back({from, to});
  }

  // Books the pending kernels as busy from `now` on; the caller sleeps at least that long.
  void record_pending_compute(double now) {
    if (pending_s_ <= 0) return;
    (host_stream_   ? self_.host_busy
     : copy_stream_ ? self_.copy_busy
                    : self_.compute_busy)
        .push_back({now, now + pending_s_});
    pending_s_ = 0;
    ++state_.compute_waits;
  }

  void run_collective(const trace::Op& op) {
    const auto& members = state_.communicators.communicator(op.collective.group, rank_);
    const CommunicatorFacts& facts = state_.facts(members);
    cost::RankCollectivePlan plan = state_.collective_plan(op, rank_, members, facts);
    if (members.size() > 1 && !cost::is_point_to_point(op.collective.kind))
      ++state_.algorithm_counts[static_cast<int>(plan.algorithm)][static_cast<int>(plan.protocol)];
    algorithm_ = plan.algorithm;
    protocol_ = plan.protocol;
    // The collective's kernels hold their SMs until it ends (comm_sm_fraction in replay_state.h).
    const double holds_from = sg4::Engine::get_clock();
    if (state_.comm_sm_fraction > 0) self_.sms_open.push_back(holds_from);
    // The intra-node phases' transfers pipeline with the inter-node flows: the collective lasts as long as
    // the slower, plus every step's latency, intra-node and inter-node, one after the other.
    const double started = sg4::Engine::get_clock();
    double extra_latency_s = 0;
    if (plan.steps > 0 && op.collective.group == state_.lockstep.folded_group)
      extra_latency_s = folded_flows_s(plan);
    else if (const SampledGroup* sampled = state_.lockstep.sampled_group(op.collective.group);
             plan.steps > 0 && sampled)
      extra_latency_s = sampled_flows(op, plan, members, *sampled);
    else if (plan.steps > 0 && state_.lockstep.is_carried(op.collective.group))
      extra_latency_s = carried_flows(op, plan, members, facts);
    else if (plan.steps > 0)
      extra_latency_s = run_flows(op, plan);
    const double intra_s = plan.intra_node_before_s + plan.intra_node_after_s;
    const double wait_s = std::max(0.0, started + intra_s - sg4::Engine::get_clock()) +
                          plan.intra_node_serial_s + extra_latency_s + plan.intra_node_latency_s;
    if (wait_s > 0) sg4::this_actor::sleep_for(wait_s);
    wait_for_members(members, facts.simulated_members);
    if (state_.comm_sm_fraction > 0) self_.release_sms(holds_from, sg4::Engine::get_clock());
  }

  // Blocks until the `expected` simulated members of this collective instance have all reached it.
  void wait_for_members(const std::vector<int>& members, int expected) {
    if (expected <= 1) return;
    const auto key = std::make_tuple(&members, stream_, self_.collectives_started[{&members, stream_}]++);
    Rendezvous& r = state_.rendezvous[key];
    if (static_cast<int>(r.waiting.size()) + 1 == expected) {
      for (sg4::Actor* member : r.waiting) member->resume();
      state_.rendezvous.erase(key);
      return;
    }
    r.waiting.push_back(sg4::Actor::self());
    sg4::this_actor::suspend();  // until the last member arrives
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
                          ->put_async(&payload_marker,
                                      rate_capped_bytes(send, state_.wire_bytes(send.bytes, rank_, send.peer),
                                                        rank_, send.peer)));
    std::vector<char*> received(plan.receives.size());
    for (std::size_t i = 0; i < plan.receives.size(); ++i)
      comms.push_back(
          mailbox('c', op.collective.group, stream_, plan.receives[i].peer, rank_)->get_async(&received[i]));
    sg4::Comm::wait_all(comms);
    state_.flows += plan.sends.size();
    return further_steps_latency_s(plan);
  }

  // A flow's simulated bytes: its wire bytes, grown where the flow may not move faster than max_rate_Bps
  // (NCCL's few point-to-point channels) by what that rate falls short of its route's slowest link, so that
  // alone on the route it takes bytes / max_rate_Bps. (SimGrid's own Comm::set_rate bound is dropped under
  // the exact network model's TCP-gamma of 0.) Under contention such a flow takes more than its share.
  std::uint64_t rate_capped_bytes(const cost::CoalescedFlow& send, std::uint64_t wire, int from, int to) {
    if (send.max_rate_Bps <= 0) return wire;
    const double route_Bps = state_.route_bandwidth(from, to);
    if (!(route_Bps > send.max_rate_Bps) || !std::isfinite(route_Bps)) return wire;
    return static_cast<std::uint64_t>(std::llround(wire * route_Bps / send.max_rate_Bps));
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
                       const std::vector<int>& members, const SampledGroup& sampled) {
    const int kept = sampled.members;
    const int per_node = sampled.per_node;
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

  // The flows of a collective of a carried group (LockstepPlan::carried): this representative's and those of
  // the members standing behind it, each between the GPUs of its real ends with its own bytes (not scaled
  // as a representative's flows elsewhere are). A flow starts once both its ends have reached the collective,
  // as a matched send and receive do: each representative starts, on arriving, the flows of its members
  // whose other end's representative is already there, and waits for them; the rendezvous after it waits
  // for every simulated member, so the collective ends with its last flow, as when every rank runs. Returns
  // the latency of the further steps, like run_flows().
  double carried_flows(const trace::Op& op, const cost::RankCollectivePlan& plan,
                       const std::vector<int>& members, const CommunicatorFacts& facts) {
    const auto key = std::make_tuple(&members, stream_, self_.collectives_started[{&members, stream_}]);
    std::vector<char>& arrived = state_.carried_arrivals[key];
    arrived.resize(members.size(), 0);
    const std::vector<int>& representative = state_.lockstep.representative;
    const auto position = [&](int rank) { return state_.communicators.position(op.collective.group, rank); };
    arrived[position(rank_)] = 1;
    const auto here = [&](int rank) { return arrived[position(representative[rank])] != 0; };
    // The flows are listed before any is started: starting one is a simcall, during which the other
    // representatives run and the last to arrive drops `arrived`.
    struct Flow {
      int from, to;
      std::uint64_t bytes;
    };
    std::vector<Flow> flows;
    const auto list = [&](int from, int to, const cost::CoalescedFlow& flow) {
      const auto wire = static_cast<std::uint64_t>(std::llround(flow.bytes));
      flows.push_back({from, to, rate_capped_bytes(flow, wire, from, to)});
    };
    for (int member : members) {
      if (representative[member] != rank_) continue;
      cost::RankCollectivePlan other;
      if (member != rank_) other = state_.collective_plan(op, member, members, facts);
      const cost::RankCollectivePlan& own = member == rank_ ? plan : other;
      for (const auto& send : own.sends)
        if (here(send.peer)) list(member, send.peer, send);
      for (const auto& receive : own.receives)
        if (representative[receive.peer] != rank_ && here(receive.peer)) list(receive.peer, member, receive);
    }
    if (std::count(arrived.begin(), arrived.end(), 1) == facts.simulated_members)
      state_.carried_arrivals.erase(key);
    std::vector<sg4::CommPtr> comms;
    for (const Flow& flow : flows)
      comms.push_back(sg4::Comm::sendto_async(state_.platform.gpu_hosts[flow.from],
                                              state_.platform.gpu_hosts[flow.to], flow.bytes));
    state_.flows += flows.size();
    sg4::Comm::wait_all(comms);
    return further_steps_latency_s(plan);
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
                ->put_async(
                    &payload_marker,
                    rate_capped_bytes(send, state_.wire_bytes(send.bytes / plan.steps, rank_, send.peer),
                                      rank_, send.peer)));
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
          ->put(&payload_marker, send_bytes(op, peer, members));
      ++state_.flows;
    } else {
      mailbox('p', op.p2p.group, op.p2p.tag, peer, rank_)->get<char>();
    }
  }

  // A send's simulated bytes. Across nodes it is NCCL's point-to-point send (ncclSend: a pipeline stage's
  // activations), at what NCCL's point-to-point reaches of the NICs and no faster than its channels to a
  // network peer and its proxy allow (cost::point_to_point_flow); inside a node the NVLink flow as it is.
  // Every GPU of a stage sends at once, each through its share of the NICs, so a cap below that share
  // grows the bytes by what it falls short of the share (rate_capped_bytes' route would be the GPU's own
  // link, which the NICs' share lies under).
  std::uint64_t send_bytes(const trace::Op& op, int peer, const std::vector<int>& members) {
    if (state_.platform.node_of(rank_) == state_.platform.node_of(peer))
      return state_.wire_bytes(op.p2p.bytes, rank_, peer);
    const cost::CollectiveLayout layout =
        state_.collective_layout(op.p2p.group, rank_, members, state_.facts(members));
    const cost::CoalescedFlow flow =
        cost::point_to_point_flow(op.p2p.bytes, rank_, peer, layout, state_.efficiencies);
    const double share_Bps = layout.inter_node_bandwidth_Bps;
    const double capped =
        flow.max_rate_Bps > 0 && share_Bps > flow.max_rate_Bps ? share_Bps / flow.max_rate_Bps : 1;
    return state_.wire_bytes(flow.bytes * capped, rank_, peer);
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
  const bool copy_stream_;  // the stream holds host copies, which the copy engines run
  const bool contended_;  // the GPU's kernels share its SMs with collectives (ReplayState::comm_sm_fraction)
  double pending_s_ = 0;
  cost::NcclAlgorithm algorithm_ = cost::NcclAlgorithm::Ring;  // of the last collective
  cost::NcclProtocol protocol_ = cost::NcclProtocol::Simple;
};

}  // namespace

void create_stream_actor(ReplayState& state, int rank, int stream) {
  sg4::Actor::create("r" + std::to_string(rank) + "s" + std::to_string(stream),
                     state.platform.gpu_hosts[rank], StreamActor(state, rank, stream));
}

}  // namespace simtrain::engine
