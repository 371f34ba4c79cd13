// Implements number_checks.h.
#include "common/number_checks.h"

#include <charconv>
#include <cmath>

#include "common/error.h"

namespace simtrain {

std::string shortest_text(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::optional<std::string> range_violation(double value, const NumberRange& range) {
  const std::string lower = (range.min_inclusive ? ">= " : "> ") + shortest_text(range.min);
  const std::string shape = range.max_is_meaning
                                ? "in " + std::string(range.min_inclusive ? "[" : "(") +
                                      shortest_text(range.min) + ", " + shortest_text(range.max) + "]"
                                : lower;
  const bool too_low = range.min_inclusive ? !(value >= range.min) : !(value > range.min);
  if (!std::isfinite(value) || too_low)
    return "must be a finite number " + shape + ", got " + shortest_text(value);
  if (value > range.max) {
    if (range.max_is_meaning) return "must be a finite number " + shape + ", got " + shortest_text(value);
    return "must be at most " + shortest_text(range.max) + ", got " + shortest_text(value);
  }
  return std::nullopt;
}

double checked_number(double value, const NumberRange& range, const std::string& file, int line,
                      const std::string& field) {
  if (auto why = range_violation(value, range)) throw Error(file, line, field, *why);
  return value;
}

}  // namespace simtrain
