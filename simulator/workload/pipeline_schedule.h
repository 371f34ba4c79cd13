// Pipeline-parallel schedules as pure functions: for every pipeline stage, the order in which it runs the
// forward and backward passes of each (micro-batch, model chunk). The trace generator turns these orders
// into ops; an idealized unit-time simulation of them gives the bubble the schedule implies.
#pragma once

#include <string>
#include <vector>

#include "simulator/workload/parallel_config.h"

namespace simtrain::workload {

// One pass of one micro-batch through one model chunk (virtual stage) of a pipeline stage.
struct PipelineStep {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  // model chunk of this stage, 0..vpp-1; chunk c of stage s is virtual stage c * pp + s
  // One of the forward-and-backward pairs of 1F1B's steady phase (not warm-up or cool-down): what the
  // combined 1F1B runs together.
  bool steady = false;

  friend bool operator==(const PipelineStep&, const PipelineStep&) = default;
};

// What each stage runs, in order: stage_steps[stage] holds 2 * micro_batches * chunks steps.
using PipelineOrder = std::vector<std::vector<PipelineStep>>;

// GPipe: every forward (micro-batches in order), then every backward (in reverse, as autograd runs a
// concatenated loss backward). Keeps all micro-batches' activations alive.
PipelineOrder gpipe_order(int stages, int micro_batches);

// Megatron-LM's 1F1B (PipeDream-Flush): stage s runs min(stages - s - 1 + extra_warmup, micro_batches)
// warm-up forwards, then alternates one forward and one backward, then drains the remaining backwards.
// Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm) runs one extra warm-up forward, so that
// every forward of the steady state is followed by another micro-batch's backward, which it overlaps.
PipelineOrder one_f_one_b_order(int stages, int micro_batches, int extra_warmup = 0);

// Megatron-LM's interleaved 1F1B with `chunks` model chunks per stage. Forwards visit chunks in groups of
// `stages` micro-batches (chunk 0 for micro-batches 0..p-1, chunk 1 for the same, ...); backwards visit
// chunks in reverse. Warm-up on stage s: (stages - s - 1) * 2 + (chunks - 1) * stages forwards, plus
// extra_warmup (as above). Throws Error unless micro_batches is a multiple of stages.
PipelineOrder interleaved_order(int stages, int micro_batches, int chunks, int extra_warmup = 0);

// The order a ParallelConfig's schedule implies (interleaved whenever chunks > 1); `overlap_expert_parallel`
// (ParallelConfig::overlap_moe_expert_parallel_comm) adds the combined 1F1B's extra warm-up forward.
PipelineOrder pipeline_order(PipelineSchedule schedule, int stages, int micro_batches, int chunks,
                             bool overlap_expert_parallel = false);

// Times of an idealized run of an order: every forward of a chunk lasts forward_s, every backward
// backward_s, communication is free, and a step starts when its stage is free and its input exists (the
// previous virtual stage's forward, or the next virtual stage's backward).
struct IdealPipelineRun {
  double makespan_s = 0;
  double busy_s = 0;           // per stage: micro_batches * chunks * (forward_s + backward_s)
  double bubble_fraction = 0;  // (makespan - busy) / busy: (p - 1) / m for 1F1B, (p - 1) / (m v) interleaved
};
// Throws Error when the order deadlocks (a step waits on one that its stage runs later).
IdealPipelineRun simulate_ideal_pipeline(const PipelineOrder& order, int chunks, double forward_s,
                                         double backward_s);

// Compact text of one stage's order, e.g. "F0 F1 B0 F2 B1 B2" or with chunks "F0.1" (micro-batch.chunk).
std::string to_string(const std::vector<PipelineStep>& steps, bool show_chunks);

}  // namespace simtrain::workload
