// The CPU side of an eager PyTorch step: how long the launching thread spends per kernel it launches
// (Python, operator dispatch, autocast, autograd bookkeeping and the launch itself). When the GPU finishes
// kernels faster than that, it waits: small batches and models of many small kernels are host-bound.
// Calibrated per machine (README "Host dispatch"); read from a host profile file given with --host.
#pragma once

#include <string>

namespace simtrain::workload {

// A host profile file (JSON), e.g. calibration/hosts/h200-run-b.json:
//   {"schema": "simtrain-host", "version": 1, "name": "h200-run-b", "dispatch_per_kernel_s": 4.1e-05,
//    "source": "how it was measured"}
// `source` is optional; every other field is required and unknown fields are errors.
struct HostProfile {
  std::string name;
  double dispatch_per_kernel_s = 0;  // host time per launched kernel, in (0, 0.1] s
  std::string source;
};

// Reads and checks a host profile; throws Error(path, 0, field, why) naming the offending field.
HostProfile load_host_profile(const std::string& path);
// The same from JSON text, `origin` naming it in errors.
HostProfile parse_host_profile(const std::string& text, const std::string& origin);

}  // namespace simtrain::workload
