#pragma once
// Per-element and per-channel bodies of the batch-normalisation kernels
// (kernels/cuda/batch_norm.cu), in the formulas of kernels/host/batch_norm.cpp (Ioffe & Szegedy
// 2015, Algorithm 1 with biased variance; backward from the chain rule, section 3):
//   mean = sum x / M, var = max(sum x^2 / M - mean^2, 0), invstd = 1 / sqrt(var + eps),
//   y = (x - mean) * (gamma * invstd) + beta,
//   dx = k * (dy - sum dy / M - (x - mean) * invstd * sum(dy * xhat) / M), k = gamma * invstd.
// The per-channel constants are formed in double from their fp32 inputs, as the host forms them
// from its sums; the per-element updates are fp32, each operation rounded once, in the host's
// order. The sums themselves are fp32 on the device (the host's are double).

#include <cmath>
#include <cstdint>

#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Channel of element `index` of a tensor seen as [outer, channels, inner]: NCHW is
/// [N, C, H * W], NHWC is [N * H * W, C, 1].
template <class Index>
SCALETUNE_HOST_DEVICE inline Index channel_of(Index index, Index channels, Index inner) {
  return (index / inner) % channels;
}

/// A channel's mean and inverse standard deviation.
struct ChannelStatistics {
  float mean;
  float invstd;
};

/// Statistics of a channel from its sums over the (global) batch: sum x, sum x^2, count M >= 1
/// elements, eps > 0. Computed in double (host BatchNorm2d::forward), stored as float.
SCALETUNE_HOST_DEVICE inline ChannelStatistics channel_statistics(float sum, float sum_squares,
                                                                  double count, float eps) {
  const double mean = static_cast<double>(sum) / count;
  double var = static_cast<double>(sum_squares) / count - mean * mean;
  if (var < 0.0) var = 0.0;
  return {static_cast<float>(mean),
          static_cast<float>(1.0 / std::sqrt(var + static_cast<double>(eps)))};
}

/// gamma * invstd of a channel, in double then rounded to float (host: the forward's scale and
/// the backward's k).
SCALETUNE_HOST_DEVICE inline float channel_scale(float gamma, float invstd) {
  return static_cast<float>(static_cast<double>(gamma) * static_cast<double>(invstd));
}

/// The forward's y = (x - mean) * scale + shift, scale = channel_scale, shift = beta.
SCALETUNE_HOST_DEVICE inline float normalize(float x, float mean, float scale, float shift) {
  return add_rn(mul_rn(sub_rn(x, mean), scale), shift);
}

/// xhat = (x - mean) * invstd, the normalised input the backward's sums weigh dy with.
SCALETUNE_HOST_DEVICE inline float normalized_input(float x, float mean, float invstd) {
  return mul_rn(sub_rn(x, mean), invstd);
}

/// The backward's per-channel constants: k = gamma * invstd, mean_dy = sum dy / M and
/// slope = invstd * sum(dy * xhat) / M, each formed in double and rounded to float (host).
struct BackwardCoefficients {
  float k;
  float mean_dy;
  float slope;
};
SCALETUNE_HOST_DEVICE inline BackwardCoefficients backward_coefficients(float gamma, float invstd,
                                                                        float sum_dy,
                                                                        float sum_dy_xhat,
                                                                        double count) {
  return {
      channel_scale(gamma, invstd), static_cast<float>(static_cast<double>(sum_dy) / count),
      static_cast<float>(static_cast<double>(invstd) * static_cast<double>(sum_dy_xhat) / count)};
}

/// dx = k * (dy - mean_dy - (x - mean) * slope), in the host's order.
SCALETUNE_HOST_DEVICE inline float input_gradient(float x, float dy, float mean,
                                                  const BackwardCoefficients& c) {
  return mul_rn(c.k, sub_rn(sub_rn(dy, c.mean_dy), mul_rn(sub_rn(x, mean), c.slope)));
}

/// Elements of one channel an NCHW reduction block sums (a 256-thread block, 32 a thread).
inline constexpr std::int64_t kNchwElementsPerSplit = 8192;
/// Rows (N * H * W positions) an NHWC reduction block sums for each of its 32 channels (8 rows
/// in flight, 32 a thread).
inline constexpr std::int64_t kNhwcRowsPerSplit = 256;
/// Most blocks one channel is split over.
inline constexpr std::int64_t kMaxSplits = 1024;

/// Blocks the per-channel reductions split `elements` (per channel; NHWC: rows) over:
/// ceil(elements / per_split), in [1, kMaxSplits]. Depends on the sizes only, so the summation
/// order (and the result) is the same on every device.
SCALETUNE_HOST_DEVICE inline std::int64_t reduction_splits(std::int64_t elements,
                                                           std::int64_t per_split) {
  const std::int64_t splits = (elements + per_split - 1) / per_split;
  if (splits < 1) return 1;
  return splits < kMaxSplits ? splits : kMaxSplits;
}

}  // namespace scaletune::kernels::cuda::detail
