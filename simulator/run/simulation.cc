// Implements simulation.h: platform, profile, trace, memory check, costs, replay and Result of one run.
#include "simulator/run/simulation.h"

#include <chrono>

#include <fmt/format.h>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "common/version.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/cost/nccl_channels.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/run/micro_batch_extrapolation.h"
#include "simulator/run/replay_in_child.h"
#include "simulator/run/run_inputs.h"
#include "simulator/workload/megatron_trace.h"

namespace simtrain::run {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Sizes the spec to the job: a job smaller than a node uses the first GPUs of one node; a larger one needs
// whole nodes.
void fit_nodes(platform::ClusterSpec& spec, int gpus, std::optional<int> nodes) {
  if (nodes) {
    if (*nodes < 1) throw Error("--nodes: must be at least 1");
    spec.nodes = *nodes;
  } else if (gpus > spec.gpus_per_node) {
    if (gpus % spec.gpus_per_node != 0)
      throw Error(fmt::format("--gpus {}: not a multiple of the {} GPUs per node of platform '{}'", gpus,
                              spec.gpus_per_node, spec.name),
                  ErrorKind::Infeasible);
    spec.nodes = gpus / spec.gpus_per_node;
  } else {
    spec.nodes = 1;
  }
  if (gpus > spec.gpu_count())
    throw Error(fmt::format("--gpus {}: platform '{}' with {} nodes has only {} GPUs", gpus, spec.name,
                            spec.nodes, spec.gpu_count()),
                ErrorKind::Infeasible);
}

// Names the levers of the plan at hand: a data-parallel run's batch, or a large-model plan's recomputation,
// pipeline depth, sharding and micro-batch.
std::string memory_error(const trace::Trace& trace, const calibration::CalibrationProfile& profile,
                         const RunRequest& request) {
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const char* levers =
      request.parallel
          ? "recompute activations (--recompute selective|full), add pipeline stages (--pp), shard "
            "the optimizer and weights (--distributed-optimizer, --zero 1-3, --fsdp full), offload "
            "activations to the host (--cpu-offloading-num-layers), lower --micro-batch"
          : "lower --batch-per-gpu and raise --grad-accum";
  return fmt::format(
      "does not fit in GPU memory: {} needs {:.1f} GiB per GPU but {} has {:.1f} GiB; {}, or pass "
      "--allow-oom to simulate it anyway",
      trace.metadata.model, trace.metadata.peak_memory_bytes / kGiB, profile.device.name,
      profile.device.memory_bytes / kGiB, levers);
}

// A platform setting that lowers one of a spec profile's device limits (its boost clock, its power limit) to
// `value`: Error naming the spec's `field` for a measured profile (its kernel times carry the clocks they ran
// at), a profile without that limit, or a value above it; otherwise the limit the profile had.
double lowered_device_limit(const platform::ClusterSpec& spec, const calibration::CalibrationProfile& profile,
                            const char* field, double value, double limit, const char* what,
                            const char* unit) {
  const auto fail = [&](const std::string& why) {
    throw Error(spec.source_file, 0, field, why, ErrorKind::Infeasible);
  };
  if (profile.kind == calibration::ProfileKind::Measured)
    fail("applies to spec profiles; measured profile '" + profile.device.name +
         "' already carries the clocks its kernels ran at");
  if (!(limit > 0)) fail(fmt::format("profile '{}' has no {} to lower", profile.device.name, what));
  if (value > limit)
    fail(fmt::format("{:g} {} is above {}'s {} of {:g} {}", value, unit, profile.device.name, what, limit,
                     unit));
  return limit;
}

}  // namespace

void apply_platform_to_profile(const platform::ClusterSpec& spec, calibration::CalibrationProfile& profile,
                               const cost::NcclOverride& nccl) {
  if (spec.gpu_clock_mhz > 0) {
    const double boost = lowered_device_limit(spec, profile, "gpu_clock_mhz", spec.gpu_clock_mhz,
                                              profile.device.clock_mhz, "boost clock", "MHz");
    for (auto& [dtype, flops] : profile.device.peak_flops_per_s) flops *= spec.gpu_clock_mhz / boost;
    profile.device.clock_mhz = spec.gpu_clock_mhz;
  }
  if (spec.gpu_power_limit_w > 0) {
    lowered_device_limit(spec, profile, "gpu_power_limit_w", spec.gpu_power_limit_w,
                         profile.device.power_limit_w, "power limit", "W");
    profile.device.power_limit_w = spec.gpu_power_limit_w;
  }
  if (profile.kind == calibration::ProfileKind::Measured) return;
  if (spec.intra_node.nccl_efficiency > 0)
    profile.efficiencies.nccl_intra_node = spec.intra_node.nccl_efficiency;
  if (spec.nics.nccl_efficiency > 0) profile.efficiencies.nccl_inter_node = spec.nics.nccl_efficiency;
  profile.efficiencies.nccl_inter_node = cost::nccl_channel_limited_efficiency(
      profile.efficiencies.nccl_inter_node,
      cost::nccl_collective_channels(spec.nics.nccl_channels(), nccl.min_channels), spec.nics.count,
      spec.nics.bandwidth_Bps, spec.nics.nccl_channel_bandwidth_Bps);
}

