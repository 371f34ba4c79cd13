// Implements busy_intervals.h: union and difference lengths of sorted, merged intervals.
#include "simulator/engine/busy_intervals.h"

#include <algorithm>

namespace simtrain::engine {
namespace {

// Sorts and merges overlapping intervals in place.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin_s < b.begin_s; });
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    if (i.end_s <= i.begin_s) continue;
    if (!out.empty() && i.begin_s <= out.back().end_s)
      out.back().end_s = std::max(out.back().end_s, i.end_s);
    else
      out.push_back(i);
  }
  return out;
}

}  // namespace

double union_length(std::vector<Interval> intervals) {
  double total = 0;
  for (const Interval& i : merged(std::move(intervals))) total += i.end_s - i.begin_s;
  return total;
}

double uncovered_length(std::vector<Interval> covered, std::vector<Interval> cover) {
  std::vector<Interval> a = merged(std::move(covered));
  std::vector<Interval> b = merged(std::move(cover));
  double total = 0;
  std::size_t j = 0;
  for (const Interval& i : a) {
    double cursor = i.begin_s;
    while (j < b.size() && b[j].end_s <= cursor) ++j;
    for (std::size_t k = j; k < b.size() && b[k].begin_s < i.end_s; ++k) {
      if (b[k].begin_s > cursor) total += b[k].begin_s - cursor;
      cursor = std::max(cursor, b[k].end_s);
    }
    if (cursor < i.end_s) total += i.end_s - cursor;
  }
  return total;
}

}  // namespace simtrain::engine
