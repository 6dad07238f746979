#pragma once
// Ops that keep state between their forward and backward calls (a convolution's algorithms and
// descriptors, batch-norm statistics, max-pool winners, attention probabilities). A backend
// makes them for one shape; the workload calls forward, then backward, every step.

#include <cstdint>

#include "kernels/ops/tensor.hpp"

namespace scaletune::ops {

/// A 2-D convolution without bias for one geometry and batch (Backend::make_conv2d). Tensors:
/// x [N, C, H, W], w [K, C, R, S], y and dy [N, K, Ho, Wo], all of the op's element type
/// (fp32; fp16 or bf16 on CUDA), in the backend's memory. Asynchronous on the backend's
/// stream.
class Conv2dOp {
 public:
  virtual ~Conv2dOp() = default;
  /// y = conv(x, w), overwritten.
  virtual void forward(const Tensor& x, const Tensor& w, const Tensor& y) = 0;
  /// dw = weight gradient summed over the batch (overwritten); dx = input gradient
  /// (overwritten; skipped when dx is "none": the first layer).
  virtual void backward(const Tensor& x, const Tensor& w, const Tensor& dy, const Tensor& dw,
                        const Tensor& dx) = 0;
};

/// Training-mode batch normalisation over (N, H, W) per channel (Ioffe & Szegedy 2015,
/// Algorithm 1), biased variance (Backend::make_batch_norm). x, y, dy, dx [N, C, H, W] of the
/// activation type; gamma, beta, dgamma, dbeta [C] fp32. Keeps the batch statistics of the last
/// forward for backward. With a synchronising communicator the statistics are over the global
/// batch (every rank of the group makes the same calls).
class BatchNormOp {
 public:
  virtual ~BatchNormOp() = default;
  /// y = gamma * (x - mean) / sqrt(var + eps) + beta. y must not alias x.
  virtual void forward(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                       const Tensor& y) = 0;
  /// dgamma = sum dy * xhat, dbeta = sum dy over this rank's batch (overwritten); dx
  /// overwritten (may alias dy). Needs the x of the last forward.
  virtual void backward(const Tensor& x, const Tensor& gamma, const Tensor& dy,
                        const Tensor& dgamma, const Tensor& dbeta, const Tensor& dx) = 0;
  /// Bytes the op keeps between calls (statistics, sums), allocated at construction.
  virtual std::int64_t state_bytes() const = 0;
};

/// Max pooling, square window, -inf padding, ties to the first maximum in row-major window
/// order (Backend::make_max_pool). x, dx [N, C, H, W]; y, dy [N, C, Ho, Wo].
class MaxPoolOp {
 public:
  virtual ~MaxPoolOp() = default;
  /// y = max over each window of x; remembers the winners (or where x and y are).
  virtual void forward(const Tensor& x, const Tensor& y) = 0;
  /// dx = zeros plus each dy added at its output's winner (overwritten). The x and y of the
  /// latest forward must still hold their values (the CUDA backend's cuDNN pooling finds the
  /// winners again from them rather than storing them).
  virtual void backward(const Tensor& dy, const Tensor& dx) = 0;
  /// Bytes the op keeps between calls (the winners).
  virtual std::int64_t state_bytes() const = 0;
};

/// Multi-head causal self-attention core (Vaswani et al. 2017, eq. 1, with GPT-2's causal
/// mask) for up to `max_batch` samples (Backend::make_attention): out[b, h] = P v[b, h] with
/// P = causal_softmax(q[b, h] k[b, h]^T / sqrt(Dh)). q, k, v, out, dout, dq, dk, dv
/// [B, heads, S, Dh] of the activation type, B <= max_batch. Owns the probabilities between
/// forward and backward and its scratch.
class AttentionOp {
 public:
  virtual ~AttentionOp() = default;
  /// out overwritten; must not alias q, k or v.
  virtual void forward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out) = 0;
  /// dq, dk, dv overwritten from dout, for the q, k, v of the latest forward.
  virtual void backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& dout,
                        const Tensor& dq, const Tensor& dk, const Tensor& dv) = 0;
  /// Bytes of the probabilities and scratch it allocated.
  virtual std::int64_t workspace_bytes() const = 0;
};

}  // namespace scaletune::ops
