#include "kernels/dlrm/sharding_choice.hpp"

#include <stdexcept>
#include <string>

#include "kernels/dlrm/sharding_search.hpp"

namespace scaletune::kernels {

std::size_t chosen_candidate(std::span<const job::ShardingCandidate> candidates,
                             std::size_t composed) {
  if (candidates.empty() || composed > candidates.size())
    throw std::invalid_argument("chosen_candidate: " + std::to_string(candidates.size()) +
                                " candidates, " + std::to_string(composed) +
                                " composed; expected at least one, composed ones among them");
  if (candidates.front().name != kSearchPlanName) return 0;
  const std::size_t ranked = composed > 0 ? composed : candidates.size();
  const auto time = [composed](const job::ShardingCandidate& c) {
    return composed > 0 ? c.step_s : c.embedding_s;
  };
  for (std::size_t i = 1; i < ranked; ++i)
    if (candidates[i].name != kSearchPlanName)
      return time(candidates.front()) > (1.0 - kSearchMargin) * time(candidates[i]) ? i : 0;
  return 0;
}

}  // namespace scaletune::kernels
