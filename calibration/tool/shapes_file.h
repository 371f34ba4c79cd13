// The shapes file (--shapes FILE): one kernel shape per line, so that any workload, not only the built-in
// models, can be calibrated exactly.
//
//   # comment
//   gemm M N K [nn|nt|tn|tt]          row-major C = op(A) op(B); nt = B transposed (nn.Linear forward)
//   conv N C H W K R S STRIDE PAD     forward, backward-data and backward-filter
//   batch_norm N C H W
//   pool N C H W WINDOW STRIDE PAD    max pooling
//   activation ELEMENTS
//   softmax ROWS COLS
//   attention BATCH HEADS SEQ HEAD_DIM
#pragma once

#include <string>

#include "calibration/tool/shape_set.h"

namespace simtrain::calibration::tool {

// Throws Error naming `origin` and the line of the first malformed line.
ShapeSet parse_shapes(const std::string& text, const std::string& origin);
// Reads and parses the file at `path`; throws Error when it cannot be read.
ShapeSet read_shapes_file(const std::string& path);

}  // namespace simtrain::calibration::tool
