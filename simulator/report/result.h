// The Result of a simulated run (DESIGN.md §3): iteration and job time, throughput, MFU, a time breakdown,
// memory, and which fidelity produced it. Units are in the field names.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "calibration/calibration_profile.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/engine/replay.h"
#include "simulator/trace/trace.h"

namespace simtrain::report {

// Mean over ranks of where the iteration went; the parts add up to the iteration time.
struct Breakdown {
  double compute_s = 0;
  double exposed_comm_s = 0;
  double pipeline_bubble_s = 0;
  double host_bound_s = 0;     // the GPU waiting for the host to launch (imported traces)
  double offload_bound_s = 0;  // the GPU waiting for activations copied to or from the host
  double idle_s = 0;
  // Communication exposed per parallel dimension (communicator group: tp, cp, ep, pp, dp, ...), the mean
  // rank's; see engine::RankTimes::exposed_by_group_s.
  std::map<std::string, double> exposed_by_dimension_s;
};

// How long the job runs: a number of optimizer steps, or epochs over a dataset.
struct JobLength {
  std::optional<double> steps;
  std::optional<double> epochs;
  std::optional<double> dataset_size;  // samples per epoch
  // What the training framework adds (workload/framework.h): once per job, and per step as a fraction of
  // the simulated iteration time.
  double startup_s = 0;
  double step_overhead = 0;
};

// The Result JSON names its schema so that scripts can tell versions apart; the version grows when a field
// changes meaning or goes away (new fields do not change it).
inline constexpr const char* kResultSchemaName = "simtrain-result";
inline constexpr int kResultSchemaVersion = 2;

struct Result {
  std::string simtrain_version;  // common/version.h
  // What the run was asked (run/run_inputs.h): workload or trace files, platform and profile with content
  // hashes, what-ifs.
  nlohmann::json inputs = nlohmann::json::object();
  std::string model;
  std::string platform;
  int gpus = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  std::string parallelism;
  std::string profile;       // GPU name of the profile
  std::string profile_kind;  // "spec" or "measured"
  double iteration_time_s = 0;
  double samples_per_iteration = 0;
  double samples_per_s = 0;
  double tokens_per_s = 0;  // 0 when the model has no tokens
  double mfu = 0;           // model FLOPs / (iteration time * GPUs * peak of the compute dtype)
  std::string mfu_dtype;
  Breakdown breakdown;
  double peak_memory_bytes = 0;
  std::map<std::string, double> memory_breakdown_bytes;  // peak_memory_bytes by what holds it
  double peak_allocated_bytes = 0;  // the caching allocator's view (TraceMetadata); 0 when unknown
  double peak_reserved_bytes = 0;
  double memory_capacity_bytes = 0;
  bool fits_in_memory = true;
  std::optional<double> steps;
  std::optional<double> job_time_s;  // startup + steps x iteration time x (1 + step overhead)
  double startup_s = 0;
  double step_overhead = 0;
  std::uint64_t measured_ops = 0;      // distinct program ops costed from measured tables (exact shape)
  std::uint64_t interpolated_ops = 0;  // ... interpolated between measured shapes
  std::uint64_t roofline_ops = 0;
  std::uint64_t trace_timed_ops = 0;         // measured durations taken as recorded (host ops among them)
  std::uint64_t rescaled_ops = 0;            // ... rescaled from the recording GPU by the profiles' estimates
  std::uint64_t bandwidth_rescaled_ops = 0;  // ... of kernels of unknown size, by the memory bandwidths
  std::string recorded_gpu;                  // the GPU the trace's durations were recorded on, when known
  bool rescaled = false;                     // whether they were rescaled to `profile`'s GPU
  int lockstep_size = 1;                     // ranks of a tensor-parallel group simulated as one
  bool replicas_folded = false;              // --fidelity fast
  int replicas_simulated = 0;                // with replicas sampled: simulated replicas of `replicas`
  int replicas = 0;
  bool replicas_sampled_exactly = false;  // false: sampled by --fidelity fast, without the fabric check
  // With the step extrapolated from shorter ones (run/micro_batch_extrapolation.h): its micro-batches per
  // replica and the two step sizes simulated; 0 when every micro-batch was simulated.
  int micro_batches = 0;
  int micro_batches_fewer = 0;
  int micro_batches_more = 0;
  // Collectives by NCCL algorithm and protocol ("ring/ll128"), counted per simulated rank.
  std::map<std::string, std::uint64_t> collective_algorithms;
  std::uint64_t simulated_flows = 0;
  std::uint64_t simulated_compute_intervals = 0;
  double sim_wall_s = 0;
};

// Assembles the Result; throws Error when job length options contradict each other.
Result make_result(const trace::Trace& trace, const engine::ReplayResult& replay,
                   const calibration::CalibrationProfile& profile, const cost::ProgramCosts& costs,
                   const std::string& platform_name, const JobLength& job, double sim_wall_s);

// With `include_wall_time` false, the document depends on the inputs alone (byte-identical across runs).
nlohmann::json to_json(const Result& result, bool include_wall_time = true);
// A few lines for people; without the wall time, they depend on the inputs alone.
std::string summary_text(const Result& result, bool include_wall_time = true);

}  // namespace simtrain::report
