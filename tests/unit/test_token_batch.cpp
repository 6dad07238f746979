// Synthetic token batches: targets are the inputs shifted by one position within a sample, a
// global sample has the same tokens however the batch is sliced, ids are in range and every id
// of a small vocabulary appears; bad arguments are rejected.

#include "kernels/transformer/token_batch.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::uint64_t kSeed = 1234;

struct Batch {
  Labels tokens, targets;
};

Batch fill(std::int64_t first_sample, int samples, int seq_len, int vocab,
           std::uint64_t seed = kSeed) {
  const auto rows = static_cast<std::size_t>(samples) * static_cast<std::size_t>(seq_len);
  Batch b{Labels("tokens", rows), Labels("targets", rows)};
  fill_token_batch(seed, first_sample, seq_len, vocab, {b.tokens.data(), rows},
                   {b.targets.data(), rows});
  return b;
}

TEST(TokenBatch, TargetsAreTheNextTokenOfTheSameSample) {
  const int seq_len = 9, vocab = 50, samples = 6;
  const Batch b = fill(3, samples, seq_len, vocab);
  for (int s = 0; s < samples; ++s) {
    const auto row = static_cast<std::size_t>(s * seq_len);
    for (int p = 0; p < seq_len; ++p) {
      const std::size_t t = row + static_cast<std::size_t>(p);
      EXPECT_EQ(b.tokens(t), synthetic_token(kSeed, 3 + s, p, seq_len, vocab));
      EXPECT_EQ(b.targets(t), synthetic_token(kSeed, 3 + s, p + 1, seq_len, vocab));
      if (p + 1 < seq_len) {
        EXPECT_EQ(b.targets(t), b.tokens(t + 1)) << "sample " << s << ", position " << p;
      }
    }
  }
}

TEST(TokenBatch, ASampleIsTheSameWhateverTheSlicing) {
  const int seq_len = 5, vocab = 1000;
  const Batch whole = fill(0, 12, seq_len, vocab);
  // Ranks of 5, 4 and 3 samples, the last split into micro-batches of 1.
  const std::vector<std::pair<int, int>> slices = {{0, 5}, {5, 4}, {9, 1}, {10, 1}, {11, 1}};
  for (const auto& [first, samples] : slices) {
    const Batch part = fill(first, samples, seq_len, vocab);
    for (std::size_t t = 0; t < part.tokens.extent(0); ++t) {
      const std::size_t global = static_cast<std::size_t>(first * seq_len) + t;
      EXPECT_EQ(part.tokens(t), whole.tokens(global)) << "slice at " << first << ", row " << t;
      EXPECT_EQ(part.targets(t), whole.targets(global)) << "slice at " << first << ", row " << t;
    }
  }
}

TEST(TokenBatch, SeedsAndSamplesDiffer) {
  const Batch a = fill(0, 4, 16, 1000, 1), b = fill(0, 4, 16, 1000, 2), c = fill(4, 4, 16, 1000, 1);
  int same_seed = 0, same_sample = 0;
  for (std::size_t t = 0; t < a.tokens.extent(0); ++t) {
    same_seed += a.tokens(t) == b.tokens(t);
    same_sample += a.tokens(t) == c.tokens(t);
  }
  // Independent uniform ids out of 1000 agree about 64 / 1000 times in 64 rows.
  EXPECT_LE(same_seed, 3);
  EXPECT_LE(same_sample, 3);
}

TEST(TokenBatch, IdsInRangeAndEveryIdOfASmallVocabularyAppears) {
  const int vocab = 7;
  const Batch b = fill(0, 100, 10, vocab);  // 1000 tokens
  std::set<int> seen;
  for (std::size_t t = 0; t < b.tokens.extent(0); ++t) {
    ASSERT_GE(b.tokens(t), 0);
    ASSERT_LT(b.tokens(t), vocab);
    ASSERT_GE(b.targets(t), 0);
    ASSERT_LT(b.targets(t), vocab);
    seen.insert(b.tokens(t));
  }
  EXPECT_EQ(seen.size(), 7u);
  const Batch one = fill(0, 3, 4, 1);
  for (std::size_t t = 0; t < one.tokens.extent(0); ++t) EXPECT_EQ(one.tokens(t), 0);
}

TEST(TokenBatch, RejectsBadArguments) {
  std::vector<int> six(6), four(4), five(5);
  EXPECT_THROW(fill_token_batch(kSeed, 0, 0, 10, six, six), std::invalid_argument);
  EXPECT_THROW(fill_token_batch(kSeed, 0, 3, 0, six, six), std::invalid_argument);
  EXPECT_THROW(fill_token_batch(kSeed, -1, 3, 10, six, six), std::invalid_argument);
  EXPECT_THROW(fill_token_batch(kSeed, 0, 2, 10, six, four), std::invalid_argument);
  EXPECT_THROW(fill_token_batch(kSeed, 0, 3, 10, five, five), std::invalid_argument);
  std::vector<int> tokens(6), targets(6);
  EXPECT_NO_THROW(fill_token_batch(kSeed, 0, 3, 10, tokens, targets));
}

}  // namespace
}  // namespace scaletune::kernels
