// The PyTorch DDP trace generator: forward and backward kernels of every micro-step on the compute stream,
// bucketed gradient all-reduces on the communication stream during the last backward, then the optimizer.
#include "simulator/workload/data_parallel.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/workload/allocator_memory.h"
#include "simulator/workload/eager_pytorch.h"
#include "simulator/workload/fsdp_micro_step.h"
#include "simulator/workload/fsdp_wrap.h"
#include "simulator/workload/host_launch.h"
#include "simulator/workload/hugging_face_layout.h"
#include "simulator/workload/memory_parts.h"
#include "simulator/workload/optimizer_kernels.h"

namespace simtrain::workload {
namespace {

constexpr double kGradientBytesPerParameter = 4;  // AMP keeps fp32 gradients
constexpr std::uint8_t kComputeStream = 0;
constexpr std::uint8_t kCommStream = 1;    // DDP's all-reduces; FSDP's reduce-scatters
constexpr std::uint8_t kGatherStream = 2;  // FSDP's all-gathers

void validate(const DataParallelConfig& config) {
  if (config.gpus < 1 || config.gpus > kMaxRanks)
    throw Error("--gpus: must be from 1 to " + std::to_string(kMaxRanks) + ", got " +
                std::to_string(config.gpus));
  if (config.batch_per_gpu < 1) {
    throw Error("--batch-per-gpu: must be at least 1, got " + std::to_string(config.batch_per_gpu));
  }
  if (config.grad_accum < 1 || config.grad_accum > kMaxMicroBatches)
    throw Error("--grad-accum: must be from 1 to " + std::to_string(kMaxMicroBatches) + ", got " +
                std::to_string(config.grad_accum));
  if (!(config.bucket_bytes > 0)) throw Error("--bucket-bytes: must be positive");
  if (!(config.first_bucket_bytes > 0)) throw Error("--first-bucket-bytes: must be positive");
  if (config.fsdp_shard_size < 0 || (config.fsdp_shard_size > 0 && config.gpus % config.fsdp_shard_size != 0))
    throw Error("--fsdp: a shard group of " + std::to_string(config.fsdp_shard_size) +
                " ranks does not divide " + std::to_string(config.gpus) + " GPUs");
}

std::string_view pass_suffix(trace::Pass pass) {
  switch (pass) {
    case trace::Pass::Forward:
      return "fwd";
    case trace::Pass::BackwardData:
      return "bwd_data";
    case trace::Pass::BackwardWeight:
      return "bwd_weight";
    case trace::Pass::Update:
      return "update";
    case trace::Pass::Other:
      break;
  }
  return "other";
}

// "<layer>.<pass>" for a layer's kernels of one pass. An elementwise kernel beside the layer's own kernel
// (an eager-mode cast, eager_pytorch.h) is "<layer>.cast.<pass>"; further kernels of one pass are numbered
// from the second on ("<layer>.fwd.2").
std::vector<std::string> kernel_names(const std::string& layer,
                                      const std::vector<trace::ComputeSpec>& kernels) {
  const bool mixed = std::any_of(kernels.begin(), kernels.end(), [](const trace::ComputeSpec& k) {
    return k.kind != trace::ComputeKind::Elementwise;
  });
  std::vector<std::string> names;
  std::map<std::string, int> seen;
  for (const trace::ComputeSpec& kernel : kernels) {
    const bool cast = mixed && kernel.kind == trace::ComputeKind::Elementwise;
    const std::string base = layer + (cast ? ".cast." : ".") + std::string(pass_suffix(kernel.pass));
    const int n = ++seen[base];
    names.push_back(n > 1 ? base + "." + std::to_string(n) : base);
  }
  return names;
}

trace::Op compute_op(std::string name, const trace::ComputeSpec& kernel) {
  trace::Op op;
  op.name = std::move(name);
  op.type = trace::OpType::Compute;
  op.stream = kComputeStream;
  op.compute = kernel;
  return op;
}

// Appends a layer's `kernels` under their `names`; the first waits for `pending`, which is then emptied (a
// layer without kernels hands it on to the next). `last` becomes the last kernel appended.
void append_kernels(trace::Program& program, const std::vector<std::string>& names,
                    const std::vector<trace::ComputeSpec>& kernels, std::vector<std::uint32_t>& pending,
                    std::uint32_t& last) {
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    trace::Op op = compute_op(names[k], kernels[k]);
    op.deps = std::move(pending);
    pending.clear();
    last = append(program, std::move(op));
  }
}

// Adam: two moment updates, bias corrections, sqrt and divide; LAMB adds the per-tensor trust ratio norms.
double optimizer_flops_per_parameter(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::SGD:
      return 4;
    case Optimizer::Adam:
      return 12;
    case Optimizer::LAMB:
      return 16;
  }
  return 12;
}

