// simtrain trace shapes: the kernel shapes a workload runs, as simtrain-calibrate's shapes file, so that a
// calibration measures exactly them (`simtrain-calibrate --shapes FILE`). The workload is a trace (any
// format `simtrain run --trace` takes) or, without one, the workload options' generated trace.
#include <iostream>

#include "common/error.h"
#include "common/file_io.h"
#include "simulator/cli/commands.h"
#include "simulator/cli/workload_options.h"
#include "simulator/run/simulation.h"
#include "simulator/trace/calibration_shapes.h"
#include "simulator/trace/trace_import.h"

namespace po = boost::program_options;

namespace simtrain::cli {

int trace_shapes_command(const Arguments& args) {
  po::options_description options("simtrain trace shapes options");
  options.add_options()("help,h", "show this help")(
      "trace", po::value<std::string>(),
      "recorded or generated trace (any format simtrain run --trace takes)")(
      "output,o", po::value<std::string>()->required(), "shapes file to write (- for standard output)");
  add_workload_options(options);
  add_parallel_options(options);
  po::positional_options_description positional;
  positional.add("trace", 1);
  po::variables_map vm;
  if (!parse_or_help(args, options, vm,
                     "usage: simtrain trace shapes [TRACE] -o FILE [workload options without TRACE]",
                     positional))
    return 0;
  trace::Trace trace;
  std::string origin;
  if (vm.count("trace")) {
    if (explicit_option_text(vm, "model"))
      throw Error("--model: give a trace or a model, not both (the trace's shapes are its own)");
    origin = vm["trace"].as<std::string>();
    trace::ImportReport report;
    trace = trace::import_trace_files({origin}, {}, report);
    for (const std::string& warning : report.warnings) std::cerr << "simtrain: warning: " << warning << "\n";
  } else {
    origin = "model " + vm["model"].as<std::string>();
    trace = wants_model_parallelism(vm) ? run::generate_parallel_trace(parallel_from_options(vm))
                                        : workload::generate_data_parallel_trace(workload_from_options(vm));
  }
  const std::string output = vm["output"].as<std::string>();
  write_output_file(output, trace::calibration_shapes_file(trace, origin));
  if (output != "-") std::cout << "wrote " << output << "\n";
  return 0;
}

}  // namespace simtrain::cli
