#pragma once
// A convolution, its batch normalisation and optionally a ReLU: the unit ResNet is built from.

#include <cstddef>
#include <cstdint>

#include "harness/core/communicator.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/host/activation.hpp"
#include "kernels/host/batch_norm.hpp"
#include "kernels/host/conv2d.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// The ops' convolution geometry of a convolution layer.
inline ConvGeometry conv_geometry(const LayerSpec& conv) {
  return ConvGeometry{conv.in_channels, conv.out_channels, conv.kernel, conv.stride,
                      conv.pad,         conv.in_h,         conv.in_w};
}

/// conv -> batch norm (-> ReLU) on a batch of `batch` samples. Holds its weight windows
/// (taken from the arena in the order conv weight, gamma, beta) and the tensors backward
/// needs: the convolution output (batch-norm input) and the unit's output.
class ConvBn {
 public:
  /// `sync`: the data-parallel group for synchronised batch norm, or nullptr.
  ConvBn(const ConvBnPlan& plan, bool relu, int batch, core::Communicator* sync,
         ParameterArena& params, BufferLedger& buffers)
      : m_conv(conv_geometry(plan.conv)), m_bn(plan.bn.in_channels, sync), m_relu(relu) {
    const LayerSpec& c = plan.conv;
    const auto weight = params.take<Tensor4>(c.out_channels, c.in_channels, c.kernel, c.kernel);
    const auto gamma = params.take<Vector>(plan.bn.in_channels);
    const auto beta = params.take<Vector>(plan.bn.in_channels);
    m_w = weight.value;
    m_dw = weight.grad;
    m_gamma = gamma.value;
    m_dgamma = gamma.grad;
    m_beta = beta.value;
    m_dbeta = beta.grad;
    m_conv_out = buffers.make<Tensor4>(c.name, batch, c.out_channels, c.out_h(), c.out_w());
    m_out = buffers.make<Tensor4>(plan.bn.name, batch, c.out_channels, c.out_h(), c.out_w());
  }

  /// [N, K, Ho, Wo]: the unit's output of the last forward (callers may add a residual to it
  /// in place before the next backward).
  const Tensor4& output() const { return m_out; }
  /// Floats of convolution workspace forward and backward need.
  std::size_t workspace_floats() const { return m_conv.workspace_floats(); }
  /// Bytes the batch norm keeps between forward and backward.
  std::int64_t state_bytes() const { return m_bn.state_bytes(); }

  /// output = [relu](bn(conv(x))). x [N, C, H, W]; ws >= workspace_floats().
  void forward(const Tensor4& x, const Vector& ws) {
    m_conv.forward(x, m_w, m_conv_out, ws);
    m_bn.forward(m_conv_out, m_gamma, m_beta, m_out);
    if (m_relu) relu_forward(m_out, m_out);
  }

  /// Weight, gamma and beta gradients (overwritten) and dx (overwritten; skipped when
  /// dx.data() == nullptr) from dy, the gradient of output(). With ReLU dy is masked in place.
  /// scratch: [N, K, Ho, Wo], may alias dy when the caller no longer needs dy.
  void backward(const Tensor4& x, const Tensor4& dy, const Tensor4& scratch, const Tensor4& dx,
                const Vector& ws) {
    if (m_relu) relu_backward(m_out, dy, dy);
    m_bn.backward(m_conv_out, m_gamma, dy, m_dgamma, m_dbeta, scratch);
    m_conv.backward(x, m_w, scratch, m_dw, dx, ws);
  }

 private:
  Conv2d m_conv;
  BatchNorm2d m_bn;
  bool m_relu;
  Tensor4 m_w, m_dw;
  Vector m_gamma, m_dgamma, m_beta, m_dbeta;
  Tensor4 m_conv_out;
  Tensor4 m_out;
};

}  // namespace scaletune::kernels::detail