// HYBRID_SHARD's communicators after the data-parallel group (0, every rank: what the engine samples
// replicas of): group 1 the shard groups (consecutive ranks), group 2 the replicas (the ranks at the same
// place in every shard group).
void hybrid_shard_groups(trace::Trace& trace, int shard_size) {
  const int replicas = trace.world_size / shard_size;
  trace::CommunicatorGroup shards{.name = "fsdp_shard"}, replicate{.name = "fsdp_replicate"};
  for (int g = 0; g < replicas; ++g) {
    shards.communicators.emplace_back();
    for (int i = 0; i < shard_size; ++i) shards.communicators.back().push_back(g * shard_size + i);
  }
  for (int i = 0; i < shard_size; ++i) {
    replicate.communicators.emplace_back();
    for (int g = 0; g < replicas; ++g) replicate.communicators.back().push_back(g * shard_size + i);
  }
  trace.groups.push_back(std::move(shards));
  trace.groups.push_back(std::move(replicate));
}

// FSDP's memory per rank (sharded over N = `shard_size` ranks): 1/N of the fp32 parameters, of their
// gradients and of the optimizer states; in full, the root unit's parameters (kept from forward to backward)
// and two blocks' at a time (the one running and the one prefetched) in the gathering dtype, which replace
// autocast's cached weight casts, and one block's unsharded gradients before its reduce-scatter.
void shard_fully(MemoryEstimate& memory, AllocatorPeak& allocator, const FsdpWrap& wrap, int shard_size,
                 FsdpDtypes dtypes) {
  const double n = shard_size;
  memory.weights_bytes /= n;
  memory.gradients_bytes /= n;
  memory.optimizer_states_bytes /= n;
  const double gathered_bytes =
      (wrap.root_parameters + 2 * wrap.largest_unit_parameters()) * bytes_per_element(dtypes.gather);
  memory.communication_buffers_bytes =
      gathered_bytes + wrap.largest_unit_parameters() * bytes_per_element(dtypes.reduce);
  allocator.weights_bytes /= n;
  allocator.optimizer_states_bytes /= n;
  allocator.weight_casts_bytes = gathered_bytes;
}

// The share of the activations a step keeps when every block is checkpointed: the layers outside blocks
// keep theirs, each block its input (the hidden state of every token), and the block being recomputed all
// of its own.
double checkpointed_activation_share(const Model& model, const FsdpWrap& blocks) {
  double all = 0, kept = 0, largest_block = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const double saved = model.layers[i].saved_activation_elements_per_sample;
    all += saved;
    if (blocks.unit_of_layer[i] == FsdpWrap::kRootUnit) kept += saved;
  }
  for (const FsdpUnit& block : blocks.units) {
    double saved = 0;
    for (std::size_t i = block.first_layer; i < block.end_layer; ++i)
      saved += model.layers[i].saved_activation_elements_per_sample;
    largest_block = std::max(largest_block, saved);
  }
  const double block_input = static_cast<double>(model.seq_len) * model.transformer->hidden;
  kept += static_cast<double>(blocks.units.size()) * block_input + largest_block;
  return all > 0 ? std::min(1.0, kept / all) : 1.0;
}

}  // namespace

Optimizer default_optimizer(const Model& model) {
  const bool transformer = std::any_of(model.layers.begin(), model.layers.end(),
                                       [](const Layer& layer) { return layer.type == "attention"; });
  return transformer ? Optimizer::Adam : Optimizer::SGD;
}

std::string_view to_string(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::SGD:
      return "sgd";
    case Optimizer::Adam:
      return "adam";
    case Optimizer::LAMB:
      return "lamb";
  }
  return "unknown";
}

