#include "sparse_optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernels/host/detail/half_convert.hpp"
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

/// Values descend_row converts at a time on a 16-bit table: a 1 KiB fp32 buffer on the stack.
constexpr std::size_t kChunk = 256;

/// table[row, d] = T(float(table[row, d]) - step * values(u, d)) for every d: computed in fp32
/// (a multiply, then a subtraction, in code built for the baseline ISA, which has no FMA to fuse
/// them into one rounding), rounded to nearest even when T is 16 bits wide. A 16-bit row goes
/// through an fp32 buffer, kChunk values at a time, with the conversions of detail::to_float and
/// detail::from_float compiled for `isa` (F16C for fp16 where the CPU has it, vectorized integer
/// arithmetic for bf16): bit for bit Eigen's conversions, which took 2.7 (bf16) and 3.5 (fp16)
/// times an fp32 update's time per row one value at a time, and about 1.9 this way
/// (BM_SparseSgdStep at 2^22 x 128; prefetching rows ahead or fusing the conversions into the
/// update changed nothing measurable).
template <class T>
void descend_row(HostIsa isa, const Table<T>& table, std::int64_t row, const Tensor2& values,
                 std::size_t u, float step) {
  const std::size_t dim = table.extent(1);
  if constexpr (std::is_same_v<T, float>) {
    for (std::size_t d = 0; d < dim; ++d) table(row, d) = table(row, d) - step * values(u, d);
  } else {
    T* stored = table.data() + static_cast<std::size_t>(row) * table.stride_0();
    const float* grad = values.data() + u * values.stride_0();
    float buffer[kChunk];
    for (std::size_t begin = 0; begin < dim; begin += kChunk) {
      const std::size_t n = std::min(kChunk, dim - begin);
      detail::to_float(isa, {stored + begin, n}, {buffer, n});
      for (std::size_t i = 0; i < n; ++i) buffer[i] = buffer[i] - step * grad[begin + i];
      detail::from_float(isa, {buffer, n}, {stored + begin, n});
    }
  }
}

/// sparse_sgd_step for a table of T.
template <class T>
void sgd_step(const Table<T>& table, const SparseRowGrad& grad, float lr) {
  constexpr const char* kOp = "sparse_sgd_step";
  require_sparse_grad(kOp, grad, table.extent(0), table.extent(1));
  const IndexVector rows = grad.rows;
  const Tensor2 values = grad.values;
  const HostIsa isa = best_host_isa();
  Kokkos::parallel_for(kOp, detail::host_range(rows.extent(0)),
                       [=](std::size_t u) { descend_row(isa, table, rows(u), values, u, lr); });
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
  const HostIsa isa = best_host_isa();
  Kokkos::parallel_for(kOp, detail::host_range(rows.extent(0)), [=](std::size_t u) {
    const std::int64_t row = rows(u);
    float sum_squares = 0.0f;
    for (std::size_t d = 0; d < dim; ++d) sum_squares += values(u, d) * values(u, d);
    if (dim > 0) state(row) += sum_squares / static_cast<float>(dim);
    descend_row(isa, table, row, values, u, lr / (std::sqrt(state(row)) + eps));
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
