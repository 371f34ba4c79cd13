// The subcommands of `simtrain`. Each parses its options, calls the libraries, and prints; each returns the
// process exit status and lets simtrain::Error escape to main(), which prints it as one line.
#pragma once

#include <string>
#include <vector>

namespace simtrain::cli {

using Arguments = std::vector<std::string>;  // the arguments after the subcommand name

int run_command(const Arguments& args);
int trace_command(const Arguments& args);
int trace_import_command(const Arguments& args);  // trace import FILE...
int trace_chakra_command(const Arguments& args);  // trace chakra TRACE -o PREFIX
int trace_shapes_command(const Arguments& args);  // trace shapes [TRACE] -o FILE
int models_command(const Arguments& args);
int profile_command(const Arguments& args);
int profile_import_command(const Arguments& args);  // profile import nccl-tests ...
int platforms_command(const Arguments& args);
int sweep_command(const Arguments& args);
int plot_command(const Arguments& args);
int collective_command(const Arguments& args);
int validate_command(const Arguments& args);
int plan_command(const Arguments& args);  // plan --model M --gpus N --global-batch B

}  // namespace simtrain::cli
