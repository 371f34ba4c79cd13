// Implements torchtitan_config.h.
#include "simulator/workload/torchtitan_config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>

#include "common/error.h"
#include "common/file_io.h"
#include "common/toml_parse.h"
#include "simulator/workload/model_zoo.h"

namespace simtrain::workload {
namespace {

constexpr const char* kNoEffectSections[] = {
    "job",          "profiling", "metrics",    "optimizer",       "lr_scheduler",
    "checkpoint",   "comm",      "validation", "fault_tolerance", "memory_estimation",
    "experimental", "float8",    "mx",         "quantize"};
constexpr const char* kTrainingNoEffect[] = {
    "max_norm",           "dataset",      "dataset_path", "gc_freq", "seed", "deterministic",
    "enable_cpu_offload", "warmup_steps", "gc_debug"};
constexpr const char* kParallelDegrees[] = {"data_parallel_replicate_degree", "data_parallel_shard_degree",
                                            "tensor_parallel_degree", "pipeline_parallel_degree",
                                            "context_parallel_degree"};

bool one_of(std::initializer_list<const char*> names, std::string_view key) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return key == n; });
}
template <std::size_t N>
bool one_of(const char* const (&names)[N], std::string_view key) {
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return key == n; });
}

class Reader {
 public:
  Reader(const toml::table& doc, std::string origin) : doc_(doc), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const toml::node* node, const std::string& key, const std::string& message) const {
    throw Error(origin_, node ? static_cast<int>(node->source().begin.line) : 0, key, message);
  }

  const toml::table* section(const char* name) const {
    const toml::node* node = doc_.get(name);
    if (!node) return nullptr;
    if (!node->is_table()) fail(node, name, "expected a table [" + std::string(name) + "]");
    return node->as_table();
  }

  std::optional<std::int64_t> integer(const toml::table* t, const char* section, const char* key,
                                      std::int64_t low, std::int64_t high) const {
    if (!t || !t->contains(key)) return std::nullopt;
    const toml::node* node = t->get(key);
    const std::string path = std::string(section) + "." + key;
    if (!node->is_integer()) fail(node, path, "expected an integer");
    const std::int64_t v = node->as_integer()->get();
    if (v < low || v > high)
      fail(
          node, path,
          "must be in [" + std::to_string(low) + ", " + std::to_string(high) + "], got " + std::to_string(v));
    return v;
  }

  std::optional<bool> boolean(const toml::table* t, const char* section, const char* key) const {
    if (!t || !t->contains(key)) return std::nullopt;
    const toml::node* node = t->get(key);
    if (!node->is_boolean()) fail(node, std::string(section) + "." + key, "expected true or false");
    return node->as_boolean()->get();
  }

  std::optional<std::string> text(const toml::table* t, const char* section, const char* key) const {
    if (!t || !t->contains(key)) return std::nullopt;
    const toml::node* node = t->get(key);
    if (!node->is_string()) fail(node, std::string(section) + "." + key, "expected a string");
    return node->as_string()->get();
  }

 private:
  const toml::table& doc_;
  std::string origin_;
};

// torchtitan's model name and flavor as a zoo key: llama3 "8B" -> llama3-8b.
std::string zoo_key(const Reader& in, const toml::table* model) {
  const auto name = in.text(model, "model", "name");
  const auto flavor = in.text(model, "model", "flavor");
  if (!name || !flavor)
    in.fail(nullptr, "model", "needs name and flavor (e.g. name = \"llama3\", flavor = \"8B\")");
  std::string lower = *flavor;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return std::tolower(ch); });
  const std::string key = *name + "-" + lower;
  const std::vector<std::string> zoo = model_names();
  if (std::find(zoo.begin(), zoo.end(), key) == zoo.end())
    in.fail(model->get("flavor"), "model.flavor",
            "torchtitan's " + *name + " " + *flavor +
                " is not in simtrain's zoo (simtrain models lists it; a "
                "model file can add it)");
  return key;
}

}  // namespace

