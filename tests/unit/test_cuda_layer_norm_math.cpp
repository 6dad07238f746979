// The CUDA LayerNorm kernels' per-element bodies (kernels/cuda/detail/layer_norm_math.hpp),
// run as the kernels run them (fp32 row sums formed as a block of 256 threads forms them:
// strided per-thread partials, then a tree; the forward's sums over x - x[0]), against the host ops
// layer_norm_forward / layer_norm_backward (double accumulation) on the same inputs: rows of 1, 7,
// 768 and 1,000 features, one row of 2^20, and rows whose mean is large against their spread (the
// two-pass variance). Tolerance 1e-5 relative (absolute below 1), the device tests' fp32 tolerance.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "kernels/cuda/detail/layer_norm_math.hpp"
#include "kernels/host/layer_norm.hpp"
#include "tests/unit/cuda_math_test_support.hpp"

namespace scaletune::kernels::cuda {
namespace {

using test::host_matrix;
using test::host_values;

constexpr std::size_t kThreads = 256;  // the kernels' threads per row

/// sum_c term(c) over [0, cols) in fp32, in the kernels' order: thread t adds c = t, t + 256,
/// ...; the 256 partials are then added pairwise.
float block_sum(std::size_t cols, const std::function<float(std::size_t)>& term) {
  std::vector<float> partial(kThreads, 0.0f);
  for (std::size_t t = 0; t < kThreads; ++t)
    for (std::size_t c = t; c < cols; c += kThreads) partial[t] += term(c);
  for (std::size_t width = kThreads / 2; width > 0; width /= 2)
    for (std::size_t t = 0; t < width; ++t) partial[t] += partial[t + width];
  return partial[0];
}

struct Forward {
  std::vector<float> y, mean, rstd;
};

/// The forward kernel on the host: per row the mean of x - x[0], the variance about it, then y.
Forward kernel_forward(const std::vector<float>& x, const std::vector<float>& gamma,
                       const std::vector<float>& beta, std::size_t rows, std::size_t cols,
                       float eps) {
  Forward out{std::vector<float>(x.size()), std::vector<float>(rows), std::vector<float>(rows)};
  const auto n = static_cast<float>(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + r * cols;
    const float shift = xr[0];
    const float mu = block_sum(cols, [&](std::size_t c) { return xr[c] - shift; }) / n;
    const float sum_sq = block_sum(cols, [&](std::size_t c) {
      const float d = (xr[c] - shift) - mu;
      return d * d;
    });
    const float rstd = detail::layer_norm_rstd(sum_sq, n, eps);
    out.mean[r] = shift + mu;
    out.rstd[r] = rstd;
    for (std::size_t c = 0; c < cols; ++c)
      out.y[r * cols + c] = detail::layer_norm_output(xr[c] - shift, mu, rstd, gamma[c], beta[c]);
  }
  return out;
}

struct Backward {
  std::vector<float> dx, dgamma, dbeta;
};

/// The backward kernels on the host: column sums for dgamma and dbeta, then dx per row.
Backward kernel_backward(const std::vector<float>& x, const std::vector<float>& gamma,
                         const std::vector<float>& dy, const Forward& f, std::size_t rows,
                         std::size_t cols) {
  Backward out{std::vector<float>(x.size()), std::vector<float>(cols), std::vector<float>(cols)};
  const auto n = static_cast<float>(cols);
  for (std::size_t c = 0; c < cols; ++c)
    for (std::size_t r = 0; r < rows; ++r) {
      const float g = dy[r * cols + c];
      out.dgamma[c] += g * detail::layer_norm_xhat(x[r * cols + c], f.mean[r], f.rstd[r]);
      out.dbeta[c] += g;
    }
  for (std::size_t r = 0; r < rows; ++r) {
    const float* xr = x.data() + r * cols;
    const float* dyr = dy.data() + r * cols;
    const float mu = f.mean[r], rs = f.rstd[r];
    const float mean_g = block_sum(cols, [&](std::size_t c) { return dyr[c] * gamma[c]; }) / n;
    const float mean_g_xhat =
        block_sum(cols,
                  [&](std::size_t c) {
                    return dyr[c] * gamma[c] * detail::layer_norm_xhat(xr[c], mu, rs);
                  }) /
        n;
    for (std::size_t c = 0; c < cols; ++c)
      out.dx[r * cols + c] = detail::layer_norm_input_grad(
          dyr[c] * gamma[c], detail::layer_norm_xhat(xr[c], mu, rs), rs, mean_g, mean_g_xhat);
  }
  return out;
}

/// Expects |got - want| <= 1e-5 max(1, |want|) everywhere.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::size_t misses = 0, first = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::abs(double{got[i]} - want[i]) <= 1e-5 * std::max(1.0, std::abs(double{want[i]}))) &&
        misses++ == 0)
      first = i;
  EXPECT_EQ(misses, 0u) << what << ": first at " << first << ": " << got[first] << " vs host "
                        << want[first];
}

struct Shape {
  std::size_t rows, cols;
  float offset;  // added to every x: a mean large against the spread
};

class CudaLayerNormMath : public ::testing::TestWithParam<Shape> {};

TEST_P(CudaLayerNormMath, ForwardAndBackwardMatchHost) {
  const auto [rows, cols, offset] = GetParam();
  std::vector<float> x = test::uniform_values(rows * cols, 1, -1.0f, 1.0f);
  for (float& v : x) v += offset;
  const std::vector<float> gamma = test::uniform_values(cols, 2, 0.5f, 1.5f);
  const std::vector<float> beta = test::uniform_values(cols, 3, -0.5f, 0.5f);
  const std::vector<float> dy = test::uniform_values(rows * cols, 4, -1.0f, 1.0f);
  constexpr float eps = 1e-5f;

  const Tensor2 xt = host_matrix(x, rows, cols), y("y", rows, cols);
  const Vector g("g", cols), b("b", cols), mean("mean", rows), rstd("rstd", rows);
  std::copy(gamma.begin(), gamma.end(), g.data());
  std::copy(beta.begin(), beta.end(), b.data());
  layer_norm_forward(xt, g, b, y, mean, rstd, eps);
  const Forward f = kernel_forward(x, gamma, beta, rows, cols, eps);
  expect_close(f.y, host_values(y), "y");
  expect_close(f.mean, host_values(mean), "mean");
  expect_close(f.rstd, host_values(rstd), "rstd");

  const Tensor2 dx("dx", rows, cols);
  const Vector dgamma("dgamma", cols), dbeta("dbeta", cols);
  layer_norm_backward(xt, g, host_matrix(dy, rows, cols), mean, rstd, dx, dgamma, dbeta);
  const Forward host_stats{{}, host_values(mean), host_values(rstd)};  // as the kernels get them
  const Backward bwd = kernel_backward(x, gamma, dy, host_stats, rows, cols);
  expect_close(bwd.dx, host_values(dx), "dx");
  expect_close(bwd.dgamma, host_values(dgamma), "dgamma");
  expect_close(bwd.dbeta, host_values(dbeta), "dbeta");
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaLayerNormMath,
                         ::testing::Values(Shape{3, 1, 0.0f}, Shape{5, 7, 0.0f},
                                           Shape{16, 768, 0.0f}, Shape{9, 1000, 0.0f},
                                           Shape{4, 768, 100.0f}, Shape{4, 768, 1000.0f},
                                           Shape{1, 1 << 20, 0.0f}, Shape{1, 1 << 20, 10.0f}));

}  // namespace
}  // namespace scaletune::kernels::cuda
