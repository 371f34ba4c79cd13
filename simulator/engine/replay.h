// The SimGrid replay of a Trace on a platform: one actor per (rank, stream) executes that stream's ops in
// order, waiting on cross-stream dependencies; compute ops last their cost-model duration, collectives and
// point-to-point ops become flows over the simulated network. SimGrid lives here and in platform/ only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/cost/nccl_choice.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/trace/trace.h"

namespace simtrain::engine {

// The machine to replay on: a cluster spec, or a SimGrid XML file with its GPUs-per-node.
struct PlatformSource {
  std::optional<platform::ClusterSpec> spec;
  std::string xml_path;
  int xml_gpus_per_node = 1;
};

struct ReplayOptions {
  int timeline_ranks = 0;  // record every op's start and end for this many simulated ranks, lowest first
  // Ranks of this group's communicators are simulated by one representative when plan_lockstep() finds it
  // safe (lockstep.h); empty = every rank simulated on its own.
  std::string lockstep_group = "tp";
  // `--fidelity fast`: communicators of this group (data-parallel replicas) are folded onto their first
  // member (lockstep.h); empty = every replica simulated.
  std::string folded_group;
  // Full fidelity: communicators of this group (data-parallel replicas) are sampled when that is exact
  // (lockstep.h, sample_replicas); empty = every replica simulated. Ignored when folded_group applies.
  std::string sampled_group = "dp";
  // What-if degradations: links whose bandwidth is multiplied by a factor (a flapping NIC, a bad cable),
  // by SimGrid link name ("node3-uplink", "leaf0-uplink"; a split-duplex link's both directions), and
  // ranks whose compute runs slower by a factor (a straggler GPU). Stragglers need every rank simulated on
  // its own: no lockstep, no folding.
  std::vector<std::pair<std::string, double>> degraded_links;
  std::map<int, double> rank_slowdown;
  // NCCL_ALGO / NCCL_PROTO: the algorithm and protocol every collective uses, instead of NCCL's choice.
  cost::NcclOverride nccl;
  // The reference against which coalescing is checked (DESIGN.md §4): each collective's flows cut into
  // their algorithm steps and sent step after step, every rank waiting for its step's sends and receives
  // before the next; all-to-all one flow per rank pair. O(N^2) transfers: small N only.
  bool stepwise_collectives = false;
  // The GPU's SM count (its profile's): a collective's NCCL kernels hold one SM per channel while they run,
  // and kernels running beside them get the rest (replay_state.h, comm_sm_fraction). 0: communication takes
  // no SMs from compute.
  int gpu_sm_count = 0;
  // Called as simulated time advances with the simulated time so far and the number of advances: for a
  // progress line. It must be cheap (it runs on every advance) and must not throw.
  std::function<void(double simulated_s, std::uint64_t advances)> progress;
};

// One op's execution on one rank, for timelines.
struct OpEvent {
  int rank = 0;
  std::uint32_t op = 0;
  double start_s = 0;
  double end_s = 0;
  // For collectives but all-to-all: the algorithm and protocol that ran (RankCollectivePlan::protocol).
  std::optional<cost::NcclAlgorithm> algorithm;
  std::optional<cost::NcclProtocol> protocol;
};

// Where one rank's iteration time went. compute_s: time its compute stream was busy; exposed_comm_s: time a
// collective was in flight while the compute stream was not busy; host_bound_s: time a device stream waited
// for the host to launch its next op, every other dependency of that op met, with neither compute nor a
// collective going on (the host's launches: an imported trace's host ops, or --host's), and time the host
// thread worked with nothing else going on at all (its work after the last kernel); pipeline_bubble_s: time
// spent sending to or waiting on a pipeline neighbour with no compute, collective or launch wait going on;
// offload_bound_s: time a host copy (activation offloading) was running with nothing else going on, the GPU
// waiting for it; idle_s: the rest up to the makespan.
struct RankTimes {
  double end_s = 0;
  double compute_s = 0;
  double exposed_comm_s = 0;
  double idle_s = 0;
  double pipeline_bubble_s = 0;
  double host_bound_s = 0;
  double offload_bound_s = 0;
  // Per communicator group ("tp", "dp", "pp", ...): the time its collectives or transfers were in flight with
  // no compute running. Groups in flight at once count in each, so these may add up to more than
  // exposed_comm_s + pipeline_bubble_s.
  std::map<std::string, double> exposed_by_group_s;
};

struct ReplayResult {
  double makespan_s = 0;
  std::vector<RankTimes> ranks;
  std::vector<OpEvent> events;      // ordered by rank, then by start time
  std::uint64_t flows = 0;          // simulated network transfers
  std::uint64_t compute_waits = 0;  // simulated compute intervals (after fusing back-to-back kernels)
  int nodes = 0;
  int gpus_per_node = 0;
  int lockstep_size = 1;         // ranks of a lockstep group each simulated rank stood for
  bool replicas_folded = false;  // data-parallel replicas folded (--fidelity fast)
  // With replicas sampled: the replicas simulated and the replicas of the job; 0 and 0 otherwise.
  int replicas_simulated = 0;
  int replicas = 0;
  bool replicas_sampled_exactly = false;  // sampled under full fidelity, where it is exact (lockstep.h)
  // Collectives run (all-to-all aside), per simulated rank, by "algorithm/protocol" ("tree/simple"), sorted.
  std::map<std::string, std::uint64_t> collective_algorithms;
};

// Runs the replay. Creates the process's one SimGrid engine, so call it once per process.
// Throws Error when the trace does not fit the platform (more ranks than GPUs) or deadlocks.
ReplayResult replay(const trace::Trace& trace, const cost::ProgramCosts& costs,
                    const calibration::Efficiencies& efficiencies, const PlatformSource& platform,
                    const ReplayOptions& options);

}  // namespace simtrain::engine