bool parse_optimizer(std::string_view text, Optimizer& out) {
  for (Optimizer candidate : {Optimizer::SGD, Optimizer::Adam, Optimizer::LAMB}) {
    if (text == to_string(candidate)) {
      out = candidate;
      return true;
    }
  }
  return false;
}

double optimizer_state_bytes_per_parameter(Optimizer optimizer) {
  return optimizer == Optimizer::SGD ? 4 : 8;
}

double optimizer_step_bytes_per_parameter(Optimizer optimizer) {
  return optimizer == Optimizer::SGD ? 32 : 28;
}

std::vector<GradientBucket> gradient_buckets(const Model& model, double first_bucket_bytes,
                                             double bucket_bytes) {
  std::vector<GradientBucket> buckets;
  GradientBucket current;
  for (std::size_t i = model.layers.size(); i-- > 0;) {
    const Layer& layer = model.layers[i];
    if (layer.parameters <= 0) continue;
    current.layers.push_back(i);
    current.bytes += layer.parameters * kGradientBytesPerParameter;
    const double cap = buckets.empty() ? first_bucket_bytes : bucket_bytes;
    if (current.bytes >= cap) {
      buckets.push_back(std::move(current));
      current = {};
    }
  }
  if (!current.layers.empty()) buckets.push_back(std::move(current));
  return buckets;
}

