// Implements megatron_stage_host.h.
#include "simulator/workload/megatron_stage_host.h"

namespace simtrain::workload::megatron {

StageHostLaunches::StageHostLaunches(const ParallelConfig& config, bool sync_after_p2p, bool early_receives)
    : config_(config), sync_after_p2p_(sync_after_p2p), early_receives_(early_receives) {}

void StageHostLaunches::add(PipelineRole role) {
  HostLaunch launch{config_.host_overhead};  // one dispatch, Megatron's Python around it
  // Interleaved without overlap, Megatron receives the next forward's input and the next backward's
  // gradient in the batch after the current pair of passes, before either runs; the builder issues each
  // receive at the head of its pass. Left to the host's issue order, a receive would be posted only after
  // passes that wait on the neighbour, which waits on it (a dropless dispatcher's host wait closes the
  // cycle), so such receives go without a launch of their own and are posted in their stream's order.
  const bool posted_ahead = early_receives_ && role == PipelineRole::Receive;
  if (posted_ahead) launch.launches = 0;
  // Batched pipeline sends and receives end in torch.cuda.synchronize (p2p_communication.py, under
  // batch_p2p_comm and batch_p2p_sync): the host issues the next op only once the device has drained.
  if (role != PipelineRole::None) {
    sync_pending_ = sync_pending_ || sync_after_p2p_;
  } else if (sync_pending_) {
    launch.device_sync = true;
    sync_pending_ = false;
  }
  launches_.push_back(launch);
  graph_region_.clear();
  // The schedule's Python for the pass runs before the first op of it that the host launches.
  if (pending_passes_ > 0 && !posted_ahead) {
    schedule_costs_.push_back({static_cast<std::uint32_t>(launches_.size() - 1), pending_passes_});
    pending_passes_ = 0;
  }
}

std::string StageHostLaunches::graph_region(const LayerStep& step, const std::string& prefix) const {
  const CudaGraphs& graphs = config_.cuda_graphs;
  if (!graphs.captures(step.graph)) return "";
  CudaGraphModules region = graphs.modules & step.graph;
  if (region & kGraphMoePreprocess) region = (region & ~kGraphMoePreprocess) | kGraphMoeRouter;
  return prefix + "/" + std::to_string(region);
}

void StageHostLaunches::set_step(std::uint32_t op, const LayerStep& step, const std::string& region,
                                 bool continues) {
  const double python = config_.host_overhead;  // Megatron-Core's Python around each dispatch
  const bool device_sync = launches_[op].device_sync;
  const double moe_layer = step.moe_layer_python ? config_.host_moe_layer_overhead : 0.0;
  launches_[op] = region.empty() ? HostLaunch{python * step.launches + step.looped_dispatches + moe_layer,
                                              step.looped_kernels, step.host_waits, device_sync}
                                 : HostLaunch{continues ? 0.0 : python, 0, step.host_waits, device_sync};
  graph_region_ = region;
}

std::vector<HostLaunch> StageHostLaunches::finish() {
  for (const ScheduleCost& cost : schedule_costs_)
    launches_[cost.op].launches += cost.passes * config_.host_pass_overhead;
  return std::move(launches_);
}

}  // namespace simtrain::workload::megatron
