// Kernel times from a measured profile's tables: the exact entry when the shape was measured, otherwise the
// nearest measured shapes of the same op and dtype scaled to the kernel's work.
//
// How shapes between measurements are handled: every shape maps to a point in log space (the log of each
// dimension) and to its work (multiply-adds for GEMM, convolution and attention; elements otherwise). The
// kernel's time is the measured time per unit of work of the nearest measured shapes, weighted by inverse
// distance in log space, times the kernel's work. Shapes that sit between measured ones thus inherit their
// efficiency; a shape far from every measurement gets the closest one's, which is why a calibration should
// cover the shapes a workload uses (simtrain-calibrate --model).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "calibration/calibration_profile.h"

namespace simtrain::cost {

class MeasuredTables {
 public:
  explicit MeasuredTables(const calibration::CalibrationProfile& profile);

  bool empty() const { return entries_.empty(); }
  // The measured time of exactly this op, dtype and shape.
  std::optional<double> exact_s(const std::string& op, DType dtype,
                                const std::vector<std::int64_t>& shape) const;
  // The time interpolated from measured shapes of the same op, dtype and number of dimensions.
  std::optional<double> interpolated_s(const std::string& op, DType dtype,
                                       const std::vector<std::int64_t>& shape) const;

  // Work of a kernel of `op` at `shape`, the quantity its time is taken to scale with.
  static double work(const std::string& op, const std::vector<std::int64_t>& shape);

 private:
  struct Entry {
    std::vector<double> log_shape;
    double seconds_per_work = 0;
  };
  using Key = std::tuple<std::string, DType, std::size_t>;  // op, dtype, number of dimensions
  std::map<Key, std::vector<Entry>> entries_;
  // Sum and count of the measurements of one shape: GEMMs measured under several transposes (a trace's GEMM
  // does not say its layout) average to one time.
  std::map<std::tuple<std::string, DType, std::vector<std::int64_t>>, std::pair<double, int>> exact_;
};

}  // namespace simtrain::cost
