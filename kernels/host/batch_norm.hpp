#pragma once
// Training-mode 2-D batch normalisation, optionally synchronised over the data-parallel group.

#include <array>
#include <cstdint>
#include <vector>

#include "harness/core/communicator.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Training-mode batch normalisation over (N,H,W) per channel (Ioffe & Szegedy 2015, "Batch
/// Normalization", Algorithm 1), biased variance, eps 1e-5.
/// With `sync` non-null the statistics are over the global batch: per-channel sums are
/// all-reduced (core::Communicator::all_reduce_sum(std::span<double>)) in forward and backward,
/// as in PyTorch SyncBatchNorm; `sync` must then be the data-parallel group.
/// Forward all-reduces [sum x (C), sum x^2 (C), count (1)], backward [sum dy (C), sum dy*xhat
/// (C)], all doubles; every rank of the group must make the same calls in the same order.
class BatchNorm2d {
 public:
  /// `channels` >= 1 (std::invalid_argument otherwise); `sync` is not owned and must outlive
  /// this object; eps > 0 is added to the variance.
  BatchNorm2d(int channels, core::Communicator* sync = nullptr, float eps = 1e-5f);

  /// y = gamma * (x - mean) / sqrt(var + eps) + beta, mean and biased var per channel over
  /// (N,H,W) (over the global batch with sync). x, y [N,C,H,W]; gamma, beta [C]; all host.
  /// Keeps mean and inverse std for backward. y must not alias x. Throws std::invalid_argument
  /// on a wrong shape or aliasing, std::domain_error when the (global) batch is empty.
  void forward(const Tensor4& x, const Vector& gamma, const Vector& beta, const Tensor4& y);

  /// dgamma[c] = sum dy*xhat, dbeta[c] = sum dy (sums over this rank's batch; overwritten).
  /// dx = gamma*invstd*(dy - sum_dy/M - xhat*sum_dy_xhat/M), overwritten, where the sums and
  /// M (element count per channel) are global with sync and local without (Ioffe & Szegedy
  /// 2015, section 3, chain rule). Needs the x of the last forward; x, dy, dx [N,C,H,W],
  /// gamma, dgamma, dbeta [C]. dx may alias dy. Throws std::invalid_argument on a wrong shape,
  /// std::logic_error when forward has not run on a batch of this shape.
  void backward(const Tensor4& x, const Vector& gamma, const Tensor4& dy, const Vector& dgamma,
                const Vector& dbeta, const Tensor4& dx);

  /// Bytes this object holds: per-channel mean, inverse std and the sums of forward and
  /// backward ((4C + 1) doubles), all allocated at construction.
  std::int64_t state_bytes() const;

 private:
  int m_channels;
  core::Communicator* m_sync;
  float m_eps;
  std::vector<double> m_mean;                    // [C], of the last forward's (global) batch
  std::vector<double> m_invstd;                  // [C], 1/sqrt(var + eps)
  std::vector<double> m_sums;                    // [2C+1] per-channel sums, allocated once
  double m_count = 0.0;                          // M: elements per channel; 0 before a forward
  std::array<std::size_t, 4> m_forward_shape{};  // [N,C,H,W] of the last forward's x
};

}  // namespace scaletune::kernels
