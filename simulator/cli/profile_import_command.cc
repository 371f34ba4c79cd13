// simtrain profile import nccl-tests LOG... --into PROFILE [--platform SPEC] [-o FILE]
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "calibration/nccl_tests_import.h"
#include "calibration/profile_json.h"
#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/platform/cluster_spec.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

// The links the measurements ran over: the platform's when one is named, else the GPU's own NVLink (or
// PCIe) from the profile, with no inter-node figure.
calibration::CollectiveLinks links_for(const calibration::CalibrationProfile& profile,
                                       const po::variables_map& vm) {
  calibration::CollectiveLinks links;
  links.intra_node_bandwidth_Bps = profile.device.nvlink_bandwidth_Bps > 0
                                       ? profile.device.nvlink_bandwidth_Bps
                                       : profile.device.pcie_bandwidth_Bps;
  if (vm.count("platform")) {
    platform::ClusterSpec spec = platform::load_cluster_spec(vm["platform"].as<std::string>());
    links.intra_node_bandwidth_Bps = spec.intra_node.bandwidth_Bps;
    links.intra_node_latency_s = spec.intra_node.latency_s;
    links.inter_node_bandwidth_Bps = spec.nics.count * spec.nics.bandwidth_Bps;
    // Node to node through one switch: out of one NIC, into the other.
    links.inter_node_latency_s = 2 * spec.nics.latency_s + spec.fabric.switch_latency_s;
  }
  return links;
}

}  // namespace

int profile_import_command(const Arguments& args) {
  const char* usage =
      "usage: simtrain profile import nccl-tests LOG... --into PROFILE [--platform SPEC] [-o FILE]\n"
      "       [--ranks N | --nodes N --gpus-per-node G] [--op all_reduce]  (for logs without a device list)\n"
      "Adds nccl-tests results to a profile's collective table and fits the NCCL efficiencies to them.";
  po::options_description options("simtrain profile import options");
  options.add_options()("help,h", "show this help")("into", po::value<std::string>()->required(),
                                                    "profile (name or file) the measurements are added to")(
      "platform", po::value<std::string>(), "cluster spec the logs were measured on (for inter-node links)")(
      "output,o", po::value<std::string>(), "profile file to write (default: the --into file)")(
      "ranks", po::value<int>(), "GPUs the logs ran on, for logs without a '# Using devices' list")(
      "nodes", po::value<int>(), "nodes the logs ran on, for logs without a device list")(
      "gpus-per-node", po::value<int>(), "GPUs per node: with --nodes, gives --ranks")(
      "op", po::value<std::string>(), "the collective (all_reduce, ...), for logs that do not name it")(
      "logs", po::value<std::vector<std::string>>()->required(), "nccl-tests output files");
  po::positional_options_description positional;
  positional.add("logs", -1);
  if (args.empty() || args[0] != "nccl-tests") {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
      std::cout << usage << "\n\n" << options << "\n";
      return 0;
    }
    throw Error("profile import: only 'nccl-tests' logs can be imported\n" + std::string(usage));
  }
  po::variables_map vm;
  po::store(po::command_line_parser(Arguments(args.begin() + 1, args.end()))
                .options(options)
                .positional(positional)
                .run(),
            vm);
  if (vm.count("help")) {
    std::cout << usage << "\n\n" << options << "\n";
    return 0;
  }
  po::notify(vm);

  const std::string into = vm["into"].as<std::string>();
  std::string output;
  if (vm.count("output"))
    output = vm["output"].as<std::string>();
  else if (!calibration::spec_profile(into) && std::filesystem::exists(into))
    output = into;
  else
    throw Error("-o: '" + into + "' is a built-in profile; name the file to write with -o");

  calibration::NcclTestsLogHints hints;
  if (vm.count("op")) hints.op = vm["op"].as<std::string>();
  if (vm.count("nodes")) hints.nodes = vm["nodes"].as<int>();
  if (vm.count("ranks")) hints.ranks = vm["ranks"].as<int>();
  if (vm.count("gpus-per-node")) {
    if (!vm.count("nodes")) throw Error("--gpus-per-node: give --nodes with it");
    const int ranks = hints.nodes * vm["gpus-per-node"].as<int>();
    if (vm.count("ranks") && hints.ranks != ranks)
      throw Error(fmt::format("--ranks {} and --nodes {} x --gpus-per-node {} disagree", hints.ranks,
                              hints.nodes, vm["gpus-per-node"].as<int>()));
    hints.ranks = ranks;
  }
  for (const auto& [name, value] : {std::pair{"--ranks", hints.ranks}, {"--nodes", hints.nodes}})
    if (value < 0 || value > 1 << 20) throw Error(std::string(name) + ": out of range");
  if (hints.ranks > 0 && hints.nodes > hints.ranks) throw Error("--nodes: more nodes than --ranks");
  calibration::CalibrationProfile base = calibration::load_profile(into);
  calibration::NcclTestsImport imported = calibration::import_nccl_tests(
      base, vm["logs"].as<std::vector<std::string>>(), links_for(base, vm), hints);
  calibration::write_profile_file(imported.profile, output);

  std::cout << fmt::format("added {} measurements to {}; collective tables now:\n",
                           imported.measurements_added, output);
  for (const auto& fit : imported.fits)
    std::cout << fmt::format("  {:<15} {:>5} ranks {:>3} nodes  {} regimes, max time error {:.1f}%\n", fit.op,
                             fit.ranks, fit.nodes, fit.regimes.size(), 100 * fit.max_relative_error);
  const auto& e = imported.profile.efficiencies;
  std::cout << fmt::format(
      "NCCL efficiencies: intra-node {:.3f}, inter-node {:.3f}, step latency {:.2f} us\n", e.nccl_intra_node,
      e.nccl_inter_node, e.nccl_step_latency_s * 1e6);
  return 0;
}

}  // namespace simtrain::cli
