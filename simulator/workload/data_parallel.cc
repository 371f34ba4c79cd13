// The PyTorch DDP trace generator: forward and backward kernels of every micro-step on the compute stream,
// bucketed gradient all-reduces on the communication stream during the last backward, then the optimizer.
#include "simulator/workload/data_parallel.h"

#include <algorithm>
#include <map>

#include "common/error.h"
#include "common/input_limits.h"
#include "simulator/workload/allocator_memory.h"
#include "simulator/workload/eager_pytorch.h"
#include "simulator/workload/host_launch.h"
#include "simulator/workload/hugging_face_layout.h"
#include "simulator/workload/memory_parts.h"
#include "simulator/workload/optimizer_kernels.h"

namespace simtrain::workload {
namespace {

constexpr double kGradientBytesPerParameter = 4;  // AMP keeps fp32 gradients
constexpr std::uint8_t kComputeStream = 0;
constexpr std::uint8_t kCommStream = 1;

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
  std::vector<LayerKernels> kernels;
  kernels.reserve(layer_count);
  for (const Layer& layer : model.layers) {
    kernels.push_back(
        with_eager_pytorch_passes(kernels_for(layer, model, config.batch_per_gpu, config.precision), layer,
                                  model, config.batch_per_gpu, config.precision));
  }

  // The bucket whose all-reduce a layer's backward completes: the bucket's last layer in backward order.
  const std::vector<GradientBucket> buckets =
      gradient_buckets(model, config.first_bucket_bytes, config.bucket_bytes);
  std::vector<int> bucket_closed_by(layer_count, -1);
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    const std::size_t last = buckets[b].layers.back();
    if (kernels[last].backward.empty()) {
      throw Error("layer " + model.layers[last].name + " has parameters but no backward kernel");
    }
    bucket_closed_by[last] = static_cast<int>(b);
  }

  trace::Program program;
  program.name = "ddp";
  program.streams = {"compute", "comm"};
  std::vector<std::uint32_t> all_reduces;
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
  for (const auto& layer : kernels) kernels_per_micro_step += layer.forward.size() + layer.backward.size();
  if (kernels_per_micro_step * static_cast<std::size_t>(config.grad_accum) > kMaxOpsPerProgram)
    throw Error("--grad-accum " + std::to_string(config.grad_accum) + ": " + model.name + " would take " +
                std::to_string(kernels_per_micro_step * static_cast<std::size_t>(config.grad_accum)) +
                " kernels per GPU and step; at most " + std::to_string(kMaxOpsPerProgram) + " are simulated");
  for (int step = 1; step <= config.grad_accum; ++step) {
    prefix = "step" + std::to_string(step) + ".";
    const bool last_step = step == config.grad_accum;
    for (std::size_t i = 0; i < layer_count; ++i) {
      const auto& forward = kernels[i].forward;
      const std::vector<std::string> names = kernel_names(prefix + model.layers[i].name, forward);
      for (std::size_t k = 0; k < forward.size(); ++k) append(program, compute_op(names[k], forward[k]));
    }
    std::uint32_t end_of_backward = 0;
    for (std::size_t i = layer_count; i-- > 0;) {
      std::uint32_t last_backward = 0;
      const auto& backward = kernels[i].backward;
      const std::vector<std::string> names = kernel_names(prefix + model.layers[i].name, backward);
      for (std::size_t k = 0; k < backward.size(); ++k)
        last_backward = end_of_backward = append(program, compute_op(names[k], backward[k]));
      if (!last_step || !config.overlap_allreduce || bucket_closed_by[i] < 0) continue;
      const auto b = static_cast<std::size_t>(bucket_closed_by[i]);
      all_reduces.push_back(append(program, all_reduce(b, {last_backward})));
    }
    if (last_step && !config.overlap_allreduce) {
      // Every bucket once the whole backward pass has ended, in bucket order.
      for (std::size_t b = 0; b < buckets.size(); ++b)
        all_reduces.push_back(append(program, all_reduce(b, {end_of_backward})));
    }
  }

  const double parameters = model.parameters();
  trace::ComputeSpec update;
  update.kind = trace::ComputeKind::Optimizer;
  update.pass = trace::Pass::Update;
  update.dtype = DType::FP32;
  update.flops = optimizer_flops_per_parameter(config.optimizer) * parameters;
  update.bytes = optimizer_step_bytes_per_parameter(config.optimizer) * parameters;
  update.shape = {static_cast<std::int64_t>(parameters)};
  // The step as multi-tensor launches (optimizer_kernels.h): "optimizer.step.1", ... and the last
  // "optimizer.step"; the first waits for every all-reduce.
  const std::vector<trace::ComputeSpec> launches = optimizer_step_kernels(
      update, parameter_tensors(model), config.optimizer, config.precision == Precision::AMP_FP16);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const bool last = i + 1 == launches.size();
    trace::Op optimizer =
        compute_op(last ? "optimizer.step" : "optimizer.step." + std::to_string(i + 1), launches[i]);
    if (i == 0) optimizer.deps = all_reduces;
    append(program, std::move(optimizer));
  }

  if (config.host) add_host_launches(program, *config.host);
  trace::Trace trace = trace::single_program_trace(std::move(program), config.gpus, "dp");

  const double samples = static_cast<double>(config.gpus) * config.batch_per_gpu * config.grad_accum;
  trace::TraceMetadata& meta = trace.metadata;
  meta.model = model.name;
  meta.generator = "simtrain workload ddp";
  meta.parallelism = config.framework;
  meta.samples_per_iteration = samples;
  meta.tokens_per_iteration = samples * model.seq_len;
  meta.model_flops_per_iteration = 3 * model.forward_flops_per_sample() * samples;
  const MemoryEstimate memory = estimate_data_parallel_memory(
      model, config.batch_per_gpu, config.precision, optimizer_state_bytes_per_parameter(config.optimizer),
      config.bucket_bytes);
  meta.peak_memory_bytes = memory.total_bytes();
  meta.memory_breakdown_bytes = memory_parts(memory);
  const AllocatorPeak allocator = estimate_allocator_peak(
      model, config.batch_per_gpu, config.precision, optimizer_state_bytes_per_parameter(config.optimizer));
  // DDP's flat gradient buckets, when there is more than one rank to reduce with, come on top.
  const double bucket_copy_bytes = config.gpus > 1 && config.bucket_bytes > 0 ? 4 * parameters : 0;
  meta.peak_allocated_bytes = allocator.allocated_bytes() + bucket_copy_bytes;
  meta.peak_reserved_bytes = allocator.reserved_bytes() + bucket_copy_bytes;
  meta.compute_dtype = matmul_dtype(config.precision);
  return trace;
}

}  // namespace simtrain::workload
