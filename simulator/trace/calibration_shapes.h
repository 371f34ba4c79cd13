// The kernel shapes of a trace that simtrain-calibrate measures, written as the tool's shapes file
// (calibration/tool/shapes_file.h), so that a calibration covers exactly what a workload runs: a generated
// zoo model (`simtrain-calibrate --model`) or a recorded trace (`simtrain trace shapes`, `--trace`).
//
// What each kernel kind becomes:
//   GEMM {m, n, k} (a grouped GEMM {m, n, k, groups}: one group) -> gemm m n k, laid out as its pass runs it:
//     forward "nt" (nn.Linear's weight is stored [out, in]), input gradient "nn", weight gradient "tn";
//   convolution (9 dimensions) -> conv; attention {batch, heads, seq, head_dim} -> attention;
//   softmax {rows, cols} (the loss's log-softmax) -> softmax;
//   batch norm and pooling, which a trace keys by element count alone -> batch_norm / pool with the N C H W
//   of
//     each convolution input or output of as many elements (a batch norm normalises a convolution's output,
//     or the concatenation a convolution reads), pooling as a 3x3 window at stride 2 (the stems' max pooling)
//     when its forward work says so. One that matches no convolution is left out (cuDNN's small statistics
//     kernel over the channels, which the tool times with the batch norm it belongs to): the tool cannot
//     measure a batch norm without its channels.
// Other kinds (elementwise, norms, optimizer, host work) have no shapes-file line.
#pragma once

#include <string>

#include "simulator/trace/trace.h"

namespace simtrain::trace {

// The shapes file of every distinct measurable kernel of `trace`'s compute ops, one line each, sorted, with
// a first comment line naming `origin`.
std::string calibration_shapes_file(const Trace& trace, const std::string& origin);

}  // namespace simtrain::trace
