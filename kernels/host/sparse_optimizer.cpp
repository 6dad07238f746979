#include "sparse_optimizer.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/detail/row_id_checks.hpp"

namespace scaletune::kernels {

namespace {

using detail::element;
using detail::require_ids_in_range;

/// Throws unless grad is [U] rows and [U, dim] values with strictly increasing rows in
/// [0, num_rows) (so no two updates hit the same table row).
void require_sparse_grad(std::string_view op, const SparseRowGrad& grad, std::size_t num_rows,
                         std::size_t dim) {
  const std::size_t touched = grad.rows.extent(0);
  detail::require_shape(op, "grad.values", grad.values, {touched, dim});
  require_ids_in_range(op, "grad.rows", grad.rows, num_rows);
  for (std::size_t u = 1; u < touched; ++u) {
    if (grad.rows(u) <= grad.rows(u - 1))
      throw std::invalid_argument(element(op, "grad.rows", u, grad.rows(u)) +
                                  "is not greater than grad.rows[" + std::to_string(u - 1) +
                                  "] = " + std::to_string(grad.rows(u - 1)) +
                                  " (rows must be strictly increasing)");
  }
}

/// A [R, D] host table of T (float, Eigen::half or Eigen::bfloat16).
template <class T>
using Table = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// table[row, d] = T(float(table[row, d]) - step * values(u, d)) for every d: computed in fp32,
/// rounded to nearest even when T is 16 bits wide (a no-op conversion for float).
template <class T>
void descend_row(const Table<T>& table, std::int64_t row, const Tensor2& values, std::size_t u,
                 float step) {
  for (std::size_t d = 0; d < table.extent(1); ++d)
    table(row, d) = static_cast<T>(static_cast<float>(table(row, d)) - step * values(u, d));
}

/// sparse_sgd_step for a table of T.
template <class T>
void sgd_step(const Table<T>& table, const SparseRowGrad& grad, float lr) {
  constexpr const char* kOp = "sparse_sgd_step";
  require_sparse_grad(kOp, grad, table.extent(0), table.extent(1));
  const IndexVector rows = grad.rows;
  const Tensor2 values = grad.values;
  Kokkos::parallel_for(kOp, detail::host_range(rows.extent(0)),
                       [=](std::size_t u) { descend_row(table, rows(u), values, u, lr); });
}

/// sparse_rowwise_adagrad_step for a table of T; state stays fp32.
template <class T>
void rowwise_adagrad_step(const Table<T>& table, const Vector& state, const SparseRowGrad& grad,
                          const RowwiseAdagradOptions& opt) {
  constexpr const char* kOp = "sparse_rowwise_adagrad_step";
  const std::size_t dim = table.extent(1);
  detail::require_shape(kOp, "state", state, {table.extent(0)});
  require_sparse_grad(kOp, grad, table.extent(0), dim);
  const IndexVector rows = grad.rows;
  const Tensor2 values = grad.values;
  const float lr = opt.lr;
  const float eps = opt.eps;
  Kokkos::parallel_for(kOp, detail::host_range(rows.extent(0)), [=](std::size_t u) {
    const std::int64_t row = rows(u);
    float sum_squares = 0.0f;
    for (std::size_t d = 0; d < dim; ++d) sum_squares += values(u, d) * values(u, d);
    if (dim > 0) state(row) += sum_squares / static_cast<float>(dim);
    descend_row(table, row, values, u, lr / (std::sqrt(state(row)) + eps));
  });
}

}  // namespace

void sparse_sgd_step(const Tensor2& table, const SparseRowGrad& grad, float lr) {
  sgd_step(table, grad, lr);
}

void sparse_sgd_step(const Fp16Table& table, const SparseRowGrad& grad, float lr) {
  sgd_step(table, grad, lr);
}

void sparse_sgd_step(const Bf16Table& table, const SparseRowGrad& grad, float lr) {
  sgd_step(table, grad, lr);
}

void sparse_rowwise_adagrad_step(const Tensor2& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt) {
  rowwise_adagrad_step(table, state, grad, opt);
}

void sparse_rowwise_adagrad_step(const Fp16Table& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt) {
  rowwise_adagrad_step(table, state, grad, opt);
}

void sparse_rowwise_adagrad_step(const Bf16Table& table, const Vector& state,
                                 const SparseRowGrad& grad, const RowwiseAdagradOptions& opt) {
  rowwise_adagrad_step(table, state, grad, opt);
}

}  // namespace scaletune::kernels
