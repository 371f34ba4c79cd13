// Implements version.h; the build system defines both macros for this file alone.
#include "common/version.h"

namespace simtrain {

std::string simtrain_version() {
  const std::string described = SIMTRAIN_GIT_DESCRIBE;
  return described.empty() ? SIMTRAIN_PROJECT_VERSION : SIMTRAIN_PROJECT_VERSION "+" + described;
}

}  // namespace simtrain
