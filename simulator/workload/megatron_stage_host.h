// Internal to the Megatron trace generator: the host thread's side of one pipeline stage's program
// (host_launch.h), kept beside the stage builder (megatron_stage.cc) as it appends ops. Each op gets what
// Megatron's host does for it: a dispatch with Megatron-Core's Python around it, one launch for a captured
// CUDA graph and none for the rest of the graph, a device synchronisation after a batch of pipeline
// exchanges, and the schedule's own Python at the head of each pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulator/workload/host_launch.h"
#include "simulator/workload/parallel_config.h"
#include "simulator/workload/transformer_kernels.h"

namespace simtrain::workload::megatron {

// What an appended op is to the pipeline's exchanges.
enum class PipelineRole { None, Send, Receive };

class StageHostLaunches {
 public:
  // `sync_after_p2p`: Megatron synchronises the device after each batch of pipeline sends and receives;
  // `early_receives`: the interleaved schedule without overlap posts its receives ahead of the host.
  StageHostLaunches(const ParallelConfig& config, bool sync_after_p2p, bool early_receives);

  // Passes the schedule begins next (two for a combined forward-and-backward step): their Python runs
  // before the next op the host launches.
  void begin_passes(int passes) { pending_passes_ = passes; }
  // The op just appended: one dispatch, none for a receive posted ahead of the host, and the device
  // synchronisation owed since a batch of pipeline exchanges.
  void add(PipelineRole role);
  // The captured CUDA graph a step runs in ("" for none): its layer's micro-batch, layer and pass (`prefix`;
  // a forward and a backward graph are never adjacent) and its region (a scope's router and preprocessing
  // parts are one graph; whole-layer capture is one graph).
  std::string graph_region(const LayerStep& step, const std::string& prefix) const;
  // Whether a step in `region` continues the graph the last op appended ran in (asked before appending it).
  bool continues(const std::string& region) const { return !region.empty() && region == graph_region_; }
  // Op `op` runs `step` in graph `region`: its own dispatches, or inside a captured graph one launch of the
  // graph (on the region's first step, unless it `continues` the last op's) and nothing for the rest; a host
  // wait stays, between graphs.
  void set_step(std::uint32_t op, const LayerStep& step, const std::string& region, bool continues);
  // Per op of the program, with the schedule's cost per pass added.
  std::vector<HostLaunch> finish();

 private:
  const ParallelConfig& config_;
  bool sync_after_p2p_, early_receives_;
  std::vector<HostLaunch> launches_;
  std::string graph_region_;   // the captured graph the last op ran in ("" when it ran outside any)
  bool sync_pending_ = false;  // a pipeline send or receive was issued since the last other op
  int pending_passes_ = 0;     // passes begun whose schedule Python awaits the next op the host launches
  struct ScheduleCost {
    std::uint32_t op;  // the op whose host launch also runs the schedule's Python
    int passes;
  };
  std::vector<ScheduleCost> schedule_costs_;
};

}  // namespace simtrain::workload::megatron
