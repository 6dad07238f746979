// GPT-2's input embedding host ops (kernels/host/token_embedding.hpp): the forward sum of token
// and position rows, and the backward that adds into both tables in order of t, repeated tokens
// accumulating (checked against the same sums formed in that order).

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "kernels/host/token_embedding.hpp"

namespace scaletune::kernels {
namespace {

constexpr std::size_t kVocab = 4, kSeq = 3, kHidden = 5, kTokens = 2 * kSeq;

Tensor2 random_matrix(const std::string& label, std::size_t rows, std::size_t cols, unsigned seed) {
  const Tensor2 m(label, rows, cols);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = dist(gen);
  return m;
}

Labels tokens_of(const std::vector<int>& ids) {
  const Labels tokens("tokens", ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) tokens(i) = ids[i];
  return tokens;
}

TEST(TokenEmbedding, ForwardAddsTokenAndPositionRows) {
  const Tensor2 wte = random_matrix("wte", kVocab, kHidden, 1);
  const Tensor2 wpe = random_matrix("wpe", kSeq, kHidden, 2);
  const Labels tokens = tokens_of({3, 0, 3, 1, 1, 2});
  const Tensor2 out("out", kTokens, kHidden);
  token_embedding_forward(wte, wpe, tokens, out);
  for (std::size_t t = 0; t < kTokens; ++t)
    for (std::size_t c = 0; c < kHidden; ++c)
      EXPECT_EQ(out(t, c), wte(std::size_t(tokens(t)), c) + wpe(t % kSeq, c)) << t << "," << c;
}

TEST(TokenEmbedding, BackwardAddsIntoBothTablesInOrderOfT) {
  const Tensor2 dout = random_matrix("dout", kTokens, kHidden, 3);
  const Labels tokens = tokens_of({2, 2, 0, 2, 3, 0});  // 2 three times, 0 twice, 1 never
  const Tensor2 dwte = random_matrix("dwte", kVocab, kHidden, 4);
  const Tensor2 dwpe = random_matrix("dwpe", kSeq, kHidden, 5);
  std::vector<float> want_wte(dwte.data(), dwte.data() + dwte.size());
  std::vector<float> want_wpe(dwpe.data(), dwpe.data() + dwpe.size());
  for (std::size_t t = 0; t < kTokens; ++t)
    for (std::size_t c = 0; c < kHidden; ++c) {
      want_wte[std::size_t(tokens(t)) * kHidden + c] += dout(t, c);
      want_wpe[(t % kSeq) * kHidden + c] += dout(t, c);
    }
  token_embedding_backward(dout, tokens, dwte, dwpe);
  EXPECT_EQ(std::vector<float>(dwte.data(), dwte.data() + dwte.size()), want_wte);
  EXPECT_EQ(std::vector<float>(dwpe.data(), dwpe.data() + dwpe.size()), want_wpe);
}

}  // namespace
}  // namespace scaletune::kernels
