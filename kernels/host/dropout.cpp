#include "dropout.hpp"

#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/detail/splitmix64.hpp"

namespace scaletune::kernels {

namespace {

/// Throws unless `mask` is valid and `out` is contiguous and shaped like the contiguous `in`.
void require_args(const char* op, const char* in_name, const Tensor2& in, const DropoutMask& mask,
                  const char* out_name, const Tensor2& out) {
  detail::require_contiguous(op, in_name, in);
  detail::require_shape(op, out_name, out, {in.extent(0), in.extent(1)});
  detail::require_contiguous(op, out_name, out);
  if (!(mask.p >= 0.0f && mask.p < 1.0f))
    throw std::invalid_argument(std::string(op) + ": p is " + std::to_string(mask.p) +
                                ", expected in [0, 1)");
  if (mask.first_row < 0)
    throw std::invalid_argument(std::string(op) + ": first_row is " +
                                std::to_string(mask.first_row) + ", expected >= 0");
}

/// out = in * keep / (1 - p) over the flat span; forward and backward are this same map.
void apply_mask(const Tensor2& in, const DropoutMask& mask, const Tensor2& out) {
  const float* src = in.data();
  float* dst = out.data();
  const float scale = 1.0f / (1.0f - mask.p);
  const double p = mask.p;
  const std::uint64_t stream = detail::splitmix64(mask.seed ^ detail::splitmix64(mask.step));
  const std::uint64_t first = static_cast<std::uint64_t>(mask.first_row) * in.extent(1);
  Kokkos::parallel_for("dropout", detail::host_range(in.size()), [=](std::size_t i) {
    const std::uint64_t bits = detail::splitmix64(stream ^ detail::splitmix64(first + i));
    const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
    dst[i] = unit >= p ? src[i] * scale : 0.0f;
  });
}

}  // namespace

void dropout_forward(const Tensor2& x, const DropoutMask& mask, const Tensor2& y) {
  require_args("dropout_forward", "x", x, mask, "y", y);
  apply_mask(x, mask, y);
}

void dropout_backward(const Tensor2& dy, const DropoutMask& mask, const Tensor2& dx) {
  require_args("dropout_backward", "dy", dy, mask, "dx", dx);
  apply_mask(dy, mask, dx);
}

}  // namespace scaletune::kernels
