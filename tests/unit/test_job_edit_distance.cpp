// Spelling hints: the Levenshtein distance against its recursive definition, and the
// distance limit of 3 for a hint.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "harness/job/detail/edit_distance.hpp"

namespace {

using scaletune::job::detail::did_you_mean;
using scaletune::job::detail::edit_distance;

/// Levenshtein's recursive definition, exponential but exact on short words.
std::size_t reference_distance(std::string_view a, std::string_view b) {
  if (a.empty()) return b.size();
  if (b.empty()) return a.size();
  const std::size_t substitute =
      reference_distance(a.substr(1), b.substr(1)) + (a.front() == b.front() ? 0 : 1);
  return std::min(
      {reference_distance(a.substr(1), b) + 1, reference_distance(a, b.substr(1)) + 1, substitute});
}

TEST(EditDistance, MatchesTheRecursiveDefinition) {
  const std::array<std::string_view, 9> words = {"",      "a",    "ranks", "rank", "image_sise",
                                                 "width", "even", "evn",   "sweep"};
  for (const std::string_view a : words)
    for (const std::string_view b : words)
      EXPECT_EQ(edit_distance(a, b), reference_distance(a, b)) << a << " / " << b;
}

TEST(EditDistance, TextbookExamples) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("sweep", "sweep"), 0u);
}

TEST(DidYouMean, HintsOnlyWithinThreeEdits) {
  const std::array<std::string_view, 3> keys = {"warmup", "iterations", "seed"};
  EXPECT_EQ(did_you_mean("iteration", keys), "; did you mean 'iterations'?");
  EXPECT_EQ(did_you_mean("sed", keys), "; did you mean 'seed'?");
  EXPECT_EQ(did_you_mean("warm", keys), "; did you mean 'warmup'?");   // distance 2
  EXPECT_EQ(did_you_mean("seedxxx", keys), "; did you mean 'seed'?");  // distance 3
  EXPECT_EQ(did_you_mean("seedxxxx", keys), "");                       // distance 4
  EXPECT_EQ(did_you_mean("learning_rate", keys), "");
}

TEST(DidYouMean, NearestCandidateWins) {
  const std::array<std::string_view, 2> kinds = {"resnet18", "resnet50"};
  EXPECT_EQ(did_you_mean("resnet-50", kinds), "; did you mean 'resnet50'?");
}

}  // namespace
