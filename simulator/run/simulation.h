// One simulated training run from request to Result: resolve the platform and profile, obtain the trace
// (generated or read), check that it fits in memory, cost it, replay it, and report. The `simtrain run`
// command is a thin layer of option parsing over simulate().
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "calibration/calibration_profile.h"
#include "simulator/cost/jitter.h"
#include "simulator/engine/replay.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/report/result.h"
#include "simulator/trace/trace.h"
#include "simulator/trace/trace_import.h"
#include "simulator/workload/data_parallel.h"
#include "simulator/workload/parallel_config.h"

namespace simtrain::run {

struct RunRequest {
  // Exactly one of: a data-parallel workload or a large-model (model-parallel) one to generate, or a trace
  // file to replay.
  std::optional<workload::DataParallelConfig> workload;
  std::optional<workload::ParallelConfig> parallel;
  std::vector<std::string> config_files;  // the framework files that described it (DeepSpeed, torchtitan)
  std::vector<std::string>
      trace_paths;                    // any format trace/trace_import.h reads; one file per rank for Kineto
  trace::ImportOptions import;        // how to import recorded traces (step, scale-out, host speed)
  std::optional<trace::Trace> trace;  // a trace built in memory (simtrain collective)

  std::string platform = "dgx-a100";  // shipped spec name, TOML path, or SimGrid XML path (*.xml)
  std::optional<int> nodes;           // overrides the spec's node count
  // Uses only this many GPUs of each node, each with its own NICs (platform::using_gpus_per_node).
  std::optional<int> gpus_per_node;
  int xml_gpus_per_node = 8;          // for XML platforms
  std::string profile;                // profile name or file; empty = the spec's GPU
  report::JobLength job;
  bool allow_oom = false;  // simulate configurations that do not fit in GPU memory
  int timeline_ranks = 0;
  std::string lockstep_group = "tp";  // see engine/lockstep.h; empty = simulate every rank on its own
  // Collectives hold one SM per NCCL channel while they run, slowing the kernels beside them
  // (engine/replay.h, gpu_sm_count); not for traces recorded on a real run, whose kernel times include it.
  bool comm_sms = true;
  bool fold_replicas = false;         // --fidelity fast: data-parallel replicas folded onto one
  bool sample_replicas = true;        // full fidelity: sample replicas where exact (engine/lockstep.h)
  cost::Jitter jitter;                // run-to-run noise; none unless a seed is given
  // What-ifs (engine/replay.h): link bandwidth factors by link name, compute slowdowns by rank.
  std::vector<std::pair<std::string, double>> degraded_links;
  std::map<int, double> rank_slowdown;
  cost::NcclOverride nccl;            // NCCL_ALGO / NCCL_PROTO (engine/replay.h)
  bool stepwise_collectives = false;  // the step-by-step reference instead of coalesced flows
  // Replay every micro-batch of a long large-model step instead of extrapolating from two shorter steps
  // (micro_batch_extrapolation.h).
  bool simulate_every_micro_batch = false;
  // Told what the run is doing ("building the trace", "costing", "simulating") and, while simulating, the
  // simulated time and time advances so far: for a progress line. Must be cheap and must not throw.
  std::function<void(const char* phase, double simulated_s, std::uint64_t advances)> progress;
};

struct RunOutput {
  trace::Trace trace;
  std::vector<std::string> warnings;  // what importing the trace noticed (trace_import.h)
  calibration::CalibrationProfile profile;
  engine::ReplayResult replay;
  report::Result result;
};

// Throws Error on bad input or an impossible configuration, before any simulation starts where possible.
RunOutput simulate(const RunRequest& request);

// The trace of a large-model configuration, as Megatron-LM (and DeepSpeed ZeRO / FSDP) run it. Throws Error
// when the model is not a transformer or the configuration is impossible.
trace::Trace generate_parallel_trace(const workload::ParallelConfig& config);

// What a platform says about its GPUs, applied to their profile: a fabric generation's own NCCL
// efficiencies (cluster_spec.h) replace a spec profile's defaults, and a clock below the boost clock
// (gpu_clock_mhz) scales the compute peaks, and a power cap below the TDP (gpu_power_limit_w) lowers the
// GEMM rate a power-limited generation sustains. A measured profile keeps what was measured, and refuses a
// clock or a cap (its kernel times carry the clocks they were measured at): Error naming the spec's field.
// Where the spec gives a channel's rate (nccl_channel_GBps), the inter-node efficiency is the least of the
// NICs' and their channels' (cost/nccl_channels.h), the channels being NCCL's or `nccl`'s minimum.
// simulate() applies it; so does the plan search's estimate.
void apply_platform_to_profile(const platform::ClusterSpec& spec, calibration::CalibrationProfile& profile,
                               const cost::NcclOverride& nccl = {});

// The number of training samples in one epoch of the dataset a zoo model is usually trained on (ImageNet-1k
// for the ImageNet models, MNIST for LeNet-5), or nullopt when there is no single customary dataset.
std::optional<double> default_dataset_size(const std::string& model);

}  // namespace simtrain::run
