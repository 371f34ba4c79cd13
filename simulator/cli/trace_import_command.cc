// simtrain trace import: recorded traces (Kineto / torch.profiler JSON, one file per rank; PyTorch execution
// traces; Chakra) into a native trace file, the step chosen and, optionally, scaled out as DDP or FSDP.
#include <iostream>

#include "common/error.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/trace_import_options.h"
#include "simulator/cli/workload_options.h"
#include "simulator/trace/trace_file.h"
#include "simulator/trace/trace_import.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int trace_import_command(const Arguments& args) {
  po::options_description options("simtrain trace import options");
  options.add_options()("help,h", "show this help")(
      "input", po::value<std::vector<std::string>>()->required(), "recorded trace files (one per rank)")(
      "output,o", po::value<std::string>()->required(),
      "trace file to write (gzip-compressed if it ends in .gz)");
  add_trace_import_options(options);
  add_scale_out_options(options);
  po::positional_options_description positional;
  positional.add("input", -1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm, "usage: simtrain trace import FILE... -o FILE [options]", positional))
    return 0;
  const trace::ImportOptions import = import_options_from(vm);
  trace::ImportReport report;
  const trace::Trace trace =
      trace::import_trace_files(vm["input"].as<std::vector<std::string>>(), import, report);
  for (const std::string& warning : report.warnings) std::cerr << "simtrain: warning: " << warning << "\n";
  trace::write_trace_file(trace, vm["output"].as<std::string>());
  std::size_t ops = 0;
  for (const auto& program : trace.programs) ops += program.ops.size();
  std::cout << "imported " << to_string(report.format) << " into " << vm["output"].as<std::string>() << ": "
            << trace.world_size << " ranks, " << trace.programs.size() << " program(s), " << ops << " ops\n";
  return 0;
}

}  // namespace simtrain::cli
