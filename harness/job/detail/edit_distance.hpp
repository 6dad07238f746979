#pragma once
// Spelling hints for unknown keys and words of a job file.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace scaletune::job::detail {

/// Levenshtein distance: the fewest single-character insertions, deletions and substitutions
/// that turn `a` into `b` (V. I. Levenshtein, 1966; Wagner-Fischer dynamic programme).
std::size_t edit_distance(std::string_view a, std::string_view b);

/// "; did you mean 'X'?" for the candidate X nearest to `word` when its edit distance is <= 3
/// (the first such candidate on ties); an empty string when none is that near.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace scaletune::job::detail
