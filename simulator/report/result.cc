// Implements result.h: the Result from a replay, as JSON and as a summary for people.
#include "simulator/report/result.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "simulator/cost/compute_cost.h"

namespace simtrain::report {

Result make_result(const trace::Trace& trace, const engine::ReplayResult& replay,
                   const calibration::CalibrationProfile& profile, const cost::ProgramCosts& costs,
                   const std::string& platform_name, const JobLength& job, double sim_wall_s) {
  const trace::TraceMetadata& meta = trace.metadata;
  Result r;
  r.model = meta.model;
  r.platform = platform_name;
  r.gpus = trace.world_size;
  r.nodes = replay.nodes;
  r.gpus_per_node = replay.gpus_per_node;
  r.parallelism = meta.parallelism;
  r.profile = profile.device.name;
  r.profile_kind = std::string(calibration::to_string(profile.kind));
  r.iteration_time_s = replay.makespan_s;
  r.samples_per_iteration = meta.samples_per_iteration;
  if (r.iteration_time_s > 0) {
    r.samples_per_s = meta.samples_per_iteration / r.iteration_time_s;
    r.tokens_per_s = meta.tokens_per_iteration / r.iteration_time_s;
    double peak = cost::ComputeCostModel(profile).effective_peak_flops(meta.compute_dtype);
    if (peak > 0) r.mfu = meta.model_flops_per_iteration / (r.iteration_time_s * r.gpus * peak);
  }
  r.mfu_dtype = std::string(to_string(meta.compute_dtype));
  for (const engine::RankTimes& t : replay.ranks) {
    r.breakdown.compute_s += t.compute_s;
    r.breakdown.exposed_comm_s += t.exposed_comm_s;
    r.breakdown.pipeline_bubble_s += t.pipeline_bubble_s;
    r.breakdown.host_bound_s += t.host_bound_s;
    r.breakdown.offload_bound_s += t.offload_bound_s;
    r.breakdown.idle_s += t.idle_s;
    for (const auto& [group, seconds] : t.exposed_by_group_s)
      r.breakdown.exposed_by_dimension_s[group] += seconds;
  }
  if (!replay.ranks.empty()) {
    double n = static_cast<double>(replay.ranks.size());
    r.breakdown.compute_s /= n;
    r.breakdown.exposed_comm_s /= n;
    r.breakdown.pipeline_bubble_s /= n;
    r.breakdown.host_bound_s /= n;
    r.breakdown.offload_bound_s /= n;
    r.breakdown.idle_s /= n;
    for (auto& [group, seconds] : r.breakdown.exposed_by_dimension_s) seconds /= n;
  }
  r.peak_memory_bytes = meta.peak_memory_bytes;
  r.peak_allocated_bytes = meta.peak_allocated_bytes;
  r.memory_breakdown_bytes = meta.memory_breakdown_bytes;
  r.peak_reserved_bytes = meta.peak_reserved_bytes;
  r.memory_capacity_bytes = profile.device.memory_bytes;
  r.fits_in_memory = meta.peak_memory_bytes <= profile.device.memory_bytes;

  if (job.steps && job.epochs) throw Error("--steps and --epochs: give one or the other, not both");
  if (job.steps) {
    r.steps = *job.steps;
  } else if (job.epochs) {
    if (!job.dataset_size) throw Error("--epochs: needs --dataset-size (samples per epoch) for this model");
    if (meta.samples_per_iteration <= 0) throw Error("--epochs: the trace does not say its samples per step");
    // The last, partial batch of an epoch is a step too (PyTorch's DataLoader with drop_last=False).
    r.steps = std::ceil(*job.dataset_size / meta.samples_per_iteration) * *job.epochs;
  }
  r.startup_s = job.startup_s;
  r.step_overhead = job.step_overhead;
  if (r.steps) r.job_time_s = job.startup_s + *r.steps * r.iteration_time_s * (1 + job.step_overhead);

  r.measured_ops = costs.measured_ops;
  r.interpolated_ops = costs.interpolated_ops;
  r.roofline_ops = costs.roofline_ops;
  r.trace_timed_ops = costs.trace_timed_ops;
  r.rescaled_ops = costs.rescaled_ops;
  r.bandwidth_rescaled_ops = costs.bandwidth_rescaled_ops;
  r.recorded_gpu = meta.recorded_gpu;
  r.rescaled = !costs.rescaled_from.empty();
  r.lockstep_size = replay.lockstep_size;
  r.replicas_folded = replay.replicas_folded;
  r.replicas_simulated = replay.replicas_simulated;
  r.replicas = replay.replicas;
  r.replicas_sampled_exactly = replay.replicas_sampled_exactly;
  r.collective_algorithms = replay.collective_algorithms;
  r.simulated_flows = replay.flows;
  r.simulated_compute_intervals = replay.compute_waits;
  r.sim_wall_s = sim_wall_s;
  return r;
}

namespace {

// Where kernel durations came from, in words: the trace's own (as recorded or rescaled), the profile's
// tables, its roofline, in the order they apply.
std::string compute_fidelity(const Result& r) {
  std::string text;
  if (r.rescaled_ops + r.bandwidth_rescaled_ops > 0)
    text = "trace durations rescaled from " + r.recorded_gpu;
  else if (r.trace_timed_ops > 0)
    text = "trace durations as recorded";
  const bool tables = r.measured_ops + r.interpolated_ops > 0;
  if (text.empty()) return tables ? "measured tables, roofline elsewhere" : "roofline from profile";
  if (tables) return text + ", measured tables, roofline elsewhere";
  return r.roofline_ops > 0 ? text + ", roofline elsewhere" : text;
}

}  // namespace

nlohmann::json to_json(const Result& r, bool include_wall_time) {
  nlohmann::json j;
  j["schema"] = kResultSchemaName;
  j["schema_version"] = kResultSchemaVersion;
  j["simtrain_version"] = r.simtrain_version;
  j["inputs"] = r.inputs;
  j["model"] = r.model;
  j["platform"] = r.platform;
  j["gpus"] = r.gpus;
  j["nodes"] = r.nodes;
  j["gpus_per_node"] = r.gpus_per_node;
  j["parallelism"] = r.parallelism;
  j["iteration_time_s"] = r.iteration_time_s;
  j["samples_per_iteration"] = r.samples_per_iteration;
  j["samples_per_s"] = r.samples_per_s;
  if (r.tokens_per_s > 0) j["tokens_per_s"] = r.tokens_per_s;
  j["mfu"] = r.mfu;
  j["mfu_dtype"] = r.mfu_dtype;
  j["breakdown"] = {{"compute_s", r.breakdown.compute_s},
                    {"exposed_comm_s", r.breakdown.exposed_comm_s},
                    {"pipeline_bubble_s", r.breakdown.pipeline_bubble_s},
                    {"host_bound_s", r.breakdown.host_bound_s},
                    {"offload_bound_s", r.breakdown.offload_bound_s},
                    {"idle_s", r.breakdown.idle_s},
                    {"exposed_comm_by_dimension_s", r.breakdown.exposed_by_dimension_s}};
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  if (r.peak_allocated_bytes > 0) j["peak_allocated_bytes"] = r.peak_allocated_bytes;
  if (!r.memory_breakdown_bytes.empty()) j["memory_breakdown_bytes"] = r.memory_breakdown_bytes;
  if (r.peak_reserved_bytes > 0) j["peak_reserved_bytes"] = r.peak_reserved_bytes;
  j["memory_capacity_bytes"] = r.memory_capacity_bytes;
  j["fits_in_memory"] = r.fits_in_memory;
  if (r.steps) j["steps"] = *r.steps;
  if (r.job_time_s) {
    j["job_time_s"] = *r.job_time_s;
    j["startup_s"] = r.startup_s;
    j["step_overhead"] = r.step_overhead;
  }
  j["profile"] = r.profile;
  j["profile_kind"] = r.profile_kind;
  j["fidelity"] = {
      {"compute", compute_fidelity(r)},
      {"network", r.replicas_folded ? "flow-level (SimGrid CM02) except data-parallel collectives, analytic "
                                      "over the platform's routes"
                                    : "flow-level (SimGrid CM02, coalesced collectives)"},
      {"level",
       r.replicas_folded || (r.replicas_simulated > 0 && !r.replicas_sampled_exactly) ? "fast" : "full"},
      {"replicas", r.replicas_folded ? "data-parallel replicas folded into one (no contention between them)"
                   : r.replicas_simulated > 0
                       ? std::to_string(r.replicas_simulated) + " of " + std::to_string(r.replicas) +
                             (r.replicas_sampled_exactly
                                  ? " data-parallel replicas simulated (the others see identical traffic on "
                                    "links that cannot bind)"
                                  : " data-parallel replicas simulated (the others taken to see identical "
                                    "traffic; contention above the nodes is only the sample's)")
                       : "every data-parallel replica simulated"},
      {"lockstep_group_size", r.lockstep_size},
      {"ops_measured", r.measured_ops},
      {"ops_interpolated", r.interpolated_ops},
      {"ops_roofline", r.roofline_ops},
      {"ops_timed_in_trace", r.trace_timed_ops},
      {"ops_rescaled", r.rescaled_ops},
      {"ops_rescaled_by_bandwidth", r.bandwidth_rescaled_ops}};
  if (!r.recorded_gpu.empty()) j["fidelity"]["recorded_gpu"] = r.recorded_gpu;
  if (r.micro_batches > 0)
    j["fidelity"]["micro_batches"] = fmt::format(
        "{} and {} of the step's {} micro-batches per replica simulated, the rest extrapolated from their "
        "steady state",
        r.micro_batches_fewer, r.micro_batches_more, r.micro_batches);
  j["collective_algorithms"] = r.collective_algorithms;
  j["simulated_flows"] = r.simulated_flows;
  j["simulated_compute_intervals"] = r.simulated_compute_intervals;
  if (include_wall_time) j["sim_wall_s"] = r.sim_wall_s;
  return j;
}

namespace {

std::string human_duration(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f} us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.2f} ms", seconds * 1e3);
  if (seconds < 3600) return fmt::format("{:.2f} s", seconds);
  if (seconds < 86400 * 2) return fmt::format("{:.2f} h", seconds / 3600);
  return fmt::format("{:.2f} days", seconds / 86400);
}

}  // namespace

