// simtrain plan: search the parallel plans of a model on a cluster, estimate them all, simulate the best,
// and print the ranked table and the chosen plan's commands.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/plan/plan_commands.h"
#include "simulator/plan/plan_report.h"
#include "simulator/plan/plan_search.h"
#include "simulator/plan/simulate_plans.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

int whole_number(const std::string& option, const std::string& text) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || value < 1 || value > (1 << 20))
    throw Error(option + ": expected a whole number from 1 to " + std::to_string(1 << 20) + ", got '" + text +
                "'");
  return static_cast<int>(value);
}

// "1024" or "256..2048".
void parse_gpus(const std::string& text, plan::SearchSpace& space) {
  const std::size_t dots = text.find("..");
  if (dots == std::string::npos) {
    space.min_gpus = space.max_gpus = whole_number("--gpus", text);
    return;
  }
  space.min_gpus = whole_number("--gpus", text.substr(0, dots));
  space.max_gpus = whole_number("--gpus", text.substr(dots + 2));
  if (space.min_gpus > space.max_gpus) throw Error("--gpus " + text + ": the range is empty");
}

// A fresh directory for the simulations' results, removed when the search ends.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "simtrain-plan.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw Error("cannot create a temporary directory for the simulations");
    path_ = pattern;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

int plan_command(const Arguments& args) {
  const auto started = std::chrono::steady_clock::now();
  po::options_description options("simtrain plan options");
  options.add_options()("help,h", "show this help")("model", po::value<std::string>(),
                                                    "model from the zoo (simtrain models)")(
      "gpus", po::value<std::string>(), "GPUs: N, or a range A..B to choose the cluster size too")(
      "platform", po::value<std::string>()->default_value("dgx-a100"), "cluster spec name or TOML file")(
      "profile", po::value<std::string>(), "GPU profile (default: the platform's GPU)")(
      "global-batch", po::value<int>(), "sequences per optimizer step")(
      "seq-len", po::value<int>()->default_value(0), "tokens per sequence (0 = the model's default)")(
      "precision", po::value<std::string>()->default_value("amp-bf16"),
      "amp-bf16 | amp (fp16) | fp32 | tf32 | fp8")("max-tp", po::value<int>()->default_value(0),
                                                   "largest tensor-parallel size (default: GPUs per node)")(
      "fix", po::value<std::vector<std::string>>(),
      "fix plan values, e.g. tp=8,pp=8 (tp pp vpp cp ep dp micro-batch recompute sharding); repeatable")(
      "no-offload",
      "never keep activations in host memory (--cpu-offloading-num-layers) to make a plan fit; by default a "
      "plan without pipelining or recomputation that does not fit offloads as few layers as make it fit")(
      "objective", po::value<std::string>()->default_value("time"), "time | tokens-per-gpu | cost")(
      "gpu-hour-price", po::value<double>()->default_value(0), "price of one GPU-hour, for --objective cost")(
      "top", po::value<int>()->default_value(20), "plans to simulate (0 = estimate only)")(
      "jobs,j",
      po::value<int>()->default_value(static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
      "simulations at a time")("fidelity", po::value<std::string>()->default_value("fast"),
                               "simulation fidelity: fast (data-parallel replicas sampled or folded) | full")(
      "time-limit", po::value<double>(), "seconds per simulation (default: none)")(
      "work-dir", po::value<std::string>(), "keep the simulations' results here (reused by a rerun)")(
      "rows", po::value<int>()->default_value(0), "table rows (default: --top, at least 10)")(
      "json", po::value<std::string>(),
      "write every plan that fits, ranked, as JSON (simtrain plot --plans)")(
      "csv", po::value<std::string>(), "write every plan that fits, ranked, as CSV");
  add_loss_options(options);
  po::variables_map vm;
  if (!parse_or_help(
          args, options, vm,
          "usage: simtrain plan --model M --gpus N|A..B --global-batch B [--platform P] [options]"))
    return 0;
  for (const char* required : {"model", "gpus", "global-batch"})
    if (!vm.count(required)) throw Error(std::string("--") + required + ": required");

  plan::PlanRequest request;
  request.space.model = vm["model"].as<std::string>();
  parse_gpus(vm["gpus"].as<std::string>(), request.space);
  request.space.global_batch = vm["global-batch"].as<int>();
  if (request.space.global_batch < 1) throw Error("--global-batch: must be at least 1");
  request.space.seq_len = vm["seq-len"].as<int>();
  if (request.space.seq_len < 0) throw Error("--seq-len: must not be negative");
  const std::string precision = vm["precision"].as<std::string>();
  if (precision == "fp8") {
    request.space.fp8 = true;
  } else if (auto p = workload::parse_precision(precision)) {
    request.space.precision = *p;
  } else {
    throw Error("--precision: unknown precision '" + precision + "' (amp-bf16, amp, fp32, tf32, fp8)");
  }
  request.space.cross_entropy_fusion = loss_from_options(vm);
  request.space.offload = !vm.count("no-offload");
  request.space.max_tp = vm["max-tp"].as<int>();
  if (request.space.max_tp < 0) throw Error("--max-tp: must not be negative");
  if (vm.count("fix"))
    for (const std::string& text : vm["fix"].as<std::vector<std::string>>())
      plan::parse_fixed(text, request.space.fixed);
  if (!plan::parse_objective(vm["objective"].as<std::string>(), request.objective))
    throw Error("--objective: expected time, tokens-per-gpu or cost, got '" +
                vm["objective"].as<std::string>() + "'");
  request.gpu_hour_price = vm["gpu-hour-price"].as<double>();
  if (!(request.gpu_hour_price >= 0)) throw Error("--gpu-hour-price: must not be negative");
  if (request.objective == plan::Objective::Cost && request.gpu_hour_price <= 0)
    throw Error("--objective cost: give --gpu-hour-price");
  request.platform = vm["platform"].as<std::string>();
  if (vm.count("profile")) request.profile = vm["profile"].as<std::string>();
  const int top = vm["top"].as<int>();
  if (top < 0) throw Error("--top: must not be negative");
  const int jobs = vm["jobs"].as<int>();
  const std::string fidelity = vm["fidelity"].as<std::string>();
  if (fidelity != "fast" && fidelity != "full")
    throw Error("--fidelity: expected fast or full, got '" + fidelity + "'");
  const double time_limit_s = vm.count("time-limit") ? vm["time-limit"].as<double>() : 0;

  plan::SearchResult search = plan::search_plans(request);
  const plan::SearchSpace& space = search.space;
  const plan::Enumeration& e = search.enumeration;
  std::cout << fmt::format(
      "plan: {} on {} x {} ({}), global batch {}, sequence {}, objective {}\n", space.model,
      space.min_gpus == space.max_gpus ? std::to_string(space.max_gpus)
                                       : fmt::format("{}..{}", space.min_gpus, space.max_gpus),
      search.gpu, request.platform, space.global_batch, space.seq_len, plan::to_string(request.objective));
  std::cout << fmt::format(
      "searched {} combinations: {} plans fit in {:.0f} GiB per GPU{}{} ({} invalid, {} too large); "
      "enumerated "
      "in {:.2f} s, "
      "estimated in {:.2f} s\n",
      e.considered, e.plans.size(), space.memory_bytes / (1024.0 * 1024 * 1024),
      e.offloaded > 0 ? fmt::format(", {} of them offloading activations", e.offloaded) : "",
      e.recompute_some > 0 ? fmt::format(", {} recomputing some layers only", e.recompute_some) : "",
      e.invalid, e.over_memory, search.enumerate_wall_s, search.estimate_wall_s);
  std::cout.flush();

  const std::size_t simulated = std::min<std::size_t>(static_cast<std::size_t>(top), search.ranked.size());
  if (simulated > 0) {
    std::optional<TemporaryDirectory> scratch;
    plan::SimulationOptions sim;
    sim.simtrain = "/proc/self/exe";
    sim.platform = request.platform;
    sim.profile = request.profile;
    sim.fidelity = fidelity;
    sim.jobs = jobs;
    sim.time_limit_s = time_limit_s;
    if (vm.count("work-dir")) {
      sim.work_dir = vm["work-dir"].as<std::string>();
    } else {
      scratch.emplace();
      sim.work_dir = scratch->path();
    }
    std::cerr << fmt::format("simulating the best {} by the estimate, {} at a time ({} fidelity)\n",
                             simulated, jobs, fidelity);
    plan::simulate_plans(search.ranked, simulated, sim, stderr);
    // Rank correlation is over the simulated plans in the estimate's order, before they are re-ranked.
    if (auto rho = plan::estimate_rank_correlation(search.ranked, simulated))
      std::cout << fmt::format("rank correlation of estimate and simulation (Spearman, {} plans): {:.3f}\n",
                               rho->plans, rho->spearman);
    std::vector<plan::RankedPlan> head(search.ranked.begin(),
                                       search.ranked.begin() + static_cast<long>(simulated));
    plan::rank_plans(head, request.objective);
    std::copy(head.begin(), head.end(), search.ranked.begin());
  }
  const int rows_option = vm["rows"].as<int>();
  const std::size_t rows =
      rows_option > 0 ? static_cast<std::size_t>(rows_option) : std::max<std::size_t>(10, simulated);
  std::cout << plan::ranked_table(search.ranked, rows);
  const plan::RankedPlan& best = search.ranked.front();
  std::cout << fmt::format("best plan: {} on {} GPUs, {:.3f} s per iteration ({}), {:.0f} tokens/s/GPU",
                           plan::plan_label(best.config), best.config.gpus, best.iteration_time_s(),
                           best.simulated && best.simulated->ok ? std::string("simulated")
                           : best.simulated ? "estimated; its simulation: " + best.simulated->error
                                            : std::string("estimated"),
                           best.tokens_per_s_per_gpu());
  if (request.gpu_hour_price > 0)
    std::cout << fmt::format(", {:.2f} per iteration", best.cost_per_iteration());
  std::cout << "\n  " << plan::run_command_line(best.config, request.platform) << "\n";
  std::cout << "  Megatron-LM: " << plan::megatron_arguments(best.config, search.model) << "\n";
  if (vm.count("json")) {
    nlohmann::json doc;
    doc["model"] = space.model;
    doc["platform"] = request.platform;
    doc["objective"] = plan::to_string(request.objective);
    doc["plans"] = plan::plans_json(search.ranked, search.ranked.size());
    write_output_file(vm["json"].as<std::string>(), doc.dump(2) + "\n");
  }
  if (vm.count("csv"))
    write_output_file(vm["csv"].as<std::string>(), plan::plans_csv(search.ranked, search.ranked.size()));
  std::cout << fmt::format("wall time: {:.1f} s\n",
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return 0;
}

}  // namespace simtrain::cli
