#include "interaction.hpp"

#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

/// Throws std::invalid_argument unless z is [N, F, D] with F, D >= 1 and `cols` is
/// [N, D + F(F-1)/2] (cols is out in the forward pass, dout in the backward pass).
void require_interaction_shapes(const char* op, const Tensor3& z, const char* cols_name,
                                const Tensor2& cols) {
  if (z.extent(1) < 1 || z.extent(2) < 1)
    throw std::invalid_argument(std::string(op) + ": z is " + detail::shape_string(z, 3) +
                                ", expected [N, F, D] with F >= 1 and D >= 1");
  const std::size_t width = static_cast<std::size_t>(
      interaction_output_width(static_cast<int>(z.extent(1)), static_cast<int>(z.extent(2))));
  detail::require_shape(op, cols_name, cols, {z.extent(0), width});
}

}  // namespace

int interaction_output_width(int features, int dim) {
  if (features < 1 || dim < 1)
    throw std::invalid_argument("interaction_output_width: features " + std::to_string(features) +
                                ", dim " + std::to_string(dim) + ", expected both >= 1");
  return dim + features * (features - 1) / 2;
}

void interaction_forward(const Tensor3& z, const Tensor2& out) {
  constexpr const char* kOp = "interaction_forward";
  require_interaction_shapes(kOp, z, "out", out);
  detail::require_distinct(kOp, "z", z, "out", out);
  const std::size_t features = z.extent(1), dim = z.extent(2);
  Kokkos::parallel_for(kOp, detail::host_range(z.extent(0)), [=](std::size_t n) {
    for (std::size_t d = 0; d < dim; ++d) out(n, d) = z(n, 0, d);
    std::size_t col = dim;
    for (std::size_t i = 1; i < features; ++i)
      for (std::size_t j = 0; j < i; ++j) {
        float dot = 0.0f;
        for (std::size_t d = 0; d < dim; ++d) dot += z(n, i, d) * z(n, j, d);
        out(n, col++) = dot;
      }
  });
}

void interaction_backward(const Tensor3& z, const Tensor2& dout, const Tensor3& dz) {
  constexpr const char* kOp = "interaction_backward";
  require_interaction_shapes(kOp, z, "dout", dout);
  detail::require_shape(kOp, "dz", dz, {z.extent(0), z.extent(1), z.extent(2)});
  detail::require_distinct(kOp, "z", z, "dz", dz);
  detail::require_distinct(kOp, "dout", dout, "dz", dz);
  const std::size_t features = z.extent(1), dim = z.extent(2);
  Kokkos::parallel_for(kOp, detail::host_range(z.extent(0)), [=](std::size_t n) {
    for (std::size_t d = 0; d < dim; ++d) dz(n, 0, d) = dout(n, d);
    for (std::size_t i = 1; i < features; ++i)
      for (std::size_t d = 0; d < dim; ++d) dz(n, i, d) = 0.0f;
    std::size_t col = dim;
    for (std::size_t i = 1; i < features; ++i)
      for (std::size_t j = 0; j < i; ++j) {
        const float g = dout(n, col++);
        for (std::size_t d = 0; d < dim; ++d) {
          dz(n, i, d) += g * z(n, j, d);
          dz(n, j, d) += g * z(n, i, d);
        }
      }
  });
}

}  // namespace scaletune::kernels