TorchtitanPlan parse_torchtitan_config(const std::string& toml_text, const std::string& origin,
                                       ParallelConfig base) {
  const toml::table doc = parse_toml(toml_text, origin);
  const Reader in(doc, origin);
  TorchtitanPlan plan;
  ParallelConfig& c = base;
  for (auto&& [key, node] : doc) {
    const std::string name(key.str());
    if (one_of({"model", "training", "parallelism", "activation_checkpoint", "compile"}, name)) continue;
    if (one_of(kNoEffectSections, name))
      plan.no_effect.push_back("[" + name + "]");
    else
      plan.unknown.push_back("[" + name + "]");
  }
  const toml::table* training = in.section("training");
  const toml::table* parallelism = in.section("parallelism");
  // The older schema kept the degrees under [training].
  for (const char* degree : kParallelDegrees)
    if (training && training->contains(degree))
      in.fail(training->get(degree), std::string("training.") + degree,
              "an older torchtitan schema (parallel degrees under [training]); this reader follows the one "
              "with a [parallelism] table");

  const toml::table* model = in.section("model");
  if (!model) in.fail(nullptr, "model", "missing the [model] table");
  c.model = zoo_key(in, model);
  for (auto&& [key, node] : *model) {
    const std::string k(key.str());
    if (k == "converters") {
      if (!node.is_array()) in.fail(&node, "model.converters", "expected a list of strings");
      for (auto&& converter : *node.as_array()) {
        if (!converter.is_string()) in.fail(&converter, "model.converters", "expected a list of strings");
        const std::string what = converter.as_string()->get();
        if (what == "float8")
          c.fp8 = true, c.precision = Precision::AMP_BF16, c.quant_recipe = QuantRecipe::Tensorwise;
        else
          in.fail(&converter, "model.converters", "converter '" + what + "' is not modelled (float8 is)");
      }
    } else if (!one_of({"name", "flavor", "tokenizer_path", "hf_assets_path"}, k)) {
      plan.unknown.push_back("model." + k);
    }
  }

  // The 2024 schema turned torchao's float8 training on in [float8] (enable_float8_linear); torchao scales
  // each tensor by its own current amax (dynamic, tensorwise) by default. The section's other settings
  // (float8 all-gathers, filters) are not modelled.
  if (in.boolean(in.section("float8"), "float8", "enable_float8_linear").value_or(false)) {
    c.fp8 = true, c.precision = Precision::AMP_BF16, c.quant_recipe = QuantRecipe::Tensorwise;
    std::erase(plan.no_effect, std::string("[float8]"));
  }

  const int tp = static_cast<int>(
      in.integer(parallelism, "parallelism", "tensor_parallel_degree", 1, 1 << 20).value_or(1));
  const int pp = static_cast<int>(
      in.integer(parallelism, "parallelism", "pipeline_parallel_degree", 1, 1 << 20).value_or(1));
  const int cp = static_cast<int>(
      in.integer(parallelism, "parallelism", "context_parallel_degree", 1, 1 << 20).value_or(1));
  const int replicate = static_cast<int>(
      in.integer(parallelism, "parallelism", "data_parallel_replicate_degree", 1, 1 << 20).value_or(1));
  int shard = static_cast<int>(
      in.integer(parallelism, "parallelism", "data_parallel_shard_degree", -1, 1 << 20).value_or(-1));
  if (shard == 0)
    in.fail(parallelism->get("data_parallel_shard_degree"), "parallelism.data_parallel_shard_degree",
            "must be -1 or positive");
  const int model_parallel = tp * pp * cp * replicate;
  if (shard == -1) {
    if (c.gpus % model_parallel != 0)
      in.fail(nullptr, "parallelism",
              std::to_string(c.gpus) +
                  " GPUs are not a multiple of tp x pp x cp x replicate = " + std::to_string(model_parallel));
    shard = c.gpus / model_parallel;
  }
  if (model_parallel * shard != c.gpus)
    in.fail(nullptr, "parallelism",
            "the degrees multiply to " + std::to_string(model_parallel * shard) + " GPUs, not the " +
                std::to_string(c.gpus) + " given (--gpus)");
  c.tp = tp, c.pp = pp, c.cp = cp, c.dp = replicate * shard;
  // torchtitan's tensor parallelism shards the norms' and dropout's activations along the sequence
  // (SequenceParallel), as Megatron's sequence parallelism does.
  c.sp = tp > 1;
  // FSDP shards over the shard and context-parallel degrees together (torchtitan's dp_shard_cp mesh: the
  // context-parallel ranks hold the same parameters), so context parallelism alone also shards.
  const bool sharded = shard > 1 || cp > 1;
  c.fsdp = sharded ? (replicate > 1 ? FsdpMode::HybridShard : FsdpMode::FullShard) : FsdpMode::None;
  if (parallelism)
    for (auto&& [key, node] : *parallelism) {
      const std::string k(key.str());
      if (one_of(kParallelDegrees, k) || k == "pipeline_parallel_microbatch_size") continue;
      // Async TP pipelines the sequence-parallel all-gathers and reduce-scatters with their matmuls, as
      // Transformer Engine's userbuffers do (ParallelConfig::tp_comm_overlap).
      if (k == "enable_async_tensor_parallel") {
        const bool async_tp = in.boolean(parallelism, "parallelism", "enable_async_tensor_parallel").value();
        c.tp_comm_overlap = async_tp && tp > 1;
        continue;
      }
      (one_of(
           {"fsdp_reshard_after_forward", "disable_loss_parallel", "enable_compiled_autograd",
            "pipeline_parallel_schedule", "pipeline_parallel_split_points", "context_parallel_rotate_method"},
           k)
           ? plan.no_effect
           : plan.unknown)
          .push_back("parallelism." + k);
    }

  // The local batch is per data-parallel rank; pipelining splits it into micro-batches.
  const auto local = in.integer(training, "training", "local_batch_size", 1, 1 << 20)
                         .value_or(in.integer(training, "training", "batch_size", 1, 1 << 20).value_or(8));
  const auto micro =
      pp > 1 ? in.integer(parallelism, "parallelism", "pipeline_parallel_microbatch_size", 1, 1 << 20)
                   .value_or(1)
             : local;
  if (local % micro != 0)
    in.fail(nullptr, "parallelism.pipeline_parallel_microbatch_size",
            std::to_string(micro) + " does not divide the local batch " + std::to_string(local));
  c.micro_batch = static_cast<int>(micro);
  c.global_batch = static_cast<int>(local) * c.dp;
  if (auto global = in.integer(training, "training", "global_batch_size", 1, 1 << 30);
      global && *global != c.global_batch) {
    if (*global % c.global_batch != 0)
      in.fail(training->get("global_batch_size"), "training.global_batch_size",
              std::to_string(*global) + " is not a multiple of local batch x data-parallel degree (" +
                  std::to_string(c.global_batch) + ")");
    c.global_batch = static_cast<int>(*global);  // gradient accumulation makes up the rest
  }
  if (auto seq = in.integer(training, "training", "seq_len", 1, 1 << 24)) c.seq_len = static_cast<int>(*seq);
  if (auto steps = in.integer(training, "training", "steps", 1, 1LL << 40))
    plan.steps = static_cast<double>(*steps);
  // FSDP's mixed precision: bf16 parameters for compute unless the file says float32.
  const std::string param = in.text(training, "training", "mixed_precision_param").value_or("bfloat16");
  if (param != "bfloat16" && param != "float32")
    in.fail(training->get("mixed_precision_param"), "training.mixed_precision_param",
            "expected bfloat16 or float32");
  c.precision = param == "float32" && !c.fp8 ? Precision::FP32 : Precision::AMP_BF16;
  // FSDP2 reduce-scatters gradients in fp32 unless the file says bfloat16 (torchtitan's default float32).
  const std::string reduce = in.text(training, "training", "mixed_precision_reduce").value_or("float32");
  if (reduce != "bfloat16" && reduce != "float32")
    in.fail(training->get("mixed_precision_reduce"), "training.mixed_precision_reduce",
            "expected bfloat16 or float32");
  c.fsdp_reduce_in_fp32 = reduce == "float32";
  if (training)
    for (auto&& [key, node] : *training) {
      const std::string k(key.str());
      if (one_of({"local_batch_size", "batch_size", "global_batch_size", "seq_len", "steps",
                  "mixed_precision_param", "mixed_precision_reduce", "compile"},
                 k))
        continue;
      (one_of(kTrainingNoEffect, k) ? plan.no_effect : plan.unknown).push_back("training." + k);
    }

  // torch.compile fuses each layer's pointwise work into Inductor's kernels, as the fused builders cost it;
  // uncompiled, PyTorch runs one kernel per operator (ParallelConfig::eager_pointwise). The 2024 schema says
  // training.compile; the later one [compile] enable, with "model" among its components when they are given.
  bool compiled = in.boolean(training, "training", "compile").value_or(false);
  if (const toml::table* compile = in.section("compile")) {
    const bool enabled = in.boolean(compile, "compile", "enable").value_or(false);
    bool model_compiled = true;
    if (const toml::node* components = compile->get("components")) {
      if (!components->is_array()) in.fail(components, "compile.components", "expected a list of strings");
      model_compiled = false;
      for (auto&& component : *components->as_array()) {
        if (!component.is_string()) in.fail(&component, "compile.components", "expected a list of strings");
        model_compiled |= component.as_string()->get() == "model";
      }
    }
    compiled = compiled || (enabled && model_compiled);
    for (auto&& [key, node] : *compile)
      if (!one_of({"enable", "components"}, key.str()))
        plan.no_effect.push_back("compile." + std::string(key.str()));
  }
  c.eager_pointwise = !compiled;
  // The loss: PyTorch's cross_entropy over an fp32 copy of the logits, compiled or not (torch.compile's
  // fusion of it is not modelled).
  c.cross_entropy_fusion = CrossEntropyFusion::PyTorch;

  const toml::table* checkpointing = in.section("activation_checkpoint");
  if (auto mode = in.text(checkpointing, "activation_checkpoint", "mode")) {
    if (*mode == "none")
      c.recompute = Recompute::None;
    else if (*mode == "selective")
      c.recompute = Recompute::Selective;
    else if (*mode == "full")
      c.recompute = Recompute::Full;
    else
      in.fail(checkpointing->get("mode"), "activation_checkpoint.mode", "expected none, selective or full");
  }
  // Selective checkpointing by operator ("op": kRecomputeTorchtitanOps), or of every n-th layer in full
  // (torchtitan's default "2"; 0 and 1 wrap every layer: parallelize_llama.py's
  // _apply_ac_to_transformer_block up to 2025).
  if (c.recompute == Recompute::Selective) {
    const std::string option =
        in.text(checkpointing, "activation_checkpoint", "selective_ac_option").value_or("2");
    const bool digits =
        !option.empty() && option.size() <= 6 &&
        std::all_of(option.begin(), option.end(), [](unsigned char ch) { return std::isdigit(ch); });
    if (option == "op") {
      c.recompute_modules = kRecomputeTorchtitanOps;
    } else if (digits) {
      c.recompute = Recompute::Full;
      if (const int every = std::stoi(option); every > 1)
        c.recompute_layers = {RecomputedLayers::Rule::EveryNth, every};
    } else {
      in.fail(checkpointing->get("selective_ac_option"), "activation_checkpoint.selective_ac_option",
              "expected \"op\" or a layer count");
    }
  }
  if (c.vpp > 1 && c.schedule == PipelineSchedule::OneFOneB) c.schedule = PipelineSchedule::Interleaved;
  plan.config = std::move(c);
  return plan;
}

TorchtitanPlan read_torchtitan_config(const std::string& path, ParallelConfig base) {
  return parse_torchtitan_config(read_file(path), path, std::move(base));
}

}  // namespace simtrain::workload
