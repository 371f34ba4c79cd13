// simtrain plot: render a study's results with gnuplot.
#include <spawn.h>
#include <sys/wait.h>

#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/run_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/plan/plan_report.h"
#include "simulator/study/collect.h"
#include "simulator/study/plot.h"
#include "simulator/study/scenario_file.h"

extern char** environ;

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

// Runs gnuplot on `script`; throws Error with gnuplot's status when it fails or is missing.
void run_gnuplot(const std::string& script) {
  std::vector<std::string> args = {"gnuplot", script};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), environ) != 0)
    throw Error("cannot run gnuplot: is it installed? (tools/setup.sh installs gnuplot-nox)");
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status))
    throw Error(script, 0, "", "gnuplot was killed by signal " + std::to_string(WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    throw Error(script, 0, "", "gnuplot failed (status " + std::to_string(WEXITSTATUS(status)) + ")");
}

// Writes `script` next to the plot (or where --script says), runs gnuplot, and removes it unless kept.
void render(const po::variables_map& vm, const std::string& output, const std::string& script) {
  const std::string script_path = vm.count("script") ? vm["script"].as<std::string>() : output + ".gp";
  write_file_atomically(script_path, script);
  try {
    run_gnuplot(script_path);
  } catch (const Error&) {
    if (!vm.count("script")) std::filesystem::remove(script_path);
    throw;
  }
  if (!vm.count("script")) std::filesystem::remove(script_path);
  std::cout << "wrote " << output << "\n";
}

// The Pareto front of a plan search: iteration time against GPUs or memory per GPU.
int plot_plans(const po::variables_map& vm) {
  if (vm.count("scenario")) throw Error("--plans: plots a plan search, not a study; give one or the other");
  if (vm["kind"].as<std::string>() != "pareto" && !vm["kind"].defaulted())
    throw Error("--plans: only --kind pareto plots a plan search");
  if (!vm.count("output")) throw Error("-o: name the plot file (.svg or .png)");
  const std::string path = vm["plans"].as<std::string>();
  const nlohmann::json document = nlohmann::json::parse(read_file(path), nullptr, false);
  if (document.is_discarded()) throw Error(path, 0, "", "not JSON");
  study::PlotRequest request;
  request.kind = study::PlotKind::Pareto;
  request.x = vm["x"].defaulted() ? "gpus" : vm["x"].as<std::string>();
  if (request.x != "gpus" && request.x != "memory_bytes")
    throw Error("--x: a plan search plots against gpus or memory_bytes, not '" + request.x + "'");
  request.y = "iteration_time_s";
  request.output = vm["output"].as<std::string>();
  request.title = vm.count("title") ? vm["title"].as<std::string>() : "Pareto front of the plan search";
  render(vm, request.output, study::gnuplot_script(plan::plans_table(document), request));
  return 0;
}

}  // namespace

int plot_command(const Arguments& args) {
  po::options_description options("simtrain plot options");
  options.add_options()("help,h", "show this help")("scenario", po::value<std::string>(),
                                                    "scenario file (TOML)")(
      "results", po::value<std::string>(), "results directory (default: results/<study name>)")(
      "plans", po::value<std::string>(),
      "instead of a study: the plans of simtrain plan --json (--kind pareto)")(
      "kind", po::value<std::string>()->default_value("scaling"), "scaling | breakdown | memory | pareto")(
      "x", po::value<std::string>()->default_value("gpus"), "axis option on x (scaling)")(
      "y", po::value<std::string>()->default_value("samples_per_s"),
      "metric on y (scaling): samples_per_s, iteration_time_s, mfu, ...")(
      "series", po::value<std::string>(),
      "axis options whose values make the curves, comma-separated: tp,pp (default: all other axes)")(
      "title", po::value<std::string>(), "plot title (default: the study's name)")(
      "output,o", po::value<std::string>(), "the plot, .svg or .png")("script", po::value<std::string>(),
                                                                      "also keep the gnuplot script here");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_or_help(
          args, options, vm,
          "usage: simtrain plot SCENARIO.toml --kind scaling|breakdown|memory -o PLOT.svg\n"
          "       simtrain plot --plans PLANS.json --kind pareto [--x gpus|memory_bytes] -o PLOT.svg",
          positional))
    return 0;
  if (vm.count("plans")) return plot_plans(vm);
  if (vm["kind"].as<std::string>() == "pareto")
    throw Error("--kind pareto: plots a plan search (--plans PLANS.json from simtrain plan --json)");
  if (!vm.count("scenario"))
    throw Error("missing the scenario file (simtrain plot SCENARIO.toml -o PLOT.svg)");
  if (!vm.count("output")) throw Error("-o: name the plot file (.svg or .png)");
  const study::Study study = study::read_study(vm["scenario"].as<std::string>(), run_option_lookup());
  const std::string results = vm.count("results") ? vm["results"].as<std::string>() : "results/" + study.name;
  if (!std::filesystem::is_directory(results))
    throw Error(results, 0, "", "no results directory: run simtrain sweep first (or give --results)");
  const study::ResultStore store(results);
  study::PlotRequest request;
  const std::string kind = vm["kind"].as<std::string>();
  if (kind == "scaling") {
    request.kind = study::PlotKind::Scaling;
  } else if (kind == "breakdown") {
    request.kind = study::PlotKind::Breakdown;
  } else if (kind == "memory") {
    request.kind = study::PlotKind::Memory;
  } else {
    throw Error("--kind: expected scaling, breakdown, memory or pareto, got '" + kind + "'");
  }
  request.x = vm["x"].as<std::string>();
  request.y = vm["y"].as<std::string>();
  if (vm.count("series")) {
    const std::string list = vm["series"].as<std::string>();
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) request.series.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  request.output = vm["output"].as<std::string>();
  request.title = vm.count("title") ? vm["title"].as<std::string>() : study.name;
  const std::string script = study::gnuplot_script(
      study::collect_table(study, study::expand(study, run_input_content()), store), request);
  render(vm, request.output, script);
  return 0;
}

}  // namespace simtrain::cli
