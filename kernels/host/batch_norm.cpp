#include "batch_norm.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

constexpr const char* kForward = "BatchNorm2d::forward";
constexpr const char* kBackward = "BatchNorm2d::backward";

/// Calls body(n, h, w) for every element of one channel of a [N,C,H,W] tensor, W innermost.
template <class Body>
inline void for_each_in_channel(const Tensor4& t, const Body& body) {
  for (std::size_t n = 0; n < t.extent(0); ++n)
    for (std::size_t h = 0; h < t.extent(2); ++h)
      for (std::size_t w = 0; w < t.extent(3); ++w) body(n, h, w);
}

/// sums = [sum x (C), sum x^2 (C), count (1)] over (N,H,W), accumulated in double.
void channel_moments(const Tensor4& x, std::vector<double>& sums) {
  const std::size_t channels = x.extent(1);
  double* out = sums.data();
  Kokkos::parallel_for("batch_norm_moments", detail::host_range(channels), [=](std::size_t c) {
    double sum = 0.0;
    double sum_sq = 0.0;
    for_each_in_channel(x, [&](std::size_t n, std::size_t h, std::size_t w) {
      const double v = x(n, c, h, w);
      sum += v;
      sum_sq += v * v;
    });
    out[c] = sum;
    out[channels + c] = sum_sq;
  });
  sums[2 * channels] = static_cast<double>(x.extent(0) * x.extent(2) * x.extent(3));
}

/// sums[0, 2C) = [sum dy (C), sum dy*xhat (C)] over (N,H,W) with xhat = (x - mean) * invstd,
/// in double.
void channel_gradient_sums(const Tensor4& x, const Tensor4& dy, const std::vector<double>& mean,
                           const std::vector<double>& invstd, std::vector<double>& sums) {
  const std::size_t channels = x.extent(1);
  double* out = sums.data();
  const double* mean_c = mean.data();
  const double* invstd_c = invstd.data();
  Kokkos::parallel_for("batch_norm_grad_sums", detail::host_range(channels), [=](std::size_t c) {
    double sum_dy = 0.0;
    double sum_dy_xhat = 0.0;
    for_each_in_channel(x, [&](std::size_t n, std::size_t h, std::size_t w) {
      const double g = dy(n, c, h, w);
      sum_dy += g;
      sum_dy_xhat += g * (x(n, c, h, w) - mean_c[c]) * invstd_c[c];
    });
    out[c] = sum_dy;
    out[channels + c] = sum_dy_xhat;
  });
}

std::array<std::size_t, 4> shape_of(const Tensor4& t) {
  return {t.extent(0), t.extent(1), t.extent(2), t.extent(3)};
}

}  // namespace

BatchNorm2d::BatchNorm2d(int channels, core::Communicator* sync, float eps)
    : m_channels(channels), m_sync(sync), m_eps(eps) {
  if (channels < 1)
    throw std::invalid_argument("BatchNorm2d: channels is " + std::to_string(channels) +
                                ", expected >= 1");
  if (!(eps > 0.0f))
    throw std::invalid_argument("BatchNorm2d: eps is " + std::to_string(eps) + ", expected > 0");
  const auto c = static_cast<std::size_t>(channels);
  m_mean.assign(c, 0.0);
  m_invstd.assign(c, 0.0);
  m_sums.assign(2 * c + 1, 0.0);
}

