// simtrain models: the model zoo with parameter counts, FLOPs per sample and the implementations (--impl)
// whose kernels can be generated.
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/workload/implementation.h"
#include "simulator/workload/model_zoo.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int models_command(const Arguments& args) {
  po::options_description options("simtrain models options");
  options.add_options()("help,h", "show this help")("json", "print the zoo as JSON, one object per model");
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain models [--json]")) return 0;
  if (vm.count("json")) {
    nlohmann::ordered_json models = nlohmann::ordered_json::array();
    for (const std::string& name : workload::model_names()) {
      const workload::Model model = workload::build_model(name);
      std::vector<std::string> impls;
      for (workload::Implementation i : workload::implementations_for(model))
        impls.emplace_back(workload::to_string(i));
      models.push_back({{"name", name},
                        {"parameters", model.parameters()},
                        {"forward_flops_per_sample", model.forward_flops_per_sample()},
                        {"seq_len", model.seq_len},
                        {"implementations", impls},
                        {"description", model.description}});
    }
    std::cout << models.dump(1) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<24} {:>16} {:>18} {:>9}  {:<20} {}\n", "model", "parameters",
                           "fwd GFLOP/sample", "seq len", "--impl", "description");
  for (const std::string& name : workload::model_names()) {
    workload::Model model = workload::build_model(name);
    std::string impls;
    for (workload::Implementation i : workload::implementations_for(model))
      impls += (impls.empty() ? "" : "|") + std::string(workload::to_string(i));
    std::cout << fmt::format("{:<24} {:>16.0f} {:>18.4g} {:>9}  {:<20} {}\n", name, model.parameters(),
                             model.forward_flops_per_sample() / 1e9,
                             model.seq_len > 0 ? std::to_string(model.seq_len) : "-", impls,
                             model.description);
  }
  return 0;
}

}  // namespace simtrain::cli
