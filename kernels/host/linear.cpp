#include "linear.hpp"

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/gemm.hpp"

namespace scaletune::kernels {

namespace {

/// Throws unless `m` is a contiguous [rows, cols] matrix (gemm reads it with row stride cols).
void require_matrix(const char* op, const char* name, const Tensor2& m, std::size_t rows,
                    std::size_t cols) {
  detail::require_shape(op, name, m, {rows, cols});
  detail::require_contiguous(op, name, m);
}

int as_int(std::size_t extent) {
  return static_cast<int>(extent);
}

}  // namespace

void linear_forward(const Tensor2& x, const Tensor2& w, const Vector& b, const Tensor2& y) {
  constexpr const char* kOp = "linear_forward";
  const std::size_t n = x.extent(0);
  const std::size_t features = x.extent(1);
  const std::size_t outputs = w.extent(0);
  require_matrix(kOp, "x", x, n, features);
  require_matrix(kOp, "w", w, outputs, features);
  detail::require_shape(kOp, "b", b, {outputs});
  require_matrix(kOp, "y", y, n, outputs);
  Kokkos::parallel_for("linear_bias", detail::host_range(n), [=](std::size_t row) {
    for (std::size_t o = 0; o < outputs; ++o) y(row, o) = b(o);
  });
  if (n == 0 || outputs == 0) return;
  // y = 1 * x · w^T + 1 * y (y holds the bias).
  gemm(false, true, as_int(n), as_int(outputs), as_int(features), 1.0f, x.data(), as_int(features),
       w.data(), as_int(features), 1.0f, y.data(), as_int(outputs));
}

void linear_backward(const Tensor2& x, const Tensor2& w, const Tensor2& dy, const Tensor2& dw,
                     const Vector& db, const Tensor2& dx, GradMode mode) {
  constexpr const char* kOp = "linear_backward";
  const std::size_t n = x.extent(0);
  const std::size_t features = x.extent(1);
  const std::size_t outputs = w.extent(0);
  require_matrix(kOp, "x", x, n, features);
  require_matrix(kOp, "w", w, outputs, features);
  require_matrix(kOp, "dy", dy, n, outputs);
  require_matrix(kOp, "dw", dw, outputs, features);
  detail::require_shape(kOp, "db", db, {outputs});
  const bool want_dx = dx.data() != nullptr;
  if (want_dx) require_matrix(kOp, "dx", dx, n, features);

  const bool accumulate = mode == GradMode::accumulate;
  Kokkos::parallel_for("linear_bias_grad", detail::host_range(outputs), [=](std::size_t o) {
    double sum = 0.0;
    for (std::size_t row = 0; row < n; ++row) sum += dy(row, o);
    db(o) = static_cast<float>(sum) + (accumulate ? db(o) : 0.0f);
  });
  if (outputs == 0 || features == 0) return;
  // dw[O,F] = dy^T[O,N] · x[N,F] + beta dw (beta 0 overwrites, 1 accumulates).
  gemm(true, false, as_int(outputs), as_int(features), as_int(n), 1.0f, dy.data(), as_int(outputs),
       x.data(), as_int(features), accumulate ? 1.0f : 0.0f, dw.data(), as_int(features));
  // dx[N,F] = dy[N,O] · w[O,F].
  if (want_dx && n > 0)
    gemm(false, false, as_int(n), as_int(features), as_int(outputs), 1.0f, dy.data(),
         as_int(outputs), w.data(), as_int(features), 0.0f, dx.data(), as_int(features));
}

}  // namespace scaletune::kernels
