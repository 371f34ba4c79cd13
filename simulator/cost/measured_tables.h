// Kernel times from a measured profile's tables: the exact entry when the shape was measured, otherwise the
// nearest measured shapes of the same op and dtype scaled to the kernel's work.
//
// How shapes between measurements are handled: every shape maps to a point in log space (the log of each
// dimension) and to its work (multiply-adds for GEMM, convolution and attention; elements otherwise). The
// kernel's time is the measured time per unit of work of the nearest measured shapes, weighted by inverse
// distance in log space, times the kernel's work. Shapes that sit between measured ones thus inherit their
// efficiency; a shape far from every measurement gets the closest one's, which is why a calibration should
// cover the shapes a workload uses (simtrain-calibrate --model).
//
// GEMMs are interpolated within their alignment class (trace/gemm_alignment.h). On the H200, measured
// (calibration/profiles/h200-sxm.json): a bf16 GEMM with GPT-2's vocabulary of 50,257 (2-byte aligned) ran
// at 97-137 TFLOP/s, with BERT's 30,522 (4-byte aligned) at 245-265, with Llama's 32,000 at 800. So a
// GEMM takes its time from the measured shapes of its own alignment class (for a misaligned one, those within
// a factor of 4 of its work) when the profile has any, and from all shapes otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "calibration/calibration_profile.h"
#include "simulator/trace/gemm_alignment.h"

namespace simtrain::cost {

class MeasuredTables {
 public:
  explicit MeasuredTables(const calibration::CalibrationProfile& profile);

  bool empty() const { return entries_.empty(); }
  // The measured time of exactly this op, dtype and shape.
  std::optional<double> exact_s(const std::string& op, DType dtype,
                                const std::vector<std::int64_t>& shape) const;
  // The time interpolated from measured shapes of the same op, dtype and number of dimensions. A GEMM's
  // `alignment` (bytes) is its leading dimensions' (trace::gemm_alignment_bytes); 0 takes every dimension's.
  std::optional<double> interpolated_s(const std::string& op, DType dtype,
                                       const std::vector<std::int64_t>& shape, int alignment = 0) const;

  // Work of a kernel of `op` at `shape`, the quantity its time is taken to scale with.
  static double work(const std::string& op, const std::vector<std::int64_t>& shape);

 private:
  struct Entry {
    std::vector<double> log_shape;
    double seconds_per_work = 0;
    double work = 0;
    int alignment_bytes = trace::kAlignedGemmBytes;
  };
  using Key = std::tuple<std::string, DType, std::size_t>;  // op, dtype, number of dimensions
  std::map<Key, std::vector<Entry>> entries_;
  // Sum and count of the measurements of one shape: GEMMs measured under several transposes (a trace's GEMM
  // does not say its layout) average to one time.
  std::map<std::tuple<std::string, DType, std::vector<std::int64_t>>, std::pair<double, int>> exact_;
};

}  // namespace simtrain::cost