std::optional<double> default_dataset_size(const std::string& model) {
  if (model == "resnet50" || model == "densenet121" || model == "vit-b16")
    return 1281167;                     // ImageNet-1k train
  if (model == "lenet5") return 60000;  // MNIST train
  return std::nullopt;
}

namespace {

// A large-model configuration's transformer, with the sequence length resolved to the model's default.
struct ResolvedTransformer {
  workload::Model model;
  workload::ParallelConfig config;
};

ResolvedTransformer resolve_transformer(const workload::ParallelConfig& config) {
  workload::ModelOptions options;
  options.seq_len = config.seq_len;
  ResolvedTransformer resolved{config.decoder ? workload::build_decoder(*config.decoder, config.seq_len)
                                              : workload::build_model(config.model, options),
                               config};
  if (!resolved.model.transformer)
    throw Error("--model " + config.model + ": model-parallel options need a transformer model",
                ErrorKind::Infeasible);
  if (resolved.config.seq_len == 0) resolved.config.seq_len = resolved.model.seq_len;
  if (config.mtp_layers) resolved.model.transformer->mtp_layers = *config.mtp_layers;
  return resolved;
}

}  // namespace

trace::Trace generate_parallel_trace(const workload::ParallelConfig& config) {
  const ResolvedTransformer resolved = resolve_transformer(config);
  return workload::generate_megatron_trace(*resolved.model.transformer, resolved.model.name, resolved.config);
}

namespace {

// FP8 GEMMs need Hopper or later (an FP8 peak); MXFP8's block-scaled FP8 and NVFP4 need Blackwell's
// block-scaled tensor cores, which the profiles with an FP4 peak have.
void check_low_precision_support(const workload::ParallelConfig& config,
                                 const calibration::CalibrationProfile& profile) {
  if (!config.fp8) return;
  const std::string gpu = profile.device.name;
  if (config.quant_recipe == workload::QuantRecipe::NVFP4) {
    if (profile.peak_flops(DType::FP4) <= 0)
      throw Error("--precision nvfp4: " + gpu + " has no FP4 tensor cores (NVFP4 needs Blackwell)",
                  ErrorKind::Infeasible);
    return;
  }
  if (profile.peak_flops(DType::FP8) <= 0)
    throw Error("--precision fp8: " + gpu + " has no FP8 tensor cores (FP8 needs Hopper or later)",
                ErrorKind::Infeasible);
  if (config.quant_recipe == workload::QuantRecipe::MXFP8 && profile.peak_flops(DType::FP4) <= 0)
    throw Error("--fp8-recipe mxfp8: " + gpu + " has no block-scaled tensor cores (MXFP8 needs Blackwell)",
                ErrorKind::Infeasible);
}

}  // namespace

