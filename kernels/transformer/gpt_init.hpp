#pragma once
// GPT-2's initial parameters (Radford et al. 2019, section 2.3; the released model code and
// nanoGPT), drawn unit by unit so a rank that holds only a shard never needs the whole vector.

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

#include "kernels/transformer/gpt_model.hpp"

namespace scaletune::kernels {

/// Draws the parameters of GptModel's flat layout one unit at a time (GptModel's units:
/// embeddings, blocks 0..L-1, ln_f), in layout order: embeddings (wte, wpe) and the qkv and fc1
/// weights normal(0, 0.02); the residual projections (each block's proj and fc2 weights)
/// normal(0, 0.02 / sqrt(2 L)), the paper's 1 / sqrt(N) scaling with N = 2 L residual layers;
/// every bias 0; every LayerNorm gamma 1 and beta 0. Draws come from one std::mt19937_64 seeded
/// with `seed`, tensor by tensor (a std::normal_distribution<float> per tensor; the embeddings
/// are one tensor), so the units' concatenation is the same whatever is kept of each.
class GptInitializer {
 public:
  /// Throws std::invalid_argument on a bad shape (as GptModel).
  GptInitializer(const GptShape& shape, std::uint64_t seed);

  /// Fills `out` with the next unit's values (unit 0 first). Throws std::invalid_argument when
  /// out's length differs from the unit's (GptModel::unit_parameter_counts), std::logic_error
  /// after the last unit.
  void fill_next_unit(std::span<float> out);

 private:
  GptShape m_shape;
  std::mt19937_64 m_rng;
  std::size_t m_next = 0;
};

/// Fills `params` ([GptModel::parameter_count(shape)] floats) with every unit of
/// GptInitializer(shape, seed) in order. Throws std::invalid_argument on a bad shape or when
/// params has the wrong length.
void init_gpt_parameters(const GptShape& shape, std::uint64_t seed, std::span<float> params);

}  // namespace scaletune::kernels
