// The range checks every reader applies to numbers from input files (finite, positive or non-negative,
// below an absurd bound), with one wording for their error messages.
#pragma once

#include <limits>
#include <optional>
#include <string>

namespace simtrain {

// The values a number may take: above `min` (or at it when `min_inclusive`), at most `max`. Always finite.
// `max` is usually only a guard against absurd values (common/input_limits.h) and is mentioned only to those
// who exceed it; `max_is_meaning` says it belongs to the quantity (a fraction) and every message shows it.
struct NumberRange {
  double min = 0;
  bool min_inclusive = true;
  double max = std::numeric_limits<double>::max();
  bool max_is_meaning = false;
};

inline constexpr NumberRange kNonNegative{0, true};
inline constexpr NumberRange kPositive{0, false};
inline constexpr NumberRange kFraction{0, false, 1, true};  // (0, 1]

// Why `value` is outside `range` ("must be a finite number > 0, got nan"), or nothing when it is inside:
// for readers that raise errors their own way (with a JSON path, a TOML line).
std::optional<std::string> range_violation(double value, const NumberRange& range);

// `value` when inside `range`, else Error(file, line, field, range_violation(...)).
double checked_number(double value, const NumberRange& range, const std::string& file, int line,
                      const std::string& field);

// The shortest text that reads back as `value` ("1e+308", "0.5", "nan"), so messages quote it exactly.
std::string shortest_text(double value);

}  // namespace simtrain
