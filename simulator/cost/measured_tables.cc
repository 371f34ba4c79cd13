// Implements measured_tables.h: exact lookups and work-scaled inverse-distance interpolation.
#include "simulator/cost/measured_tables.h"

#include <algorithm>
#include <cmath>

namespace simtrain::cost {
namespace {

// How many measured neighbours an interpolated time averages over.
constexpr std::size_t kNeighbours = 4;
// How far a measured GEMM's work may lie from a kernel's for it to stand for the kernel's alignment class.
constexpr double kClassWorkRange = 4;

std::vector<double> log_of(const std::vector<std::int64_t>& shape) {
  std::vector<double> out;
  for (std::int64_t dim : shape) out.push_back(std::log(static_cast<double>(std::max<std::int64_t>(dim, 1))));
  return out;
}

}  // namespace

double MeasuredTables::work(const std::string& op, const std::vector<std::int64_t>& shape) {
  auto dim = [&](std::size_t i) {
    return i < shape.size() ? static_cast<double>(std::max<std::int64_t>(shape[i], 1)) : 1.0;
  };
  if (op == "gemm" && shape.size() == 3) return dim(0) * dim(1) * dim(2);
  if (op.rfind("conv_", 0) == 0 && shape.size() == 9) {
    // {n, c, h, w, k, r, s, stride, pad}: multiply-adds = n k c r s p q.
    double stride = dim(7), pad = static_cast<double>(shape[8]);
    double p = std::floor((dim(2) + 2 * pad - dim(5)) / stride) + 1;
    double q = std::floor((dim(3) + 2 * pad - dim(6)) / stride) + 1;
    return dim(0) * dim(4) * dim(1) * dim(5) * dim(6) * std::max(p, 1.0) * std::max(q, 1.0);
  }
  // {batch, heads, seq, head_dim}: the score and context products grow with seq^2.
  if (op.rfind("attention_", 0) == 0 && shape.size() == 4) return dim(0) * dim(1) * dim(2) * dim(2) * dim(3);
  double elements = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) elements *= dim(i);
  return elements;
}

MeasuredTables::MeasuredTables(const calibration::CalibrationProfile& profile) {
  auto add = [&](const std::string& op, DType dtype, const std::vector<std::int64_t>& shape, double time_s) {
    auto& [sum, count] = exact_[{op, dtype, shape}];
    sum += time_s;
    ++count;
    const double w = work(op, shape);
    const int alignment = op == "gemm" ? trace::alignment_bytes(dtype, shape) : trace::kAlignedGemmBytes;
    entries_[{op, dtype, shape.size()}].push_back({log_of(shape), time_s / w, w, alignment});
  };
  for (const auto& g : profile.gemm) add("gemm", g.dtype, {g.m, g.n, g.k}, g.time_s);
  for (const auto& k : profile.kernels) add(k.op, k.dtype, k.shape, k.time_s);
}

std::optional<double> MeasuredTables::exact_s(const std::string& op, DType dtype,
                                              const std::vector<std::int64_t>& shape) const {
  auto it = exact_.find({op, dtype, shape});
  if (it == exact_.end()) return std::nullopt;
  return it->second.first / it->second.second;
}

std::optional<double> MeasuredTables::interpolated_s(const std::string& op, DType dtype,
                                                     const std::vector<std::int64_t>& shape,
                                                     int alignment) const {
  auto it = entries_.find({op, dtype, shape.size()});
  if (it == entries_.end() || it->second.empty()) return std::nullopt;
  const std::vector<double> point = log_of(shape);
  const double kernel_work = work(op, shape);
  if (alignment <= 0)
    alignment = op == "gemm" ? trace::alignment_bytes(dtype, shape) : trace::kAlignedGemmBytes;
  // cuBLAS picks its kernel family by alignment: a GEMM's neighbours are the measured shapes of its class,
  // when there are any. The aligned class is measured over every size the calibration sweeps; the fallback
  // classes only at the few shapes a model has, whose other sizes (a 2-wide head beside a vocabulary) run at
  // other rates, so a misaligned GEMM takes only those of a comparable size.
  const auto comparable = [&](const Entry& e) {
    if (e.alignment_bytes != alignment) return false;
    return alignment == trace::kAlignedGemmBytes ||
           (e.work >= kernel_work / kClassWorkRange && e.work <= kernel_work * kClassWorkRange);
  };
  const bool within_class = op == "gemm" && std::any_of(it->second.begin(), it->second.end(), comparable);
  std::vector<std::pair<double, double>> by_distance;  // (distance, seconds per work)
  for (const Entry& e : it->second) {
    if (within_class && !comparable(e)) continue;
    double d2 = 0;
    for (std::size_t i = 0; i < point.size(); ++i)
      d2 += (point[i] - e.log_shape[i]) * (point[i] - e.log_shape[i]);
    by_distance.emplace_back(std::sqrt(d2), e.seconds_per_work);
  }
  std::size_t k = std::min(kNeighbours, by_distance.size());
  std::partial_sort(by_distance.begin(), by_distance.begin() + k, by_distance.end());
  // Inverse-distance weights over log(seconds per work), so that one slow outlier does not dominate.
  double weight_sum = 0, log_sum = 0;
  for (std::size_t i = 0; i < k; ++i) {
    double w = 1.0 / std::max(by_distance[i].first, 1e-9);
    weight_sum += w;
    log_sum += w * std::log(by_distance[i].second);
  }
  return std::exp(log_sum / weight_sum) * kernel_work;
}

}  // namespace simtrain::cost
