#include "kernels/host/token_embedding.hpp"

#include <cstddef>

namespace scaletune::kernels {

void token_embedding_forward(const Tensor2& wte, const Tensor2& wpe, const Labels& tokens,
                             const Tensor2& out) {
  const std::size_t s = wpe.extent(0);
  for (std::size_t row = 0; row < out.extent(0); ++row)
    for (std::size_t c = 0; c < out.extent(1); ++c)
      out(row, c) = wte(static_cast<std::size_t>(tokens(row)), c) + wpe(row % s, c);
}

void token_embedding_backward(const Tensor2& dout, const Labels& tokens, const Tensor2& dwte,
                              const Tensor2& dwpe) {
  const std::size_t s = dwpe.extent(0);
  for (std::size_t t = 0; t < dout.extent(0); ++t)
    for (std::size_t c = 0; c < dout.extent(1); ++c) {
      dwte(static_cast<std::size_t>(tokens(t)), c) += dout(t, c);
      dwpe(t % s, c) += dout(t, c);
    }
}

}  // namespace scaletune::kernels
