#pragma once
// What the device tests of the pooling and batch-norm kernels need beyond
// cuda_kernel_test_support.hpp: NHWC copies of the host ops' NCHW tensors.

#include <cstddef>
#include <span>
#include <vector>

namespace scaletune::kernels::cuda::testing {

/// The NHWC copy of an NCHW tensor [n, c, h, w] (flat, row-major).
inline std::vector<float> nchw_to_nhwc(std::span<const float> x, std::size_t n, std::size_t c,
                                       std::size_t h, std::size_t w) {
  std::vector<float> out(x.size());
  for (std::size_t b = 0; b < n; ++b)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t s = 0; s < h * w; ++s)
        out[(b * h * w + s) * c + ch] = x[(b * c + ch) * h * w + s];
  return out;
}

}  // namespace scaletune::kernels::cuda::testing
