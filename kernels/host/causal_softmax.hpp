#pragma once
// Row-wise softmax with the causal mask of decoder self-attention (GPT-2, Radford et al. 2019):
// query i sees keys j <= i only.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// p[r,i,j] = exp(s[r,i,j] - m) / sum_{j'<=i} exp(s[r,i,j'] - m) for j <= i, where
/// m = max_{j<=i} s[r,i,j] (subtracted so no exp overflows), and p[r,i,j] = 0 exactly for j > i
/// (the masked upper triangle; those scores are never read). scores, p [R, S, S] with
/// R = batch * heads, host; p overwritten and may alias scores (in place). Throws
/// std::invalid_argument when scores is not [R, S, S] or p's shape differs.
void causal_softmax_forward(const Tensor3& scores, const Tensor3& p);

/// dscores[r,i,j] = p[r,i,j] * (dp[r,i,j] - sum_{j'<=i} p[r,i,j'] dp[r,i,j']) for j <= i, and 0
/// for j > i (the softmax Jacobian-vector product; masked entries get no gradient). p is the
/// forward's output; p, dp, dscores [R, S, S], host; dscores overwritten and may alias dp.
/// Throws std::invalid_argument when p is not [R, S, S] or dp's or dscores's shape differs.
void causal_softmax_backward(const Tensor3& p, const Tensor3& dp, const Tensor3& dscores);

}  // namespace scaletune::kernels
