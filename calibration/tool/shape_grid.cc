// The default grids as geometric series.
#include "calibration/tool/shape_grid.h"

#include <cstdint>

namespace simtrain::calibration::tool {
namespace {

std::vector<double> geometric(double first, double last, double factor) {
  std::vector<double> values;
  for (double value = first; value <= last; value *= factor) values.push_back(value);
  return values;
}

}  // namespace

std::vector<GemmShape> default_gemm_grid(bool quick) {
  const std::vector<double> sizes = quick ? geometric(256, 4096, 4) : geometric(128, 8192, 2);
  std::vector<GemmShape> grid;
  for (double m : sizes)
    for (double n : sizes)
      for (double k : sizes)
        grid.push_back(
            {static_cast<std::int64_t>(m), static_cast<std::int64_t>(n), static_cast<std::int64_t>(k)});
  return grid;
}

std::vector<double> memory_sizes_bytes(bool quick) {
  return quick ? geometric(1 << 20, 1 << 30, 16) : geometric(64 << 10, 4.0 * (1 << 30), 4);
}

std::vector<double> collective_sizes_bytes(bool quick) { return geometric(8, 1 << 30, quick ? 8 : 2); }

}  // namespace simtrain::calibration::tool
