// simtrain validate: the published-measurement validations shipped in the repository, their error tables
// and whether each meets its target (study/validation_suites.h).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/suggest.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/study/validation_suites.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int validate_command(const Arguments& args) {
  po::options_description options("simtrain validate options");
  options.add_options()("help,h", "show this help")("suite", po::value<std::vector<std::string>>(),
                                                    "suites to run (default: all; --list names them)")(
      "list", "list the suites")("json", "print the outcomes as JSON (each suite's table as text)")(
      "source-dir", po::value<std::string>()->default_value(SIMTRAIN_SOURCE_DIR),
      "the simtrain source tree holding tools/ and validation/");
  po::positional_options_description positional;
  positional.add("suite", -1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain validate [SUITE...] [--json] [--list]", positional))
    return 0;
  const auto& suites = study::validation_suites();
  if (vm.count("list")) {
    for (const study::ValidationSuite& s : suites) std::cout << fmt::format("{:<16} {}\n", s.name, s.what);
    return 0;
  }
  std::vector<const study::ValidationSuite*> chosen;
  std::vector<std::string> names;
  for (const study::ValidationSuite& s : suites) names.push_back(s.name);
  if (vm.count("suite")) {
    for (const std::string& name : vm["suite"].as<std::vector<std::string>>()) {
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end())
        throw Error("unknown suite '" + name + "'" + did_you_mean(name, names) + " (--list)");
      chosen.push_back(&suites[static_cast<std::size_t>(it - names.begin())]);
    }
  } else {
    for (const study::ValidationSuite& s : suites) chosen.push_back(&s);
  }
  const bool json = vm.count("json") > 0;
  const std::string source_dir = vm["source-dir"].as<std::string>();
  // The scripts run this very simtrain; /proc/self/exe would name python3 in them.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  nlohmann::ordered_json outcomes = nlohmann::ordered_json::array();
  int missed = 0;
  for (const study::ValidationSuite* suite : chosen) {
    if (!json) std::cout << fmt::format("== {}: {}\n", suite->name, suite->what) << std::flush;
    const study::SuiteOutcome o = study::run_validation_suite(*suite, source_dir, self);
    const std::string verdict = o.exit_status == 0 ? "meets its target"
                                : o.exit_status == 1
                                    ? "misses its target"
                                    : "could not run (status " + std::to_string(o.exit_status) + ")";
    if (o.exit_status != 0) ++missed;
    if (json) {
      outcomes.push_back({{"suite", o.name},
                          {"what", suite->what},
                          {"exit_status", o.exit_status},
                          {"verdict", verdict},
                          {"wall_s", o.wall_s},
                          {"output", o.output}});
    } else {
      std::cout << o.output << fmt::format("-- {}: {} ({:.0f} s)\n\n", suite->name, verdict, o.wall_s);
    }
  }
  if (json) std::cout << outcomes.dump(1) << "\n";
  return missed == 0 ? 0 : 1;
}

}  // namespace simtrain::cli
