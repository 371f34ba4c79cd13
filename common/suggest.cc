// Implements suggest.h.
#include "common/suggest.h"

#include <algorithm>

namespace simtrain {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus transposition of adjacent characters.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
  // Names are short; a very long word is no typo of one (and would make the table large).
  if (word.empty() || word.size() > 256) return std::nullopt;
  const std::size_t limit = std::clamp<std::size_t>(word.size() / 3, 1, 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    if (candidate.size() > 256) continue;
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) best = candidate, best_distance = distance;
  }
  if (best) return best;
  for (const std::string& candidate : candidates)
    if (word.size() >= 3 && candidate.starts_with(word)) return candidate;
  return std::nullopt;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto name = closest_name(word, candidates);
  return name ? " (did you mean '" + *name + "'?)" : "";
}

}  // namespace simtrain
