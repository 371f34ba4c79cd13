// What the actors of one replay share (replay.cc builds it, stream_actor.cc runs on it): the trace, its costs
// and lockstep plan, the built platform, every simulated rank's progress, and caches of communicator facts
// and route figures. Internal to the engine; replay.h is the API.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "simulator/cost/collective_algorithm.h"
#include "simulator/engine/busy_intervals.h"
#include "simulator/engine/lockstep.h"
#include "simulator/engine/replay.h"
#include "simulator/platform/simgrid_platform.h"

namespace simtrain::engine {

// Per program: each stream's ops in issue order, and which ops another stream waits for. Ops nobody on
// another stream waits for can be fused with their neighbours into one simulated interval.
struct ProgramPlan {
  std::vector<std::vector<std::uint32_t>> stream_ops;
  std::vector<char> awaited_by_other_stream;
  std::vector<char> host_stream;  // [stream]: every op is ComputeKind::Host (an imported trace's host)
  // [stream]: every op is a host copy (ComputeSpec::host_copy: activation offloading), which the copy
  // engines run beside the kernels, holding no SMs.
  std::vector<char> copy_stream;
};

ProgramPlan plan_program(const trace::Program& program);

// What one rank's stream actors share: which ops have ended, and which actors are suspended until one does.
// Actors run one at a time between SimGrid calls, so checking `done`, registering and suspending cannot
// race with the op's end; a suspend/resume pair costs two simcalls where a mutex and condition variable
// cost five or more, and this is the replay's most frequent synchronisation.
struct RankState {
  std::vector<char> done;
  // Host ops (ProgramPlan::host_stream): when the host finishes each. The host thread runs ahead of the
  // clock, marking its ops done with their end time here instead of sleeping through each one, so a GPU op
  // waits only when its launch is still in the future (sized only for programs with a host stream).
  std::vector<double> host_ready_s;
  std::unordered_map<std::uint32_t, std::vector<simgrid::s4u::Actor*>> waiting;  // op -> suspended actors
  std::vector<Interval> compute_busy;
  std::vector<Interval> host_busy;  // the launching thread's work (ComputeKind::Host ops)
  // A device stream idle because the host has not yet launched its next op (every other dependency met).
  std::vector<Interval> launch_wait;
  std::vector<Interval> copy_busy;  // host copies (ProgramPlan::copy_stream)
  std::vector<Interval> comm_busy;  // collectives
  std::vector<Interval> p2p_busy;   // sends and receives (pipeline stages)
  std::map<std::uint16_t, std::vector<Interval>> comm_by_group;  // collectives and transfers, by group
  std::vector<OpEvent> events;
  double end_s = 0;
  int streams_finished = 0;
  // Collectives started so far per (communicator, stream): the instance a rendezvous belongs to.
  std::map<std::pair<const std::vector<int>*, int>, std::uint64_t> collectives_started;
  // Collectives holding SMs (ReplayState::comm_sm_fraction): the start of each still running, and the
  // intervals of those that ended, in order of their ends.
  std::vector<double> sms_open;
  std::vector<Interval> sms_held;

  void release_sms(double from, double to);
  // The collectives' SM-holding time within [from, to], summed over the collectives (seconds x holders).
  double sms_held_s(double from, double to) const;
};

// Where the simulated members of one collective instance wait for each other: a ring's or tree's result
// reaches a rank only once every member's data has gone round, so no member is done before the slowest.
// Its members suspend until the last arrives (see RankState on why no mutex is needed).
struct Rendezvous {
  std::vector<simgrid::s4u::Actor*> waiting;  // the members arrived so far, suspended
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
  // The share of a GPU's SMs a collective's kernels hold while it runs, from its start to the end of its
  // rendezvous: NCCL runs one CTA per channel on an SM of its own, so kernels running beside it get the
  // other SMs. The compute stream sleeps on for the work its kernels lost to the collectives that held SMs
  // meanwhile (RankState::sms_held_s, stream_actor.cc); the compute in the breakdown shows it, the
  // timeline's kernel events keep their own durations. 0 = no SMs held.
  double comm_sm_fraction = 0;
  std::map<std::tuple<const std::vector<int>*, int, std::uint64_t>, Rendezvous> rendezvous;
  // Per collective instance of a carried group (LockstepPlan::carried): [position] -> the representative
  // there has arrived, so the flows from and to its members can start (stream_actor.cc, carried_flows).
  std::map<std::tuple<const std::vector<int>*, int, std::uint64_t>, std::vector<char>> carried_arrivals;
  std::uint64_t algorithm_counts[cost::kNcclAlgorithmCount][3] = {};  // [NcclAlgorithm][NcclProtocol]

  // What a communicator's collectives need to know of it, worked out on its first collective.
  const CommunicatorFacts& facts(const std::vector<int>& members);

  // How a communicator's ranks sit and what NCCL finds on the platform, for `rank` (at its position in
  // `group`); the collective's own token routing is the caller's to set.
  cost::CollectiveLayout collective_layout(int group, int rank, const std::vector<int>& members,
                                           const CommunicatorFacts& facts) const;
  // What one rank does in one collective: NCCL's algorithm and protocol, its flows and analytic parts.
  cost::RankCollectivePlan collective_plan(const trace::Op& op, int rank, const std::vector<int>& members,
                                           const CommunicatorFacts& facts) const;

  // Bytes a flow between two ranks carries on the wire. A lockstep representative's flows to another node
  // stand for its whole group's: through a shared uplink they are the group's bytes; where each GPU has its
  // own rail, the members' flows run alike on their own rails. Inside a node each member has its own links.
  std::uint64_t wire_bytes(double bytes, int from, int to) const;
  double wire_scale(int from, int to) const;

  // The slowest link's bandwidth and the latency of the route between two GPUs, cached.
  double route_bandwidth(int from, int to);
  double route_latency(int from, int to);
};

// Between nodes, for the algorithm choice (collective_algorithm.h) and lockstep: the route from the first GPU
// of node 0 to the first of node 1, its latency, and the bandwidth one ring of equal local index gets on it
// (its slowest link per GPU: a link the node's GPUs all cross, as they do an aggregated uplink, counts at 1/L
// of its bandwidth; not where each GPU has its own rail). Zeros on one node.
struct InterNodeRoute {
  double latency_s = 0;
  double ring_bandwidth_Bps = 0;
  bool shared_by_node = true;  // the node's GPUs reach other nodes through one bottleneck link
  // Where the node's GPUs share the bottleneck: whether its first GPU's own links (its NVLink link) carry
  // the whole node's share of it. Node lockstep, which sends the node's traffic from that GPU, is exact only
  // then; not on an NVL72 rack, whose 64 NICs carry 3.6 times one GPU's 900 GB/s.
  bool first_gpu_carries_node = true;
};

InterNodeRoute inter_node_route(const platform::BuiltPlatform& platform);

}  // namespace simtrain::engine
