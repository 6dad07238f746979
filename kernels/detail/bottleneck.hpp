#pragma once
// The bottleneck block of ResNet-50 (He et al. 2016, Fig. 5 right): 1x1 reduce, 3x3, 1x1
// expand, plus the shortcut (identity or 1x1 projection), added, then ReLU.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "harness/core/communicator.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/detail/conv_bn.hpp"
#include "kernels/detail/gradient_scratch.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/host/activation.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// One bottleneck block on a batch of `batch` samples. Parameters are taken in torchvision's
/// order: reduce, spatial, expand, then the projection.
class Bottleneck {
 public:
  Bottleneck(const BottleneckPlan& plan, int batch, core::Communicator* sync,
             ParameterArena& params, BufferLedger& buffers)
      : m_reduce(plan.reduce, true, batch, sync, params, buffers),
        m_spatial(plan.spatial, true, batch, sync, params, buffers),
        m_expand(plan.expand, false, batch, sync, params, buffers) {
    if (plan.projection)
      m_projection.emplace(*plan.projection, false, batch, sync, params, buffers);
  }

  /// [N, 4 mid, Ho, Wo]: relu(expand + shortcut) of the last forward.
  const Tensor4& output() const { return m_expand.output(); }

  /// Largest workspace of its convolutions, floats.
  std::size_t workspace_floats() const {
    std::size_t ws = std::max(
        {m_reduce.workspace_floats(), m_spatial.workspace_floats(), m_expand.workspace_floats()});
    return m_projection ? std::max(ws, m_projection->workspace_floats()) : ws;
  }

  /// Largest activation the block holds (its units' outputs), floats.
  std::size_t max_activation_floats() const {
    return std::max({m_reduce.output().size(), m_spatial.output().size(), output().size()});
  }

  /// Bytes its batch norms keep between forward and backward.
  std::int64_t state_bytes() const {
    return m_reduce.state_bytes() + m_spatial.state_bytes() + m_expand.state_bytes() +
           (m_projection ? m_projection->state_bytes() : 0);
  }

  /// output = relu(expand(spatial(reduce(x))) + shortcut(x)). x [N, C, H, W].
  void forward(const Tensor4& x, const Vector& ws) {
    m_reduce.forward(x, ws);
    m_spatial.forward(m_reduce.output(), ws);
    m_expand.forward(m_spatial.output(), ws);
    if (m_projection) {
      m_projection->forward(x, ws);
      add_inplace(output(), m_projection->output());
    } else {
      add_inplace(output(), x);
    }
    relu_forward(output(), output());
  }

  /// Backward from the gradient of output() held in scratch buffer `d_out` (overwritten);
  /// fills the parameter gradients and returns the index of the scratch buffer that then holds
  /// the gradient of x. x: the input of the last forward.
  int backward(const Tensor4& x, const GradientScratch& s, int d_out, const Vector& ws) {
    const Tensor4 d_sum = s.window(d_out, output());
    relu_backward(output(), d_sum, d_sum);
    const int tmp = GradientScratch::free_index({d_out});
    const int d_mid = GradientScratch::free_index({d_out, tmp});
    m_expand.backward(m_spatial.output(), d_sum, s.window(tmp, output()),
                      s.window(d_mid, m_spatial.output()), ws);
    int d_short = d_out;
    if (m_projection) {
      d_short = GradientScratch::free_index({d_out, tmp, d_mid});
      m_projection->backward(x, d_sum, s.window(tmp, output()), s.window(d_short, x), ws);
    }
    const int d_red = GradientScratch::free_index({d_short, tmp, d_mid});
    m_spatial.backward(m_reduce.output(), s.window(d_mid, m_spatial.output()),
                       s.window(tmp, m_spatial.output()), s.window(d_red, m_reduce.output()), ws);
    const int d_in = GradientScratch::free_index({d_short, tmp, d_red});
    m_reduce.backward(x, s.window(d_red, m_reduce.output()), s.window(tmp, m_reduce.output()),
                      s.window(d_in, x), ws);
    add_inplace(s.window(d_in, x), s.window(d_short, x));
    return d_in;
  }

 private:
  ConvBn m_reduce;
  ConvBn m_spatial;
  ConvBn m_expand;
  std::optional<ConvBn> m_projection;
};

}  // namespace scaletune::kernels::detail
