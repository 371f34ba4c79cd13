// The published-measurement validations shipped in the repository (tools/validate_*.py over
// validation/reference/ and traces/), run against a simtrain executable, so that `simtrain validate` shows
// the model's error bars in one command. Each suite's script prints its table of measured against predicted
// and exits 0 when its figures meet the target it states.
#pragma once

#include <string>
#include <vector>

namespace simtrain::study {

struct ValidationSuite {
  std::string name;               // "nccl", "dle", ...
  std::string what;               // one line: what is compared with what
  std::string script;             // relative to the source tree
  std::vector<std::string> args;  // besides --simtrain
};

// Every suite, in the order `simtrain validate` runs them.
const std::vector<ValidationSuite>& validation_suites();

struct SuiteOutcome {
  std::string name;
  int exit_status = 0;  // the script's: 0 = meets its target, 1 = misses it, other = could not run
  std::string output;   // what it printed (stdout and stderr), its error table
  double wall_s = 0;
};

// Runs `suite` with python3 from `source_dir` against the simtrain at `simtrain`: a fixed argument vector,
// no shell. Throws Error when python3 or the script cannot be started.
SuiteOutcome run_validation_suite(const ValidationSuite& suite, const std::string& source_dir,
                                  const std::string& simtrain);

}  // namespace simtrain::study
