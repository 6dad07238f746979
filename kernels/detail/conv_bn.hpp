#pragma once
// A convolution, its batch normalisation and optionally a ReLU: the unit ResNet is built from.

#include <cstdint>
#include <memory>

#include "harness/core/communicator.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::detail {

/// The ops' convolution geometry of a convolution layer.
inline ops::ConvGeometry conv_geometry(const LayerSpec& conv) {
  return ops::ConvGeometry{conv.in_channels, conv.out_channels, conv.kernel, conv.stride,
                           conv.pad,         conv.in_h,         conv.in_w};
}

/// conv -> batch norm (-> ReLU) on a batch of `batch` samples of the compute type. Holds its
/// weight windows (taken from the arena in the order conv weight, gamma, beta: gamma and beta
/// in fp32) and the tensors backward needs: the convolution output (batch-norm input) and the
/// unit's output.
class ConvBn {
 public:
  /// `sync`: the data-parallel group for synchronised batch norm, or nullptr.
  ConvBn(const ConvBnPlan& plan, bool relu, int batch, core::Communicator* sync,
         ParameterArena& params, ops::MemoryLedger& buffers, ops::DType dtype)
      : m_ops(buffers.backend()),
        m_conv(m_ops.make_conv2d(conv_geometry(plan.conv), batch, dtype)),
        m_bn(m_ops.make_batch_norm(batch, plan.bn.in_channels, plan.conv.out_h(), plan.conv.out_w(),
                                   1e-5f, sync, dtype)),
        m_relu(relu) {
    const LayerSpec& c = plan.conv;
    m_weight = params.take({c.out_channels, c.in_channels, c.kernel, c.kernel});
    m_gamma = params.take({plan.bn.in_channels});
    m_beta = params.take({plan.bn.in_channels});
    m_conv_out = buffers.make(c.name, dtype, {batch, c.out_channels, c.out_h(), c.out_w()});
    m_out = buffers.make(plan.bn.name, dtype, {batch, c.out_channels, c.out_h(), c.out_w()});
  }

  /// [N, K, Ho, Wo]: the unit's output of the last forward (callers may add a residual to it
  /// in place before the next backward).
  const ops::Tensor& output() const { return m_out; }
  /// Bytes the batch norm keeps between forward and backward.
  std::int64_t state_bytes() const { return m_bn->state_bytes(); }
  /// Index of its first parameter (the conv weight) in the flat buffers.
  std::int64_t first_parameter() const { return m_weight.offset; }

  /// output = [relu](bn(conv(x))). x [N, C, H, W].
  void forward(const ops::Tensor& x) {
    m_conv->forward(x, m_weight.value, m_conv_out);
    m_bn->forward(m_conv_out, m_gamma.master, m_beta.master, m_out);
    if (m_relu) m_ops.relu_forward(m_out, m_out);
  }

  /// Weight, gamma and beta gradients (overwritten, fp32) and dx (overwritten; skipped when
  /// "none") from dy, the gradient of output(). With ReLU dy is masked in place.
  /// scratch: [N, K, Ho, Wo], may alias dy when the caller no longer needs dy.
  void backward(const ops::Tensor& x, const ops::Tensor& dy, const ops::Tensor& scratch,
                const ops::Tensor& dx) {
    if (m_relu) m_ops.relu_backward(m_out, dy, dy);
    m_bn->backward(m_conv_out, m_gamma.master, dy, m_gamma.master_grad, m_beta.master_grad,
                   scratch);
    m_conv->backward(x, m_weight.value, scratch, m_weight.grad, dx);
    if (m_weight.grad.dtype() != m_weight.master_grad.dtype())
      m_ops.copy(m_weight.grad, m_weight.master_grad);
  }

 private:
  ops::Backend& m_ops;
  std::unique_ptr<ops::Conv2dOp> m_conv;
  std::unique_ptr<ops::BatchNormOp> m_bn;
  bool m_relu;
  ParamWindow m_weight, m_gamma, m_beta;
  ops::Tensor m_conv_out;
  ops::Tensor m_out;
};

}  // namespace scaletune::kernels::detail
