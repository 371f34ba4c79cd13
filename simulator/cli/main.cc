// simtrain: predicts how long distributed deep-learning training takes on a GPU cluster you do not have.
#include <cstdio>
#include <exception>
#include <string>

#include <boost/program_options/errors.hpp>

#include "common/error.h"
#include "common/exit_codes.h"
#include "common/suggest.h"
#include "common/version.h"
#include "simulator/cli/commands.h"

namespace {

constexpr const char* kUsage =
    "usage: simtrain <command> [options]   (simtrain --version: which simtrain this is)\n"
    "\n"
    "commands:\n"
    "  run        simulate a training run and report iteration time, throughput, MFU, breakdown\n"
    "  trace      write the trace of a generated workload; trace import FILE...: a recorded one;\n"
    "             trace chakra TRACE -o PREFIX: Chakra ET files for ASTRA-sim\n"
    "  models     list the model zoo with parameter counts and FLOPs per sample\n"
    "  profile    calibration profiles: profile list | show NAME|FILE | import nccl-tests LOG...\n"
    "  platforms  list shipped cluster specs (platforms show NAME|FILE)\n"
    "  sweep      run a study: every scenario of a scenario file, resumable, sharded, collected as CSV\n"
    "  plot       plot a study's results with gnuplot: scaling curves, time breakdown, memory per GPU\n"
    "  collective simulate an nccl-tests sweep of one collective on a platform, in nccl-tests' columns\n"
    "  validate   run the published-measurement validations and print their error tables\n"
    "  plan       the best parallel plan for a model on a cluster: estimate every plan, simulate the best\n"
    "\n"
    "`simtrain <command> --help` lists a command's options.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? simtrain::kExitBadInput : simtrain::kExitOk;
  }
  std::string command = argv[1];
  if (command == "--version") {
    std::printf("simtrain %s\n", simtrain::simtrain_version().c_str());
    return simtrain::kExitOk;
  }
  simtrain::cli::Arguments args(argv + 2, argv + argc);
  try {
    if (command == "run") return simtrain::cli::run_command(args);
    if (command == "trace") return simtrain::cli::trace_command(args);
    if (command == "models") return simtrain::cli::models_command(args);
    if (command == "profile") return simtrain::cli::profile_command(args);
    if (command == "platforms") return simtrain::cli::platforms_command(args);
    if (command == "sweep") return simtrain::cli::sweep_command(args);
    if (command == "plot") return simtrain::cli::plot_command(args);
    if (command == "collective") return simtrain::cli::collective_command(args);
    if (command == "validate") return simtrain::cli::validate_command(args);
    if (command == "plan") return simtrain::cli::plan_command(args);
    const std::string meant = simtrain::did_you_mean(
        command, {"run", "trace", "models", "profile", "platforms", "sweep", "plot", "collective", "validate",
                  "plan"});
    std::fprintf(stderr, "simtrain: error: unknown command '%s'%s\n%s", command.c_str(), meant.c_str(),
                 kUsage);
    return simtrain::kExitBadInput;
  } catch (const simtrain::Error& error) {
    std::fprintf(stderr, "simtrain %s: error: %s\n", command.c_str(), error.what());
    return simtrain::exit_code_of(error.kind());
  } catch (const boost::program_options::error& error) {
    std::fprintf(stderr, "simtrain %s: error: %s\n", command.c_str(), error.what());
    return simtrain::kExitBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "simtrain %s: internal error: %s\n", command.c_str(), error.what());
  }
  return simtrain::kExitInternal;
}
