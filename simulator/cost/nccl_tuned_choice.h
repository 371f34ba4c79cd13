// A collective across NVLink nodes priced as NCCL's own tuner prices it (collective_algorithm.h, nccl_tuner):
// every (algorithm, protocol) option NCCL weighs, each at NCCL's latency (nccl_tuner.h) plus the slower of
// its intra-node part and its network part over the platform's bandwidths, and the option NCCL would run.
// plan_collective turns the chosen option into flows.
#pragma once

#include <algorithm>
#include <optional>

#include "calibration/calibration_profile.h"
#include "simulator/cost/collective_algorithm.h"
#include "simulator/cost/nccl_choice.h"
#include "simulator/cost/nvls_pipeline.h"
#include "simulator/trace/trace.h"

namespace simtrain::cost {

// One (algorithm, protocol) NCCL's tuner weighs for a collective across nodes, priced as
// collective_algorithm.h says.
struct TunedOption {
  NcclAlgorithm algorithm = NcclAlgorithm::Ring;
  NcclProtocol protocol = NcclProtocol::Simple;
  double latency_s = 0;
  double intra_node_s = 0;  // the analytic intra-node phases, all together
  double network_s = 0;     // the busiest node's volume over its NICs
  double flow_factor = 1;   // what the flows' bytes are divided by (the protocol's share, the LL cap)
  double estimate_s = -1;   // NCCL's estimate where it differs from what the option takes (ring, NVLS-tree)
  double total_s() const { return latency_s + std::max(intra_node_s, network_s); }
  // What NCCL's tuner ranks the option by.
  double ranked_s() const { return estimate_s >= 0 ? estimate_s : total_s(); }
};

// `algorithm` under `protocol` for `kind` of `bytes` over the layout's nodes; an infinite latency where NCCL
// does not run that protocol with that algorithm.
TunedOption price_tuned(NcclAlgorithm algorithm, NcclProtocol protocol, trace::CollectiveKind kind,
                        double bytes, const CollectiveLayout& layout,
                        const calibration::Efficiencies& efficiencies);

// The (algorithm, protocol) of least estimated time among those NCCL would weigh (all-reduce: ring, tree,
// NVLS-tree on NVLS nodes, CollNet Direct / Chain and NVLS where CollNet runs; the others: ring), or the
// forced ones where they run.
TunedOption choose_tuned(trace::CollectiveKind kind, double bytes, const CollectiveLayout& layout,
                         const calibration::Efficiencies& efficiencies);

// PAT, where NCCL's tuner would run it for an all-gather or reduce-scatter over one GPU per node instead of a
// ring (its estimate less than every ring protocol's, or forced); nullopt where the ring runs.
std::optional<TunedOption> pat_over_ring(trace::CollectiveKind kind, double bytes,
                                         const CollectiveLayout& layout,
                                         const calibration::Efficiencies& efficiencies);

// The NVLS figures of the layout's nodes (nvls_pipeline.h).
NvlsFigures nvls_figures(const CollectiveLayout& layout);

}  // namespace simtrain::cost