void BatchNorm2d::forward(const Tensor4& x, const Vector& gamma, const Vector& beta,
                          const Tensor4& y) {
  const std::size_t channels = static_cast<std::size_t>(m_channels);
  const std::size_t n = x.extent(0);
  const std::size_t h = x.extent(2);
  const std::size_t w = x.extent(3);
  detail::require_shape(kForward, "x", x, {n, channels, h, w});
  detail::require_shape(kForward, "gamma", gamma, {channels});
  detail::require_shape(kForward, "beta", beta, {channels});
  detail::require_shape(kForward, "y", y, {n, channels, h, w});
  detail::require_distinct(kForward, "x", x, "y", y);

  std::vector<double>& sums = m_sums;
  channel_moments(x, sums);
  Kokkos::fence();  // the sums are read on the host next
  if (m_sync != nullptr) m_sync->all_reduce_sum(std::span<double>(sums));
  const double count = sums[2 * channels];
  if (!(count > 0.0))
    throw std::domain_error(std::string(kForward) + ": the batch has no elements (N*H*W = 0)");
  m_count = count;
  for (std::size_t c = 0; c < channels; ++c) {
    m_mean[c] = sums[c] / m_count;
    const double var = std::max(sums[channels + c] / m_count - m_mean[c] * m_mean[c], 0.0);
    m_invstd[c] = 1.0 / std::sqrt(var + static_cast<double>(m_eps));
  }
  m_forward_shape = shape_of(x);

  const double* mean = m_mean.data();
  const double* invstd = m_invstd.data();
  Kokkos::parallel_for("batch_norm_forward", detail::host_range(channels), [=](std::size_t c) {
    const auto mean_c = static_cast<float>(mean[c]);
    const auto scale = static_cast<float>(gamma(c) * invstd[c]);
    const float shift = beta(c);
    for_each_in_channel(x, [&](std::size_t b, std::size_t i, std::size_t j) {
      y(b, c, i, j) = (x(b, c, i, j) - mean_c) * scale + shift;
    });
  });
}

void BatchNorm2d::backward(const Tensor4& x, const Vector& gamma, const Tensor4& dy,
                           const Vector& dgamma, const Vector& dbeta, const Tensor4& dx) {
  const std::size_t channels = static_cast<std::size_t>(m_channels);
  if (m_count == 0.0 || shape_of(x) != m_forward_shape)
    throw std::logic_error(std::string(kBackward) + ": x is " + detail::shape_string(x, 4) +
                           " but forward has not run on a batch of that shape");
  const std::size_t n = x.extent(0);
  const std::size_t h = x.extent(2);
  const std::size_t w = x.extent(3);
  detail::require_shape(kBackward, "gamma", gamma, {channels});
  detail::require_shape(kBackward, "dy", dy, {n, channels, h, w});
  detail::require_shape(kBackward, "dgamma", dgamma, {channels});
  detail::require_shape(kBackward, "dbeta", dbeta, {channels});
  detail::require_shape(kBackward, "dx", dx, {n, channels, h, w});

  // The first 2C of the forward's sums are reused: both are [C] sums in double.
  std::span<double> sums(m_sums.data(), 2 * channels);
  channel_gradient_sums(x, dy, m_mean, m_invstd, m_sums);
  Kokkos::fence();  // the sums are read on the host next
  for (std::size_t c = 0; c < channels; ++c) {
    dbeta(c) = static_cast<float>(sums[c]);
    dgamma(c) = static_cast<float>(sums[channels + c]);
  }
  if (m_sync != nullptr) m_sync->all_reduce_sum(sums);

  const double* sum = sums.data();
  const double* mean = m_mean.data();
  const double* invstd = m_invstd.data();
  const double count = m_count;
  Kokkos::parallel_for("batch_norm_backward", detail::host_range(channels), [=](std::size_t c) {
    // dx = k * (dy - mean_dy - (x - mean) * invstd * mean_dy_xhat), k = gamma * invstd.
    const auto mean_c = static_cast<float>(mean[c]);
    const auto k = static_cast<float>(gamma(c) * invstd[c]);
    const auto mean_dy = static_cast<float>(sum[c] / count);
    const auto slope = static_cast<float>(invstd[c] * sum[channels + c] / count);
    for_each_in_channel(x, [&](std::size_t b, std::size_t i, std::size_t j) {
      dx(b, c, i, j) = k * (dy(b, c, i, j) - mean_dy - (x(b, c, i, j) - mean_c) * slope);
    });
  });
}

std::int64_t BatchNorm2d::state_bytes() const {
  const auto doubles = m_mean.size() + m_invstd.size() + m_sums.size();
  return static_cast<std::int64_t>(doubles * sizeof(double));
}

}  // namespace scaletune::kernels
