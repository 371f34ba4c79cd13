// simtrain run: simulate one training configuration and report.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>

#include "common/error.h"
#include "common/file_io.h"
#include "common/number_checks.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/progress_line.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/trace_import_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/report/kineto_timeline.h"
#include "simulator/report/timeline.h"
#include "simulator/run/simulation.h"
#include "simulator/workload/deepspeed_config.h"
#include "simulator/workload/framework.h"
#include "simulator/workload/megatron_arguments.h"
#include "simulator/workload/torchtitan_config.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

// "key=value,key=value" with exactly the keys `expected`; Error naming the option otherwise.
std::map<std::string, std::string> key_values(const std::string& option, const std::string& text,
                                              const std::vector<std::string>& expected) {
  std::map<std::string, std::string> fields;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string field = text.substr(start, comma - start);
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) throw Error(option + ": expected key=value, got '" + field + "'");
    if (!fields.emplace(field.substr(0, equals), field.substr(equals + 1)).second)
      throw Error(option + ": " + field.substr(0, equals) + "= given twice in '" + text + "'");
    start = comma + 1;
  }
  for (const std::string& key : expected)
    if (!fields.count(key)) throw Error(option + ": missing " + key + "= in '" + text + "'");
  if (fields.size() != expected.size()) throw Error(option + ": unknown key in '" + text + "'");
  return fields;
}

double number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size())
    throw Error(option + ": expected a number, got '" + text + "'");
  return value;
}

// A factor that scales a speed: a bandwidth (--degrade) or a GPU's pace (--straggler). A thousand times
// either way covers every failure worth simulating; beyond it, or NaN and infinities, the value is a typo.
double scale_factor(const std::string& option, const std::string& key, const std::string& text) {
  const double value = number(option, text);
  if (auto why = range_violation(value, {1e-3, true, 1e3, true}))
    throw Error(option + ": " + key + " " + *why);
  return value;
}

// A large-model plan has its own batch options (--micro-batch, --global-batch) and says its framework
// through --zero, --fsdp or --distributed-optimizer: the data-parallel workload's options would be ignored.
void reject_data_parallel_options(const po::variables_map& vm) {
  for (const char* name : {"batch-per-gpu", "grad-accum", "bucket-mb", "optimizer", "framework"})
    if (vm.count(name) && !vm[name].defaulted())
      throw Error(std::string("--") + name +
                  ": applies to data-parallel runs; a large-model plan sets its batch with --micro-batch and "
                  "--global-batch, and its framework with --zero, --fsdp or --distributed-optimizer");
}

// One line naming the framework settings (Megatron arguments, DeepSpeed or torchtitan keys) that simtrain
// accepts without modelling, or does not know.
void list_keys(const char* what, const std::vector<std::string>& keys) {
  if (keys.empty()) return;
  std::string list;
  for (const std::string& key : keys) list += (list.empty() ? "" : " ") + key;
  std::cerr << "simtrain: " << what << ": " << list << "\n";
}

// The plan a DeepSpeed or torchtitan file describes over simtrain's own options, which must not say the
// same thing again.
workload::ParallelConfig framework_config_plan(const po::variables_map& vm, report::JobLength& job) {
  const bool deepspeed = vm.count("deepspeed-config") > 0;
  const std::string option = deepspeed ? "--deepspeed-config" : "--torchtitan-config";
  const std::vector<const char*> set_by_file =
      deepspeed ? std::vector<const char*>{"zero", "micro-batch", "global-batch", "precision",
                                           "no-overlap-grad-reduce"}
                : std::vector<const char*>{"model",        "tp",      "pp",        "cp",
                                           "dp",           "fsdp",    "zero",      "micro-batch",
                                           "global-batch", "seq-len", "recompute", "recompute-modules",
                                           "precision"};
  for (const char* name : set_by_file)
    if (explicit_option_text(vm, name))
      throw Error(option + ", --" + name + ": the file sets it; give it in one place");
  workload::ParallelConfig base = parallel_from_options(vm);
  // torchtitan and DeepSpeed run eager PyTorch code: the host profile's cost as measured, and no
  // Megatron schedule's Python per pass, unless asked.
  if (!vm.count("host-overhead")) base.host_overhead = 1;
  if (!vm.count("host-pass-overhead")) base.host_pass_overhead = 0;
  if (!vm.count("host-moe-layer-overhead")) base.host_moe_layer_overhead = 0;
  if (deepspeed) {
    workload::DeepSpeedPlan plan =
        workload::read_deepspeed_config(vm["deepspeed-config"].as<std::string>(), base);
    list_keys("note: DeepSpeed settings that do not change a step's time in simtrain's model",
              plan.no_effect);
    list_keys("warning: keys DeepSpeed's configuration does not have (ignored)", plan.unknown);
    return plan.config;
  }
  // torchtitan calls PyTorch's SDPA with is_causal and no mask, which PyTorch of 2024-25 served with its
  // FlashAttention-2 backend first on Hopper (its fixed priority: huggingface/transformers#48163,
  // meta-pytorch/tritonbench#41; the torchtitan benchmarks of 2024-12 and 2025-06, README "torchtitan on
  // H100"); later PyTorch picks cuDNN's (the H200 traces, PyTorch 2.11): --attention flash.
  if (vm["attention"].defaulted()) base.attention_kernel = trace::AttentionKernel::FlashAttention2;
  workload::TorchtitanPlan plan =
      workload::read_torchtitan_config(vm["torchtitan-config"].as<std::string>(), base);
  list_keys("note: torchtitan settings that do not change a step's time", plan.no_effect);
  list_keys("warning: keys torchtitan's schema does not have (ignored)", plan.unknown);
  if (plan.steps && !vm.count("steps")) job.steps = *plan.steps;
  return plan.config;
}