RunOutput simulate(const RunRequest& request) {
  const int sources = request.workload.has_value() + request.parallel.has_value() +
                      !request.trace_paths.empty() + request.trace.has_value();
  if (sources != 1) throw Error("give either a model to generate a workload for or --trace FILE, not both");

  auto started = std::chrono::steady_clock::now();
  const auto phase = [&](const char* name) {
    if (request.progress) request.progress(name, 0, 0);
  };
  phase("building the trace");
  RunOutput out;
  // Kernel times recorded on a real run (Kineto, execution traces, Chakra) already include what the run's
  // collectives took from them; simtrain's own traces and workloads do not.
  bool recorded_kernels = false;
  // A long step is simulated at two shorter lengths and extrapolated (micro_batch_extrapolation.h), unless
  // asked for every micro-batch or for a timeline, or its kernels carry noise that would not repeat.
  std::optional<MicroBatchSample> sample;
  if (request.parallel && !request.simulate_every_micro_batch && request.timeline_ranks == 0 &&
      request.jitter.seed == 0 && !request.stepwise_collectives)
    sample = plan_micro_batch_sample(*request.parallel);
  if (request.workload)
    out.trace = workload::generate_data_parallel_trace(*request.workload);
  else if (sample) {
    // The full step is checked and described (batch, FLOPs, memory) as asked; only its replay is shortened.
    const ResolvedTransformer resolved = resolve_transformer(*request.parallel);
    workload::validate(resolved.config, *resolved.model.transformer, resolved.config.gpus);
    out.trace = generate_parallel_trace(with_micro_batches(*request.parallel, sample->more));
    out.trace.metadata =
        workload::megatron_metadata(*resolved.model.transformer, resolved.model.name, resolved.config);
  } else if (request.parallel)
    out.trace = generate_parallel_trace(*request.parallel);
  else if (request.trace)
    out.trace = *request.trace;
  else {
    trace::ImportReport report;
    out.trace = trace::import_trace_files(request.trace_paths, request.import, report);
    out.warnings = std::move(report.warnings);
    recorded_kernels = report.format != trace::TraceFormat::Native;
  }

  engine::PlatformSource source;
  std::string platform_name = request.platform;
  std::string profile_name = request.profile;
  if (ends_with(request.platform, ".xml")) {
    source.xml_path = request.platform;
    source.xml_gpus_per_node = request.xml_gpus_per_node;
    if (profile_name.empty()) throw Error("--profile: required with a SimGrid XML platform");
  } else {
    platform::ClusterSpec spec = platform::load_cluster_spec(request.platform);
    if (request.gpus_per_node) spec = platform::using_gpus_per_node(std::move(spec), *request.gpus_per_node);
    fit_nodes(spec, out.trace.world_size, request.nodes);
    platform_name = spec.name;
    if (profile_name.empty()) profile_name = spec.gpu;
    source.spec = spec;
  }
  out.profile = calibration::load_profile(profile_name);
  if (source.spec) apply_platform_to_profile(*source.spec, out.profile, request.nccl);
  if (request.parallel) check_low_precision_support(*request.parallel, out.profile);

  if (!request.allow_oom && out.trace.metadata.peak_memory_bytes > out.profile.device.memory_bytes)
    throw Error(memory_error(out.trace, out.profile, request), ErrorKind::Infeasible);

  phase("costing the kernels");
  cost::ComputeCostModel cost_model(out.profile);
  cost::ProgramCosts costs = cost::cost_programs(out.trace, cost_model, profile_name);
  cost::apply_jitter(costs, request.jitter);

  engine::ReplayOptions options;
  options.timeline_ranks = request.timeline_ranks;
  options.lockstep_group = request.lockstep_group;
  if (request.fold_replicas) options.folded_group = "dp";
  if (!request.sample_replicas) options.sampled_group.clear();
  options.degraded_links = request.degraded_links;
  options.rank_slowdown = request.rank_slowdown;
  options.nccl = request.nccl;
  options.stepwise_collectives = request.stepwise_collectives;
  if (request.comm_sms && !recorded_kernels) options.gpu_sm_count = out.profile.device.sm_count;
  if (request.progress)
    options.progress = [&request](double simulated_s, std::uint64_t advances) {
      request.progress("simulating", simulated_s, advances);
    };
  phase("building the platform");
  if (sample) {
    engine::ReplayOptions quiet = options;
    quiet.progress = nullptr;  // one progress line: the parent's
    ReplayInChild fewer([&] {
      const trace::Trace trace =
          generate_parallel_trace(with_micro_batches(*request.parallel, sample->fewer));
      const cost::ProgramCosts fewer_costs = cost::cost_programs(trace, cost_model, profile_name);
      return engine::replay(trace, fewer_costs, out.profile.efficiencies, source, quiet);
    });
    const engine::ReplayResult more =
        engine::replay(out.trace, costs, out.profile.efficiencies, source, options);
    out.replay = extrapolate_replay(fewer.result(), more, *sample);
  } else {
    out.replay = engine::replay(out.trace, costs, out.profile.efficiencies, source, options);
  }
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  report::JobLength job = request.job;
  if (job.epochs && !job.dataset_size) job.dataset_size = default_dataset_size(out.trace.metadata.model);
  out.result = report::make_result(out.trace, out.replay, out.profile, costs, platform_name, job, wall_s);
  out.result.simtrain_version = simtrain_version();
  if (sample) {
    out.result.micro_batches = sample->micro_batches;
    out.result.micro_batches_fewer = sample->fewer;
    out.result.micro_batches_more = sample->more;
  }
  out.result.inputs = describe_inputs(request, out);
  return out;
}

}  // namespace simtrain::run