std::string summary_text(const Result& r, bool include_wall_time) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  std::string text;
  text += fmt::format("{} on {} x {} GPUs ({} nodes x {}), {}, {} profile '{}'\n", r.model, r.platform,
                      r.gpus, r.nodes, r.gpus_per_node, r.parallelism, r.profile_kind, r.profile);
  text += fmt::format("  iteration time   {}\n", human_duration(r.iteration_time_s));
  text += fmt::format("  throughput       {:.1f} samples/s", r.samples_per_s);
  if (r.tokens_per_s > 0) text += fmt::format(", {:.0f} tokens/s", r.tokens_per_s);
  text += fmt::format("\n  MFU              {:.1f}% of {} peak\n", 100 * r.mfu, r.mfu_dtype);
  double t = r.iteration_time_s > 0 ? r.iteration_time_s : 1;
  text +=
      fmt::format("  breakdown        compute {} ({:.0f}%), exposed comm {} ({:.0f}%), idle {} ({:.0f}%)\n",
                  human_duration(r.breakdown.compute_s), 100 * r.breakdown.compute_s / t,
                  human_duration(r.breakdown.exposed_comm_s), 100 * r.breakdown.exposed_comm_s / t,
                  human_duration(r.breakdown.idle_s), 100 * r.breakdown.idle_s / t);
  if (r.breakdown.pipeline_bubble_s > 0)
    text +=
        fmt::format("                   pipeline bubble {} ({:.0f}%)\n",
                    human_duration(r.breakdown.pipeline_bubble_s), 100 * r.breakdown.pipeline_bubble_s / t);
  if (r.breakdown.exposed_by_dimension_s.size() > 1) {
    std::string parts;
    for (const auto& [dimension, seconds] : r.breakdown.exposed_by_dimension_s)
      parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", dimension, human_duration(seconds));
    text += "                   exposed by dimension: " + parts + "\n";
  }
  if (r.breakdown.host_bound_s > 0)
    text += fmt::format("                   host-bound {} ({:.0f}%): the GPU waiting for kernel launches\n",
                        human_duration(r.breakdown.host_bound_s), 100 * r.breakdown.host_bound_s / t);
  if (r.breakdown.offload_bound_s > 0)
    text += fmt::format(
        "                   offload-bound {} ({:.0f}%): the GPU waiting for activations to or from the "
        "host\n",
        human_duration(r.breakdown.offload_bound_s), 100 * r.breakdown.offload_bound_s / t);
  // A recorded trace without the profiler's memory events says nothing about memory: no estimate, not 0.
  if (r.peak_memory_bytes > 0)
    text += fmt::format("  memory per GPU   {:.1f} GiB of {:.1f} GiB{}\n", r.peak_memory_bytes / kGiB,
                        r.memory_capacity_bytes / kGiB, r.fits_in_memory ? "" : "  (DOES NOT FIT)");
  if (r.peak_memory_bytes > 0 && !r.memory_breakdown_bytes.empty()) {
    std::string parts;
    for (const auto& [what, bytes] : r.memory_breakdown_bytes)
      parts += fmt::format("{}{} {:.1f}", parts.empty() ? "" : ", ", what, bytes / kGiB);
    text += "                   " + parts + " GiB\n";
  }
  if (r.peak_memory_bytes <= 0)
    text +=
        fmt::format("  memory per GPU   not known: the trace has no memory figures ({:.1f} GiB on the GPU)\n",
                    r.memory_capacity_bytes / kGiB);
  if (r.job_time_s)
    text +=
        fmt::format("  job time         {} for {:.0f} steps ({:.0f} s start-up, {:.1f}% per-step overhead)\n",
                    human_duration(*r.job_time_s), *r.steps, r.startup_s, 100 * r.step_overhead);
  if (r.rescaled)
    text += fmt::format(
        "  kernels          {} rescaled from {} ({} of unknown size by bandwidth), {} as recorded\n",
        r.rescaled_ops + r.bandwidth_rescaled_ops, r.recorded_gpu, r.bandwidth_rescaled_ops,
        r.trace_timed_ops);
  if (r.micro_batches > 0)
    text += fmt::format("  micro-batches    {} per replica, extrapolated from steps of {} and {}\n",
                        r.micro_batches, r.micro_batches_fewer, r.micro_batches_more);
  if (include_wall_time)
    text += fmt::format("  simulated in     {:.3f} s wall ({} flows)\n", r.sim_wall_s, r.simulated_flows);
  else
    text += fmt::format("  simulated        {} flows\n", r.simulated_flows);
  return text;
}

}  // namespace simtrain::report
