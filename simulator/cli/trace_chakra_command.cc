// simtrain trace chakra: a trace (any format `simtrain run --trace` takes) as MLCommons Chakra execution
// traces, one file per rank, for ASTRA-sim. Ops without a measured duration are costed from a profile first,
// as `simtrain run` costs them.
#include <iostream>

#include "calibration/spec_profiles.h"
#include "common/error.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/cost/compute_cost.h"
#include "simulator/platform/cluster_spec.h"
#include "simulator/trace/chakra_trace.h"
#include "simulator/trace/trace_file.h"
#include "simulator/trace/trace_import.h"

namespace po = boost::program_options;

namespace simtrain::cli {
namespace {

bool every_compute_op_measured(const trace::Trace& trace) {
  for (const auto& program : trace.programs)
    for (const auto& op : program.ops)
      if (op.type == trace::OpType::Compute && op.compute.duration_s < 0) return false;
  return true;
}

// The profile named by --profile, else the GPU of --platform's cluster spec, else the GPU the trace was
// recorded on; empty when none is given.
std::string profile_name(const po::variables_map& vm, const trace::Trace& trace) {
  if (vm.count("profile")) return vm["profile"].as<std::string>();
  if (vm.count("platform")) return platform::load_cluster_spec(vm["platform"].as<std::string>()).gpu;
  return trace.metadata.recorded_gpu;
}

}  // namespace

int trace_chakra_command(const Arguments& args) {
  po::options_description options("simtrain trace chakra options");
  options.add_options()("help,h", "show this help")("trace", po::value<std::string>()->required(),
                                                      "trace to convert (any format simtrain run --trace takes)")(
      "output,o", po::value<std::string>()->required(), "prefix of the files to write: PREFIX.<rank>.et")(
      "profile", po::value<std::string>(), "calibration profile (name or file) that costs unmeasured ops")(
      "platform", po::value<std::string>(), "cluster spec whose GPU's profile costs unmeasured ops");
  po::positional_options_description positional;
  positional.add("trace", 1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain trace chakra TRACE -o PREFIX [--profile P | --platform X]",
                     positional))
    return 0;
  trace::ImportReport report;
  const trace::Trace trace = trace::import_trace_files({vm["trace"].as<std::string>()}, {}, report);
  for (const std::string& warning : report.warnings) std::cerr << "simtrain: warning: " << warning << "\n";
  std::vector<std::vector<double>> durations;
  const std::string profile = profile_name(vm, trace);
  if (!profile.empty()) {
    const calibration::CalibrationProfile loaded = calibration::load_profile(profile);
    const cost::ComputeCostModel model(loaded);
    durations = cost::cost_programs(trace, model, profile).duration_s;
  } else if (every_compute_op_measured(trace)) {
    for (const auto& program : trace.programs) {
      durations.emplace_back();
      for (const auto& op : program.ops) durations.back().push_back(op.type == trace::OpType::Compute ? op.compute.duration_s : 0);
    }
  } else {
    throw Error("--profile or --platform: required, since some ops of the trace have no measured duration");
  }
  const std::string prefix = vm["output"].as<std::string>();
  trace::write_chakra_traces(trace, durations, prefix);
  std::cout << "wrote " << prefix << ".{0.." << trace.world_size - 1 << "}.et: " << trace.world_size
            << " Chakra execution trace(s)\n";
  return 0;
}

}  // namespace simtrain::cli