constexpr const char* kRunUsage =
    "usage: simtrain run [options]\n"
    "Megatron-LM's own arguments are read as Megatron reads them (--tensor-model-parallel-size, "
    "--num-layers, --micro-batch-size, ...; README: Megatron-LM's arguments).";

}  // namespace

int run_command(const Arguments& args) {
  const po::options_description options = run_options();
  // Megatron-LM's own arguments, pasted from a Megatron script, are read apart (megatron_arguments.h).
  std::vector<std::string> own_args = args;
  const workload::MegatronArguments megatron = workload::take_megatron_arguments(own_args);
  po::variables_map vm;
  if (!parse_or_help(own_args, options, vm, kRunUsage)) return 0;

  run::RunRequest request;
  if (vm.count("deepspeed-config") || vm.count("torchtitan-config")) {
    if (!megatron.empty() || vm.count("trace") ||
        (vm.count("deepspeed-config") && vm.count("torchtitan-config")))
      throw Error(
          "--deepspeed-config, --torchtitan-config, --trace and Megatron-LM's arguments each describe "
          "the workload: give one");
    reject_data_parallel_options(vm);
    request.parallel = framework_config_plan(vm, request.job);
    request.config_files = {
        vm[vm.count("deepspeed-config") ? "deepspeed-config" : "torchtitan-config"].as<std::string>()};
  } else if (!megatron.empty()) {
    if (vm.count("trace"))
      throw Error("--trace: Megatron-LM's arguments describe a workload; give one or the other");
    reject_data_parallel_options(vm);
    workload::MegatronPlan plan = workload::apply_megatron_arguments(
        megatron, parallel_from_options(vm),
        [&](const std::string& name) { return explicit_option_text(vm, name); });
    request.parallel = std::move(plan.config);
    if (plan.train_iters) {
      if (vm.count("steps") && vm["steps"].as<double>() != *plan.train_iters)
        throw Error("--train-iters and --steps disagree: give one of them");
      request.job.steps = *plan.train_iters;
    }
    list_keys("note: Megatron-LM arguments that do not change a step's time", plan.ignored);
  } else if (vm.count("trace")) {
    // A trace fixes its own workload: options that would describe another one are a mistake.
    // --gpus, --bucket-mb and --fsdp full scale a one-GPU recording out as DDP or FSDP.
    for (const char* name : {"model",       "batch-per-gpu",
                             "grad-accum",  "precision",
                             "seq-len",     "optimizer",
                             "framework",   "impl",
                             "host",        "tp",
                             "sp",          "pp",
                             "vpp",         "cp",
                             "ep",          "dp",
                             "zero",        "distributed-optimizer",
                             "micro-batch", "global-batch",
                             "recompute",   "recompute-modules",
                             "schedule"})
      if (vm.count(name) && !vm[name].defaulted())
        throw Error(std::string("--") + name + ": give either a workload or --trace FILE, not both");
    request.trace_paths = vm["trace"].as<std::vector<std::string>>();
    request.import = import_options_from(vm);
  } else if (vm.count("step") || vm.count("host-speed") || vm.count("host-step-time") ||
             !vm["fsdp-min-params"].defaulted()) {
    throw Error(
        "--step, --host-speed, --host-step-time, --fsdp-min-params: apply to a recorded trace "
        "(--trace FILE)");
  } else if (wants_model_parallelism(vm)) {
    reject_data_parallel_options(vm);
    request.parallel = parallel_from_options(vm);
  } else {
    request.workload = workload_from_options(vm);
  }
  // Start-up and per-step overheads: the data-parallel framework's defaults, or what the options say.
  if (request.workload) {
    const auto overheads =
        workload::default_overheads(*workload::parse_framework(request.workload->framework));
    request.job.startup_s = overheads.startup_for(request.workload->gpus);
    request.job.step_overhead = overheads.step_overhead;
  }
  if (vm.count("startup-s")) request.job.startup_s = vm["startup-s"].as<double>();
  if (vm.count("step-overhead")) request.job.step_overhead = vm["step-overhead"].as<double>();
  if (request.job.startup_s < 0 || request.job.step_overhead < 0)
    throw Error("--startup-s, --step-overhead: must not be negative");
  if (vm.count("degrade"))
    for (const std::string& text : vm["degrade"].as<std::vector<std::string>>()) {
      const auto fields = key_values("--degrade", text, {"link", "factor"});
      request.degraded_links.emplace_back(fields.at("link"),
                                          scale_factor("--degrade", "factor", fields.at("factor")));
    }
  if (vm.count("straggler"))
    for (const std::string& text : vm["straggler"].as<std::vector<std::string>>()) {
      const auto fields = key_values("--straggler", text, {"rank", "slowdown"});
      const double rank = number("--straggler", fields.at("rank"));
      if (rank != std::floor(rank) || rank < 0 || rank > 1e9)
        throw Error("--straggler: rank must be a whole number >= 0, got '" + fields.at("rank") + "'");
      request.rank_slowdown[static_cast<int>(rank)] =
          scale_factor("--straggler", "slowdown", fields.at("slowdown"));
    }
  request.nccl = nccl_override_from_options(vm);
  request.jitter.seed = vm["seed"].as<std::uint64_t>();
  request.jitter.run_sigma = vm["jitter-run"].as<double>();
  request.jitter.kernel_sigma = vm["jitter-kernel"].as<double>();
  request.platform = vm["platform"].as<std::string>();
  if (vm.count("nodes")) request.nodes = vm["nodes"].as<int>();
  request.xml_gpus_per_node = vm["gpus-per-node"].as<int>();
  if (request.xml_gpus_per_node < 1) throw Error("--gpus-per-node: must be at least 1");
  if (vm.count("profile")) request.profile = vm["profile"].as<std::string>();
  if (vm.count("steps")) request.job.steps = vm["steps"].as<double>();
  if (vm.count("epochs")) request.job.epochs = vm["epochs"].as<double>();
  if (vm.count("dataset-size")) request.job.dataset_size = vm["dataset-size"].as<double>();
  for (const char* name : {"steps", "epochs", "dataset-size"})
    if (vm.count(name) && !(vm[name].as<double>() > 0))
      throw Error(std::string("--") + name + ": must be positive");
  request.allow_oom = vm.count("allow-oom") > 0;
  if (vm.count("no-lockstep")) request.lockstep_group.clear();
  if (vm.count("no-comm-sms")) request.comm_sms = false;
  if (vm.count("every-replica")) request.sample_replicas = false;
  request.simulate_every_micro_batch = vm.count("simulate-every-micro-batch") > 0;
  const std::string fidelity = vm["fidelity"].as<std::string>();
  if (fidelity != "full" && fidelity != "fast")
    throw Error("--fidelity: unknown level '" + fidelity + "' (full, fast)");
  request.fold_replicas = fidelity == "fast";
  if (vm.count("timeline")) {
    request.timeline_ranks = vm["timeline-ranks"].as<int>();
    if (request.timeline_ranks < 1) throw Error("--timeline-ranks: must be at least 1");
  }

  // A document written to stdout ('-') is all that goes there: the summary then goes to stderr.
  const bool json_to_stdout = vm.count("json") && vm["json"].as<std::string>() == "-";
  const bool timeline_to_stdout = vm.count("timeline") && vm["timeline"].as<std::string>() == "-";
  const std::string timeline_format = vm["timeline-format"].as<std::string>();
  if (timeline_format != "chrome" && timeline_format != "kineto")
    throw Error("--timeline-format: unknown format '" + timeline_format + "' (chrome, kineto)");
  if (timeline_format == "kineto" && timeline_to_stdout)
    throw Error("--timeline-format kineto writes one file per rank: give --timeline a path prefix, not '-'");
  if (json_to_stdout && timeline_to_stdout)
    throw Error("--json -, --timeline -: only one of them can go to stdout");
  std::optional<run::RunOutput> finished;
  {
    ProgressLine progress;
    request.progress = progress.callback();
    finished = run::simulate(request);
  }
  run::RunOutput& out = *finished;
  for (const std::string& warning : out.warnings) std::cerr << "simtrain: warning: " << warning << "\n";
  (json_to_stdout || timeline_to_stdout ? std::cerr : std::cout)
      << report::summary_text(out.result, vm.count("omit-wall-time") == 0);
  if (vm.count("json")) {
    std::string text = report::to_json(out.result, vm.count("omit-wall-time") == 0).dump(2) + "\n";
    write_output_file(vm["json"].as<std::string>(), text);
  }
  if (vm.count("timeline") && vm["timeline-format"].as<std::string>() == "kineto")
    report::write_kineto_timelines(out.trace, out.replay, out.profile.device.name,
                                   out.profile.device.memory_bytes, vm["timeline"].as<std::string>());
  else if (vm.count("timeline"))
    report::write_timeline_file(out.trace, out.replay, vm["timeline"].as<std::string>());
  return 0;
}

}  // namespace simtrain::cli
