#pragma once
// DLRM's pairwise dot-product feature interaction (Naumov et al., "Deep Learning Recommendation
// Model for Personalization and Recommendation Systems", 2019; dlrm_s_pytorch.py
// interact_features with arch_interaction_op "dot" and no self-interaction).

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Width of the interaction output for F feature vectors of D values: D + F (F - 1) / 2.
/// Throws std::invalid_argument when features < 1 or dim < 1.
int interaction_output_width(int features, int dim);

/// out[n, :] = concat(z[n, 0, :], dot(z[n, i, :], z[n, j, :]) for i = 1..F-1, j = 0..i-1)
/// (pairs in that order, as dlrm_s_pytorch's li/lj lists). z [N, F, D] with z[:, 0, :] the
/// bottom-MLP output and z[:, 1 + t, :] the pooled embedding of table t; out [N, D + F(F-1)/2]
/// (overwritten); host, F >= 1, D >= 1; out must not alias z. Dots accumulate in float, as
/// torch.bmm does. Throws std::invalid_argument when a shape does not match.
void interaction_forward(const Tensor3& z, const Tensor2& out);

/// dz = d loss / d z given dout = d loss / d out [N, D + F(F-1)/2] (dz [N, F, D] overwritten): the
/// first D columns pass to dz[:, 0, :]; each pair (i, j) adds dout * z[n, j, :] to dz[n, i, :] and
/// dout * z[n, i, :] to dz[n, j, :]. Host; dz must not alias z or dout. Throws
/// std::invalid_argument when a shape does not match or dz aliases z or dout.
void interaction_backward(const Tensor3& z, const Tensor2& dout, const Tensor3& dz);

}  // namespace scaletune::kernels
