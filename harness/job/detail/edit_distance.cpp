#include "harness/job/detail/edit_distance.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace scaletune::job::detail {
namespace {

constexpr std::size_t kMaxHintDistance = 3;

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // row[j] holds the distance between the first i characters of a and the first j of b.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  const std::string_view* best = nullptr;
  std::size_t best_distance = kMaxHintDistance + 1;
  for (const std::string_view& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  return best == nullptr ? std::string() : "; did you mean '" + std::string(*best) + "'?";
}

}  // namespace scaletune::job::detail
