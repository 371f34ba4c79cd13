// simtrain trace: write the trace of a generated workload, for inspection or for `simtrain run --trace`;
// `simtrain trace import` (trace_import_command.cc) converts recorded traces into one, and `simtrain trace
// chakra` (trace_chakra_command.cc) a trace into Chakra files, and `simtrain trace shapes`
// (trace_shapes_command.cc) a workload's kernel shapes into a calibration shapes file.
#include <iostream>

#include "common/error.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/run/simulation.h"
#include "simulator/trace/trace_file.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int trace_command(const Arguments& args) {
  if (!args.empty() && args[0] == "import") return trace_import_command(Arguments(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "chakra") return trace_chakra_command(Arguments(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "shapes")
    return trace_shapes_command(Arguments(args.begin() + 1, args.end()));
  po::options_description options("simtrain trace options");
  options.add_options()("help,h", "show this help")(
      "output,o", po::value<std::string>()->required(),
      "trace file to write (gzip-compressed if it ends in .gz)");
  add_workload_options(options);
  add_parallel_options(options);
  po::variables_map vm;
  if (!parse_or_help(
          args, options, vm,
          "usage: simtrain trace -o FILE [workload options]\n       simtrain trace import FILE... -o FILE "
          "[options]\n"
          "       simtrain trace chakra TRACE -o PREFIX\n       simtrain trace shapes [TRACE] -o FILE"))
    return 0;
  trace::Trace trace = wants_model_parallelism(vm)
                           ? run::generate_parallel_trace(parallel_from_options(vm))
                           : workload::generate_data_parallel_trace(workload_from_options(vm));
  trace::write_trace_file(trace, vm["output"].as<std::string>());
  std::size_t ops = 0;
  for (const auto& program : trace.programs) ops += program.ops.size();
  std::cout << "wrote " << vm["output"].as<std::string>() << ": " << trace.world_size << " ranks, "
            << trace.programs.size() << " program(s), " << ops << " ops\n";
  return 0;
}

}  // namespace simtrain::cli
