// Implements jitter.h.
#include "simulator/cost/jitter.h"

#include <cmath>
#include <random>

#include "common/error.h"

namespace simtrain::cost {
namespace {

// A standard normal draw by Box-Muller from two uniform draws of the 53-bit mantissa.
double normal(std::mt19937_64& engine) {
  auto uniform = [&] { return (static_cast<double>(engine() >> 11) + 0.5) / 9007199254740992.0; };
  const double u1 = uniform(), u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

double lognormal_factor(std::mt19937_64& engine, double sigma) {
  return std::exp(sigma * normal(engine) - sigma * sigma / 2);
}

}  // namespace

void apply_jitter(ProgramCosts& costs, const Jitter& jitter) {
  // A sigma above 1 spreads a log-normal factor over e^±3 and more: a typo, not noise (NaN fails too).
  if (!(jitter.run_sigma >= 0 && jitter.run_sigma <= 1 && jitter.kernel_sigma >= 0 && jitter.kernel_sigma <= 1))
    throw Error("--jitter-run, --jitter-kernel: must be from 0 to 1");
  if (jitter.seed == 0) return;
  std::mt19937_64 engine(jitter.seed);
  const double run = lognormal_factor(engine, jitter.run_sigma);
  for (auto& program : costs.duration_s)
    for (double& d : program)
      if (d > 0) d *= run * lognormal_factor(engine, jitter.kernel_sigma);
}

}  // namespace simtrain::cost
