// How cuBLAS sees a GEMM's alignment. It runs its fast tensor-core kernels (on Hopper: TMA and wgmma) only
// when every leading dimension is a multiple of 16 bytes; otherwise it falls back to kernels that load 2, 4
// or 8 bytes at a time (named ..._align1, _align2, _align4 in the traces), and it picks its kernel family,
// workspace memsets included, by that alignment. The cost model (cost/measured_tables.h, cost/compute_cost.h)
// and the eager-PyTorch generator (workload/eager_pytorch.cc) share this one rule.
#pragma once

#include <cstdint>
#include <vector>

#include "common/dtype.h"
#include "simulator/trace/trace.h"

namespace simtrain::trace {

inline constexpr int kAlignedGemmBytes = 16;

// The largest power of two dividing every dimension of `dims`, in bytes of `dtype`, at most 16 (16 =
// aligned; also for no dimension or one that is not positive). A measured GEMM's dimensions are all leading
// ones: the odd vocabularies the calibration tool measured are, in every order.
int alignment_bytes(DType dtype, const std::vector<std::int64_t>& dims);

// The same over the leading dimensions of a framework's GEMM of `shape` {m, n, k} in `pass`, row-major as
// PyTorch lays out a linear layer: n and k forward and for the input gradient, m and n for the weight
// gradient ({out, in, tokens}). The token count is never one, so an odd number of tokens misaligns nothing.
// A grouped GEMM's {m, n, k, groups} as its groups' {m, n, k}; every dimension of a shorter shape.
int gemm_alignment_bytes(DType dtype, Pass pass, const std::vector<std::int64_t>& shape);

}  // namespace simtrain::trace
