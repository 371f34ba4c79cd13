// Implements gemm_alignment.h.
#include "simulator/trace/gemm_alignment.h"

#include <algorithm>

namespace simtrain::trace {

int alignment_bytes(DType dtype, const std::vector<std::int64_t>& dims) {
  if (dims.empty()) return kAlignedGemmBytes;
  std::int64_t common = 0;  // the largest power of two dividing every dimension
  for (std::int64_t dim : dims) {
    if (dim <= 0) return kAlignedGemmBytes;
    const std::int64_t low_bit = dim & -dim;
    common = common == 0 ? low_bit : std::min(common, low_bit);
  }
  const double bytes = static_cast<double>(common) * storage_bytes_per_element(dtype);
  return bytes >= kAlignedGemmBytes ? kAlignedGemmBytes : std::max(1, static_cast<int>(bytes));
}

int gemm_alignment_bytes(DType dtype, Pass pass, const std::vector<std::int64_t>& shape) {
  if (shape.size() < 3) return alignment_bytes(dtype, shape);
  if (pass == Pass::BackwardWeight) return alignment_bytes(dtype, {shape[0], shape[1]});
  return alignment_bytes(dtype, {shape[1], shape[2]});
}

}  // namespace simtrain::trace
