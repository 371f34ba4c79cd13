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

}  // namespace

int plot_command(const Arguments& args) {
  po::options_description options("simtrain plot options");
  options.add_options()("help,h", "show this help")("scenario", po::value<std::string>(),
                                                    "scenario file (TOML)")(
      "results", po::value<std::string>(), "results directory (default: results/<study name>)")(
      "kind", po::value<std::string>()->default_value("scaling"), "scaling | breakdown | memory")(
      "x", po::value<std::string>()->default_value("gpus"), "axis option on x (scaling)")(
      "y", po::value<std::string>()->default_value("samples_per_s"),
      "metric on y (scaling): samples_per_s, iteration_time_s, mfu, ...")(
      "series", po::value<std::string>(),
      "axis option whose values make the curves (default: all other axes)")(
      "title", po::value<std::string>(), "plot title (default: the study's name)")(
      "output,o", po::value<std::string>(), "the plot, .svg or .png")("script", po::value<std::string>(),
                                                                      "also keep the gnuplot script here");
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm,
                     "usage: simtrain plot SCENARIO.toml --kind scaling|breakdown|memory -o PLOT.svg",
                     positional))
    return 0;
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
    throw Error("--kind: expected scaling, breakdown or memory, got '" + kind + "'");
  }
  request.x = vm["x"].as<std::string>();
  request.y = vm["y"].as<std::string>();
  if (vm.count("series")) request.series = vm["series"].as<std::string>();
  request.output = vm["output"].as<std::string>();
  request.title = vm.count("title") ? vm["title"].as<std::string>() : study.name;
  const std::string script = study::gnuplot_script(
      study::collect_table(study, study::expand(study, run_input_content()), store), request);
  const std::string script_path =
      vm.count("script") ? vm["script"].as<std::string>() : request.output + ".gp";
  write_file_atomically(script_path, script);
  try {
    run_gnuplot(script_path);
  } catch (const Error&) {
    if (!vm.count("script")) std::filesystem::remove(script_path);
    throw;
  }
  if (!vm.count("script")) std::filesystem::remove(script_path);
  std::cout << "wrote " << request.output << "\n";
  return 0;
}

}  // namespace simtrain::cli
