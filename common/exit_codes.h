// The exit statuses of `simtrain`, in one place: scripts and the study runner decide from these, never from
// the text of a message. README.md (Exit codes) lists them for users.
#pragma once

#include "common/error.h"

namespace simtrain {

enum ExitCode : int {
  kExitOk = 0,
  kExitRunsFailed = 1,  // simtrain sweep: every run was recorded, but some failed
  kExitBadInput = 2,    // an Error of kind BadInput, an option the parser refuses, an unknown command
  kExitInternal = 3,    // any other exception: a fault of simtrain, not of its input
  kExitInfeasible = 4,  // an Error of kind Infeasible: the plan does not divide or does not fit in memory
};

constexpr ExitCode exit_code_of(ErrorKind kind) {
  return kind == ErrorKind::Infeasible ? kExitInfeasible : kExitBadInput;
}

}  // namespace simtrain
