// "Did you mean ...?" for a mistyped name: the closest of the names that would have been accepted, by edit
// distance, when it is close enough to be the likely intent (a typo, not another word).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simtrain {

// Levenshtein distance (insertions, deletions, substitutions; a swap of neighbours counts once).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, when within a third of its length (at least 1, at most 3 edits), or
// one that starts with it; nullopt otherwise. Ties go to the first candidate.
std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for closest_name, or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace simtrain
