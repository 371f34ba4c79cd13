// The default measurement grids: GEMM sizes that cover what interpolation needs between the zoo's shapes,
// buffer sizes for memory bandwidth and message sizes for collectives.
#pragma once

#include <vector>

#include "calibration/tool/shape_set.h"

namespace simtrain::calibration::tool {

// Every (M, N, K) with each of M, N, K in {256, 1024, 4096} (quick: 27 shapes) or in the powers of two from
// 128 to 8192 (343 shapes), untransposed: the grid's job is coverage in log space, which the simulator's
// interpolation works in; the zoo's own shapes, with their transposes, come from --model or --shapes.
std::vector<GemmShape> default_gemm_grid(bool quick);

// Buffer sizes for the memory-bandwidth tables: 64 KiB to 4 GiB by factors of 4 (quick: 1 MiB to 1 GiB by
// factors of 16).
std::vector<double> memory_sizes_bytes(bool quick);

// Message sizes for collectives, as nccl-tests' -b 8 -e 1G -f 2 (quick: -f 8).
std::vector<double> collective_sizes_bytes(bool quick);

}  // namespace simtrain::calibration::tool
