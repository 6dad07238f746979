#pragma once
// Fully-connected layer forward and backward on top of kernels::gemm.

#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

/// y[N,O] = x[N,F] · w[O,F]^T + b[O] (y overwritten). All host, row-major, contiguous.
/// Throws std::invalid_argument when a shape does not match x [N,F], w [O,F], b [O], y [N,O].
void linear_forward(const Tensor2& x, const Tensor2& w, const Vector& b, const Tensor2& y);

using ops::GradMode;

/// dw[O,F] = dy^T·x, db[O] = sum_n dy (overwritten, or added to with GradMode::accumulate);
/// dx[N,F] = dy·w (always overwritten; skipped when dx.data()==nullptr). x [N,F], w [O,F],
/// dy [N,O]; all host, row-major, contiguous. Throws std::invalid_argument when a shape does not
/// match.
void linear_backward(const Tensor2& x, const Tensor2& w, const Tensor2& dy, const Tensor2& dw,
                     const Vector& db, const Tensor2& dx, GradMode mode = GradMode::overwrite);

}  // namespace scaletune::kernels
