// simtrain models: the model zoo with parameter counts and FLOPs per sample.
#include <iostream>

#include <fmt/format.h>

#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/workload/model_zoo.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int models_command(const Arguments& args) {
  po::options_description options("simtrain models options");
  options.add_options()("help,h", "show this help");
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain models")) return 0;
  std::cout << fmt::format("{:<20} {:>16} {:>18} {:>9}  {}\n", "model", "parameters", "fwd GFLOP/sample",
                           "seq len", "description");
  for (const std::string& name : workload::model_names()) {
    workload::Model model = workload::build_model(name);
    std::cout << fmt::format("{:<20} {:>16.0f} {:>18.4g} {:>9}  {}\n", name, model.parameters(),
                             model.forward_flops_per_sample() / 1e9,
                             model.seq_len > 0 ? std::to_string(model.seq_len) : "-", model.description);
  }
  return 0;
}

}  // namespace simtrain::cli
