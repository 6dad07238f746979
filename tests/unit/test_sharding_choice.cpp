// Which candidate of sharding = "auto" runs: the fastest, unless it is the search's plan and a
// built-in scheme is predicted within kSearchMargin of it (then that built-in).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/dlrm/sharding_choice.hpp"

namespace scaletune::kernels {
namespace {

job::ShardingCandidate candidate(const std::string& name, double step_s, double embedding_s) {
  return {name, {}, embedding_s, step_s};
}

TEST(ShardingChoice, SearchRunsOnlyWhenItLeadsByTheMargin) {
  // Composed: search 9.5 ms against table_wise 10 ms is 5% ahead, inside the margin.
  std::vector<job::ShardingCandidate> c = {candidate("search", 9.5e-3, 1e-3),
                                           candidate("table_wise", 10e-3, 2e-3),
                                           candidate("row_wise", 11e-3, 3e-3)};
  EXPECT_EQ(chosen_candidate(c, 3), 1u);
  c[0].step_s = 8.9e-3;  // 11% ahead: the search runs
  EXPECT_EQ(chosen_candidate(c, 3), 0u);
  c[1].name = "search";  // a second searched plan is no fallback: the built-in after it is
  c[0].step_s = 9.5e-3;
  EXPECT_EQ(chosen_candidate(c, 3), 0u);  // row_wise, 11 ms, is more than 10% behind
}

TEST(ShardingChoice, EstimatesDecideWhenNothingWasComposed) {
  const std::vector<job::ShardingCandidate> c = {candidate("search", 0.0, 9.5e-3),
                                                 candidate("column_wise", 0.0, 10e-3)};
  EXPECT_EQ(chosen_candidate(c, 0), 1u);
  const std::vector<job::ShardingCandidate> far = {candidate("search", 0.0, 5e-3),
                                                   candidate("column_wise", 0.0, 10e-3)};
  EXPECT_EQ(chosen_candidate(far, 0), 0u);
}

TEST(ShardingChoice, ABuiltInFirstOrAloneRuns) {
  const std::vector<job::ShardingCandidate> builtin_first = {candidate("table_wise", 9e-3, 1e-3),
                                                             candidate("search", 9.5e-3, 1e-3)};
  EXPECT_EQ(chosen_candidate(builtin_first, 2), 0u);
  // Only the search was composed and fit: nothing to fall back to among the composed.
  const std::vector<job::ShardingCandidate> alone = {candidate("search", 9e-3, 1e-3),
                                                     candidate("table_wise", 0.0, 2e-3)};
  EXPECT_EQ(chosen_candidate(alone, 1), 0u);
  EXPECT_THROW(chosen_candidate({}, 0), std::invalid_argument);
  EXPECT_THROW(chosen_candidate(alone, 3), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels
