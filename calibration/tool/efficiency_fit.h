// The roofline efficiencies of a measured profile, fitted from its own tables, so that shapes the tables do
// not cover are costed from this GPU's behaviour rather than from published defaults.
#pragma once

#include <string>
#include <vector>

#include "calibration/calibration_profile.h"

namespace simtrain::calibration::tool {

// Sets in `profile.efficiencies`, from the measured tables and the device's peaks and bandwidth:
//   gemm / gemm_tf32 / gemm_fp32: median over measured GEMMs (16- and 8-bit, tf32, fp32) of achieved FLOP/s
//     divided by the dtype's peak;
//   conv / conv_tf32 / conv_fp32: the same over conv_forward, conv_backward_data and conv_backward_weight;
//   memory_bound: the best device_copy bandwidth (bytes read + written per second) over the device's
//     memory bandwidth;
//   memory_bound_unvectorized: the mean of the elementwise_unrolled and elementwise_strided rates at their
//     largest buffers over the memory bandwidth; memory_bound_multi_tensor: the multi_tensor rate at its
//     largest buffer (framework_kernels.h).
// Efficiencies without measurements, and those of attention, kernel launch and NCCL, keep their values.
// Each result is clamped to [0.01, 1]. Returns one line per efficiency changed, for the progress log.
std::vector<std::string> fit_efficiencies(CalibrationProfile& profile);

// Multiply-adds x 2 of a convolution keyed {n, c, h, w, k, r, s, stride, pad} (any pass).
double conv_flops(const std::vector<std::int64_t>& key);

}  // namespace simtrain::calibration::tool
