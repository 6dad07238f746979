#pragma once
// GPT-2's input embedding: token embedding plus learned position embedding (Radford et al.
// 2019), forward and backward.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// out[t, :] = wte[tokens[t], :] + wpe[t mod S, :] for t < T: tokens [T] ids in [0, V) (the
/// caller checks them), wte [V, H], wpe [S, H], out [T, H]. Host.
void token_embedding_forward(const Tensor2& wte, const Tensor2& wpe, const Labels& tokens,
                             const Tensor2& out);

/// dwte[tokens[t], :] += dout[t, :] and dwpe[t mod S, :] += dout[t, :] for t < T, in order of
/// t (a token that repeats adds in that order). Host.
void token_embedding_backward(const Tensor2& dout, const Labels& tokens, const Tensor2& dwte,
                              const Tensor2& dwpe);

}  // namespace scaletune::kernels