trace::Trace generate_data_parallel_trace(const DataParallelConfig& config) {
  validate(config);
  // The eager generator runs decoders as Hugging Face lays them out (--impl hf).
  const Model model = with_hugging_face_projections(build_model(config.model, config.model_options));
  const std::size_t layer_count = model.layers.size();
  const bool autocast = config.precision == Precision::AMP_FP16 || config.precision == Precision::AMP_BF16;
  // FSDP's mixed precision hands the layers parameters already in autocast's dtype.
  const bool sixteen_bit_parameters = config.fsdp && autocast;
  std::vector<LayerKernels> kernels;
  kernels.reserve(layer_count);
  for (const Layer& layer : model.layers) {
    kernels.push_back(
        with_eager_pytorch_passes(kernels_for(layer, model, config.batch_per_gpu, config.precision), layer,
                                  model, config.batch_per_gpu, config.precision, sixteen_bit_parameters));
    for (auto* pass : {&kernels.back().forward, &kernels.back().backward})
      for (trace::ComputeSpec& kernel : *pass)
        if (kernel.kind == trace::ComputeKind::Attention) kernel.attention_kernel = config.attention_kernel;
  }

  // The bucket whose all-reduce a layer's backward completes: the bucket's last layer in backward order.
  const std::vector<GradientBucket> buckets =
      config.fsdp ? std::vector<GradientBucket>{}
                  : gradient_buckets(model, config.first_bucket_bytes, config.bucket_bytes);
  std::vector<int> bucket_closed_by(layer_count, -1);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const std::size_t last = buckets[b].layers.back();
    if (kernels[last].backward.empty()) {
      throw Error("layer " + model.layers[last].name + " has parameters but no backward kernel");
    }
    bucket_closed_by[last] = static_cast<int>(b);
  }
  // The repeated blocks: FSDP's units, and what activation checkpointing reruns.
  const FsdpWrap wrap = wrap_repeated_blocks(model);
  if (config.activation_checkpointing && (!model.transformer || wrap.units.empty()))
    throw Error("--recompute full: " + model.name +
                " has no transformer blocks to checkpoint in the eager generator");
  // Ranks per shard group; fewer than all is HYBRID_SHARD, with a second communicator group of replicas.
  const int shard_size =
      config.fsdp_shard_size > 0 ? std::min(config.fsdp_shard_size, config.gpus) : config.gpus;
  const bool hybrid = config.fsdp && shard_size < config.gpus;
  FsdpStreams fsdp_streams{kGatherStream, kCommStream, 0, std::nullopt, shard_size};
  if (hybrid) {
    fsdp_streams.shard_group = 1;
    fsdp_streams.replicate_group = 2;
  }
  // Gradients reduce in fp32 (Composer's DEFAULT mixed precision, torchtitan's default reduce dtype).
  const FsdpDtypes fsdp_dtypes{sixteen_bit_parameters ? activation_dtype(config.precision) : DType::FP32,
                               DType::FP32};

  trace::Program program;
  program.name = config.fsdp ? "fsdp" : "ddp";
  program.streams = {"compute", "comm"};
  if (config.fsdp) program.streams = {"compute", "reduce_scatter", "all_gather"};
  std::vector<std::uint32_t> gradient_reductions;
  std::string prefix;
  // Bucket b's all-reduce on the communication stream, once `deps` have ended.
  auto all_reduce = [&](std::size_t b, std::vector<std::uint32_t> deps) {
    trace::Op op;
    op.name = prefix + "bucket" + std::to_string(b) + ".allreduce";
    op.type = trace::OpType::Collective;
    op.stream = kCommStream;
    op.deps = std::move(deps);
    op.collective.kind = trace::CollectiveKind::AllReduce;
    op.collective.dtype = DType::FP32;
    op.collective.bytes = buckets[b].bytes;
    op.collective.group = 0;
    return op;
  };
  // Every micro-step repeats the first one's kernels: refuse a step that cannot be held before building it.
  std::size_t kernels_per_micro_step = 0;
  for (const auto& layer : kernels)
    kernels_per_micro_step +=
        layer.forward.size() * (config.activation_checkpointing ? 2 : 1) + layer.backward.size();
  if (kernels_per_micro_step * static_cast<std::size_t>(config.grad_accum) > kMaxOpsPerProgram)
    throw Error("--grad-accum " + std::to_string(config.grad_accum) + ": " + model.name + " would take " +
                std::to_string(kernels_per_micro_step * static_cast<std::size_t>(config.grad_accum)) +
                " kernels per GPU and step; at most " + std::to_string(kMaxOpsPerProgram) + " are simulated");
  std::optional<std::uint32_t> end_of_step;
  for (int step = 1; step <= config.grad_accum; ++step) {
    prefix = "step" + std::to_string(step) + ".";
    const bool last_step = step == config.grad_accum;
    std::optional<FsdpMicroStep> fsdp;
    if (config.fsdp) fsdp.emplace(model, wrap, fsdp_dtypes, fsdp_streams, prefix, end_of_step, program);
    std::uint32_t last_kernel = 0;
    std::vector<std::uint32_t> pending;  // what the next kernel waits for
    for (std::size_t i = 0; i < layer_count; ++i) {
      const auto& forward = kernels[i].forward;
      if (fsdp) std::ranges::copy(fsdp->before_forward(i), std::back_inserter(pending));
      append_kernels(program, kernel_names(prefix + model.layers[i].name, forward), forward, pending,
                     last_kernel);
      if (fsdp) fsdp->after_forward(i, last_kernel);
    }
    const std::uint32_t end_of_forward = last_kernel;
    for (std::size_t i = layer_count; i-- > 0;) {
      const auto& backward = kernels[i].backward;
      if (fsdp) std::ranges::copy(fsdp->before_backward(i, end_of_forward), std::back_inserter(pending));
      const int unit = wrap.unit_of_layer[i];
      if (config.activation_checkpointing && unit != FsdpWrap::kRootUnit &&
          i + 1 == wrap.units[static_cast<std::size_t>(unit)].end_layer) {
        // The block's forward again, from its saved input, before its first backward kernel.
        for (std::size_t j = wrap.units[static_cast<std::size_t>(unit)].first_layer; j <= i; ++j) {
          const auto& forward = kernels[j].forward;
          append_kernels(program, kernel_names(prefix + "recompute." + model.layers[j].name, forward),
                         forward, pending, last_kernel);
        }
      }
      append_kernels(program, kernel_names(prefix + model.layers[i].name, backward), backward, pending,
                     last_kernel);
      if (fsdp) fsdp->after_backward(i, last_kernel);
      if (!last_step || !config.overlap_allreduce || bucket_closed_by[i] < 0) continue;
      const auto b = static_cast<std::size_t>(bucket_closed_by[i]);
      gradient_reductions.push_back(append(program, all_reduce(b, {last_kernel})));
    }
    end_of_step = last_kernel;
    if (fsdp) {
      // FSDP reduces every micro-step's gradients (no no_sync: it would keep them unsharded).
      for (std::uint32_t op : fsdp->finish(last_kernel)) gradient_reductions.push_back(op);
    } else if (last_step && !config.overlap_allreduce) {
      // Every bucket once the whole backward pass has ended, in bucket order.
      for (std::size_t b = 0; b < buckets.size(); ++b)
        gradient_reductions.push_back(append(program, all_reduce(b, {last_kernel})));
    }
  }

  // Each rank steps its shard: under FSDP one flat parameter per unit, 1/N of it.
  const double shards = config.fsdp ? shard_size : 1;
  const double parameters = model.parameters() / shards;
  std::vector<double> tensors = parameter_tensors(model);
  if (config.fsdp) {
    tensors.clear();
    if (wrap.root_parameters > 0) tensors.push_back(wrap.root_parameters / shards);
    for (const FsdpUnit& unit : wrap.units) tensors.push_back(unit.parameters / shards);
  }
  trace::ComputeSpec update;
  update.kind = trace::ComputeKind::Optimizer;
  update.pass = trace::Pass::Update;
  update.dtype = DType::FP32;
  update.flops = optimizer_flops_per_parameter(config.optimizer) * parameters;
  update.bytes = optimizer_step_bytes_per_parameter(config.optimizer) * parameters;
  update.shape = {static_cast<std::int64_t>(parameters)};
  // The step as multi-tensor launches (optimizer_kernels.h): "optimizer.step.1", ... and the last
  // "optimizer.step"; the first waits for every gradient reduction.
  const std::vector<trace::ComputeSpec> launches =
      optimizer_step_kernels(update, tensors, config.optimizer, config.precision == Precision::AMP_FP16);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const bool last = i + 1 == launches.size();
    trace::Op optimizer =
        compute_op(last ? "optimizer.step" : "optimizer.step." + std::to_string(i + 1), launches[i]);
    if (i == 0) optimizer.deps = gradient_reductions;
    append(program, std::move(optimizer));
  }

  if (config.host) add_host_launches(program, *config.host);
  trace::Trace trace = trace::single_program_trace(std::move(program), config.gpus, "dp");
  if (hybrid) hybrid_shard_groups(trace, shard_size);

  const double samples = static_cast<double>(config.gpus) * config.batch_per_gpu * config.grad_accum;
  trace::TraceMetadata& meta = trace.metadata;
  meta.model = model.name;
  meta.generator = config.fsdp ? "simtrain workload fsdp" : "simtrain workload ddp";
  const std::string sharding = hybrid ? "fsdp-hybrid" : "fsdp";
  meta.parallelism = config.fsdp ? (config.framework == "ddp" ? sharding : config.framework + "+" + sharding)
                                 : config.framework;
  meta.samples_per_iteration = samples;
  meta.tokens_per_iteration = samples * model.seq_len;
  meta.model_flops_per_iteration = 3 * model.forward_flops_per_sample() * samples;
  MemoryEstimate memory = estimate_data_parallel_memory(model, config.batch_per_gpu, config.precision,
                                                        optimizer_state_bytes_per_parameter(config.optimizer),
                                                        config.fsdp ? 0 : config.bucket_bytes);
  AllocatorPeak allocator = estimate_allocator_peak(model, config.batch_per_gpu, config.precision,
                                                    optimizer_state_bytes_per_parameter(config.optimizer));
  // DDP's flat gradient buckets, when there is more than one rank to reduce with, come on top.
  const double bucket_copy_bytes =
      !config.fsdp && config.gpus > 1 && config.bucket_bytes > 0 ? 4 * model.parameters() : 0;
  if (config.fsdp) shard_fully(memory, allocator, wrap, shard_size, fsdp_dtypes);
  if (config.activation_checkpointing) {
    const double share = checkpointed_activation_share(model, wrap);
    memory.activations_bytes *= share;
    allocator.activations_bytes *= share;
  }
  meta.peak_memory_bytes = memory.total_bytes();
  meta.memory_breakdown_bytes = memory_parts(memory);
  meta.peak_allocated_bytes = allocator.allocated_bytes() + bucket_copy_bytes;
  meta.peak_reserved_bytes = allocator.reserved_bytes() + bucket_copy_bytes;
  meta.compute_dtype = matmul_dtype(config.precision);
  return trace;
}

}  // namespace simtrain::workload
