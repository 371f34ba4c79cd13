// Which simtrain this is, for `simtrain --version` and for every Result to record what produced it.
#pragma once

#include <string>

namespace simtrain {

// "0.1.0+639bce4" (the project version and the commit `git describe` named at build time; "-dirty" when
// the checkout had uncommitted changes), or "0.1.0" when built outside git.
std::string simtrain_version();

}  // namespace simtrain
