// Run-to-run variability: the same configuration never runs twice in exactly the same time. With a seed,
// kernel durations are perturbed by a documented noise model, so that repeated runs (--seed 1, 2, ...)
// give a distribution instead of one number:
//  - every kernel of the run is scaled by one factor e^(s_r z - s_r^2 / 2), drawn once per run: clocks,
//    temperature and the GPU instance differ between runs (default s_r = 2%);
//  - each kernel is scaled by its own e^(s_k z - s_k^2 / 2) (default s_k = 5%): launch and memory timing.
//    Kernels are drawn per program, not per rank: ranks that share a program (every data-parallel rank) get
//    the same draws, so the noise varies runs, not ranks against each other (--straggler does that).
// Both factors have mean 1, so the mean time is unchanged. The defaults are assumptions, not measurements;
// set them from repeated runs on your own cluster. The same seed gives the same draws on every machine: they
// come from std::mt19937_64 through Box-Muller, not from a library distribution whose algorithm varies
// between standard libraries (the last bits of log, cos and exp may still differ between C libraries).
#pragma once

#include <cstdint>

#include "simulator/cost/compute_cost.h"

namespace simtrain::cost {

struct Jitter {
  std::uint64_t seed = 0;  // 0: no noise
  double run_sigma = 0.02;
  double kernel_sigma = 0.05;
};

// Perturbs every positive duration in `costs`; nothing when seed is 0. Throws Error on negative sigmas.
void apply_jitter(ProgramCosts& costs, const Jitter& jitter);

}  // namespace simtrain::cost
