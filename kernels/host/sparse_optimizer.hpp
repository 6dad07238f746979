#pragma once
// Optimizer steps on row-sparse embedding gradients (embedding_bag_backward): only the touched
// rows, and their optimizer state, move.

#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/half_table.hpp"
#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

/// Row-wise sparse SGD: table[rows(u), :] -= lr * values(u, :); other rows are not read or
/// written. table [R, D]. Throws std::invalid_argument when grad's shapes do not match
/// ([U], [U, D]) or its rows are not strictly increasing ids in [0, R).
void sparse_sgd_step(const Tensor2& table, const SparseRowGrad& grad, float lr);

/// sparse_sgd_step on a table stored in fp16: each touched value becomes
/// half(float(table[r, d]) - lr * values(u, d)), computed in fp32 and rounded to nearest even
/// when stored (Eigen::half's conversion). Same checks; untouched rows keep their bits.
void sparse_sgd_step(const Fp16Table& table, const SparseRowGrad& grad, float lr);

/// sparse_sgd_step on a table stored in bf16, as the Fp16Table overload (Eigen::bfloat16's
/// round-to-nearest-even conversion).
void sparse_sgd_step(const Bf16Table& table, const SparseRowGrad& grad, float lr);

using ops::RowwiseAdagradOptions;

/// FBGEMM's rowwise Adagrad (fbgemm_gpu, optimizer "rowwise_adagrad", weight decay off; one
/// accumulator per row instead of one per element). For each touched row r with gradient g [D]:
///   state[r] += (1/D) * sum_d g[d]^2;   table[r, :] -= lr / (sqrt(state[r]) + eps) * g.
/// Untouched rows and their state are not read or written. table [R, D], state [R] (start at
/// 0). Throws std::invalid_argument when state is not [R], or as sparse_sgd_step for grad.
void sparse_rowwise_adagrad_step(const Tensor2& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt);

/// sparse_rowwise_adagrad_step on a table stored in fp16: state [R] stays fp32 and is updated
/// exactly as for an fp32 table; each touched value becomes
/// half(float(table[r, d]) - multiplier * g[d]), computed in fp32 and rounded to nearest even
/// when stored. Same checks; untouched rows and their state keep their bits.
void sparse_rowwise_adagrad_step(const Fp16Table& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt);

/// sparse_rowwise_adagrad_step on a table stored in bf16, as the Fp16Table overload.
void sparse_rowwise_adagrad_step(const Bf16Table& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt);

}  // namespace scaletune::kernels
