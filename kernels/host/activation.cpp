#include "activation.hpp"

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

/// Throws unless `t` is contiguous and has `like`'s shape.
void require_like(const char* op, const char* name, const Tensor4& t, const Tensor4& like) {
  detail::require_shape(op, name, t,
                        {like.extent(0), like.extent(1), like.extent(2), like.extent(3)});
  detail::require_contiguous(op, name, t);
}

}  // namespace

void relu_forward(const Tensor4& x, const Tensor4& y) {
  require_like("relu_forward", "x", x, x);
  require_like("relu_forward", "y", y, x);
  const float* in = x.data();
  float* out = y.data();
  Kokkos::parallel_for("relu_forward", detail::host_range(x.size()),
                       [=](std::size_t i) { out[i] = in[i] > 0.0f ? in[i] : 0.0f; });
}

void relu_backward(const Tensor4& y, const Tensor4& dy, const Tensor4& dx) {
  require_like("relu_backward", "y", y, y);
  require_like("relu_backward", "dy", dy, y);
  require_like("relu_backward", "dx", dx, y);
  const float* out = y.data();
  const float* grad_out = dy.data();
  float* grad_in = dx.data();
  Kokkos::parallel_for("relu_backward", detail::host_range(y.size()),
                       [=](std::size_t i) { grad_in[i] = out[i] > 0.0f ? grad_out[i] : 0.0f; });
}

void add_inplace(const Tensor4& y, const Tensor4& x) {
  require_like("add_inplace", "y", y, y);
  require_like("add_inplace", "x", x, y);
  float* acc = y.data();
  const float* in = x.data();
  Kokkos::parallel_for("add_inplace", detail::host_range(y.size()),
                       [=](std::size_t i) { acc[i] += in[i]; });
}

}  // namespace scaletune::kernels
