#pragma once
// The synthetic batch of the transformer workload: token ids that are a function of the seed,
// the global sample index and the position only, so a sample is the same however the batch is
// split over ranks and micro-batches.

#include <cstdint>
#include <span>

namespace scaletune::kernels {

/// Token id of position `position` (0 .. seq_len: a sample has seq_len + 1 tokens, the inputs
/// and the next-token targets) of global sample `sample`, uniform in [0, vocab): a SplitMix64
/// hash of (seed, sample * (seq_len + 1) + position) modulo vocab. Requires seq_len >= 1 and
/// vocab >= 1 (not checked: fill_token_batch checks).
int synthetic_token(std::uint64_t seed, std::int64_t sample, int position, int seq_len, int vocab);

/// Fills host tokens [B * seq_len] and targets [B * seq_len] (sample-major: row b * seq_len + s,
/// uploaded by the caller) with
/// global samples first_sample .. first_sample + B - 1: tokens[b, s] = synthetic_token(sample,
/// s), targets[b, s] = synthetic_token(sample, s + 1), B = tokens.size() / seq_len. Throws
/// std::invalid_argument when seq_len < 1, vocab < 1, first_sample < 0, the lengths differ or
/// are not a multiple of seq_len.
void fill_token_batch(std::uint64_t seed, std::int64_t first_sample, int seq_len, int vocab,
                      std::span<std::int32_t> tokens, std::span<std::int32_t> targets);

}  // namespace scaletune::kernels
