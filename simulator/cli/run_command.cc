// simtrain run: simulate one training configuration and report.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>

#include "common/error.h"
#include "common/file_io.h"
#include "common/number_checks.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/report/timeline.h"
#include "simulator/run/simulation.h"
#include "simulator/workload/framework.h"

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

// A factor that scales a speed: a bandwidth (--degrade) or a GPU's pace (--straggler). A thousand times either
// way covers every failure worth simulating; beyond it, or NaN and infinities, the value is a typo.
double scale_factor(const std::string& option, const std::string& key, const std::string& text) {
  const double value = number(option, text);
  if (auto why = range_violation(value, {1e-3, true, 1e3, true})) throw Error(option + ": " + key + " " + *why);
  return value;
}

}  // namespace

int run_command(const Arguments& args) {
  const po::options_description options = run_options();
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain run [options]")) return 0;

  run::RunRequest request;
  if (vm.count("trace")) {
    // A trace fixes its own workload: options that would describe another one are a mistake.
    // --gpus and --bucket-mb scale a one-GPU recording out as DDP.
    for (const char* name : {"model", "batch-per-gpu", "grad-accum", "precision", "seq-len", "optimizer",
                             "framework", "impl", "host"})
      if (vm.count(name) && !vm[name].defaulted())
        throw Error(std::string("--") + name + ": give either a workload or --trace FILE, not both");
    request.trace_paths = vm["trace"].as<std::vector<std::string>>();
    if (!vm["gpus"].defaulted() && vm["gpus"].as<int>() > 1)
      request.import.data_parallel_ranks = vm["gpus"].as<int>();
    request.import.ddp_bucket_bytes = vm["bucket-mb"].as<double>() * 1024 * 1024;
    if (vm.count("step")) request.import.step = vm["step"].as<int>();
    if (vm.count("host-speed")) request.import.host_speed = vm["host-speed"].as<double>();
    if (vm.count("host-step-time")) request.import.host_step_time_s = vm["host-step-time"].as<double>();
  } else if (vm.count("step") || vm.count("host-speed") || vm.count("host-step-time")) {
    throw Error("--step, --host-speed, --host-step-time: apply to a recorded trace (--trace FILE)");
  } else if (wants_model_parallelism(vm)) {
    if (!vm["framework"].defaulted())
      throw Error(
          "--framework: applies to data-parallel runs; a large-model plan says its framework through "
          "--zero, --fsdp or --distributed-optimizer");
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
      request.degraded_links.emplace_back(fields.at("link"), scale_factor("--degrade", "factor", fields.at("factor")));
    }
  if (vm.count("straggler"))
    for (const std::string& text : vm["straggler"].as<std::vector<std::string>>()) {
      const auto fields = key_values("--straggler", text, {"rank", "slowdown"});
      const double rank = number("--straggler", fields.at("rank"));
      if (rank != std::floor(rank) || rank < 0 || rank > 1e9)
        throw Error("--straggler: rank must be a whole number >= 0, got '" + fields.at("rank") + "'");
      request.rank_slowdown[static_cast<int>(rank)] = scale_factor("--straggler", "slowdown", fields.at("slowdown"));
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
  const std::string fidelity = vm["fidelity"].as<std::string>();
  if (fidelity != "full" && fidelity != "fast")
    throw Error("--fidelity: unknown level '" + fidelity + "' (full, fast)");
  request.fold_replicas = fidelity == "fast";
  if (vm.count("timeline")) {
    request.timeline_ranks = vm["timeline-ranks"].as<int>();
    if (request.timeline_ranks < 1) throw Error("--timeline-ranks: must be at least 1");
  }

  run::RunOutput out = run::simulate(request);
  for (const std::string& warning : out.warnings) std::cerr << "simtrain: warning: " << warning << "\n";
  std::cout << report::summary_text(out.result);
  if (vm.count("json")) {
    std::string text = report::to_json(out.result, vm.count("omit-wall-time") == 0).dump(2) + "\n";
    write_output_file(vm["json"].as<std::string>(), text);
  }
  if (vm.count("timeline"))
    report::write_timeline_file(out.trace, out.replay, vm["timeline"].as<std::string>());
  return 0;
}

}  // namespace simtrain::cli
