#include "kernels/host/head_layout.hpp"

#include "kernels/host/detail/host_range.hpp"

namespace scaletune::kernels {

void rows_to_heads(const float* rows, std::size_t row_stride, const Tensor4& heads) {
  const std::size_t n_heads = heads.extent(1), seq = heads.extent(2), dh = heads.extent(3);
  Kokkos::parallel_for("rows_to_heads", detail::host_range(heads.extent(0) * seq),
                       [=](std::size_t token) {
                         const std::size_t b = token / seq, s = token % seq;
                         for (std::size_t h = 0; h < n_heads; ++h)
                           for (std::size_t d = 0; d < dh; ++d)
                             heads(b, h, s, d) = rows[token * row_stride + h * dh + d];
                       });
}

void heads_to_rows(const Tensor4& heads, float* rows, std::size_t row_stride) {
  const std::size_t n_heads = heads.extent(1), seq = heads.extent(2), dh = heads.extent(3);
  Kokkos::parallel_for("heads_to_rows", detail::host_range(heads.extent(0) * seq),
                       [=](std::size_t token) {
                         const std::size_t b = token / seq, s = token % seq;
                         for (std::size_t h = 0; h < n_heads; ++h)
                           for (std::size_t d = 0; d < dh; ++d)
                             rows[token * row_stride + h * dh + d] = heads(b, h, s, d);
                       });
}

}  // namespace scaletune::kernels
