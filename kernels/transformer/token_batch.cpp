#include "kernels/transformer/token_batch.hpp"

#include <stdexcept>
#include <string>

#include "kernels/host/detail/splitmix64.hpp"

namespace scaletune::kernels {

int synthetic_token(std::uint64_t seed, std::int64_t sample, int position, int seq_len, int vocab) {
  const auto counter =
      static_cast<std::uint64_t>(sample) * static_cast<std::uint64_t>(seq_len + 1) +
      static_cast<std::uint64_t>(position);
  const std::uint64_t bits = detail::splitmix64(detail::splitmix64(seed) ^ counter);
  return static_cast<int>(bits % static_cast<std::uint64_t>(vocab));
}

void fill_token_batch(std::uint64_t seed, std::int64_t first_sample, int seq_len, int vocab,
                      std::span<std::int32_t> tokens, std::span<std::int32_t> targets) {
  if (seq_len < 1 || vocab < 1 || first_sample < 0)
    throw std::invalid_argument("fill_token_batch: seq_len " + std::to_string(seq_len) +
                                ", vocab " + std::to_string(vocab) + " and first_sample " +
                                std::to_string(first_sample) + " must be >= 1, >= 1 and >= 0");
  const std::size_t rows = tokens.size(), s = static_cast<std::size_t>(seq_len);
  if (targets.size() != rows || rows % s != 0)
    throw std::invalid_argument("fill_token_batch: tokens [" + std::to_string(rows) +
                                "] and targets [" + std::to_string(targets.size()) +
                                "] must have one equal length, a multiple of seq_len " +
                                std::to_string(seq_len));
  for (std::size_t b = 0; b < rows / s; ++b) {
    const std::int64_t sample = first_sample + static_cast<std::int64_t>(b);
    for (int p = 0; p < seq_len; ++p) {
      tokens[b * s + static_cast<std::size_t>(p)] =
          synthetic_token(seed, sample, p, seq_len, vocab);
      targets[b * s + static_cast<std::size_t>(p)] =
          synthetic_token(seed, sample, p + 1, seq_len, vocab);
    }
  }
}

}  // namespace scaletune::kernels
