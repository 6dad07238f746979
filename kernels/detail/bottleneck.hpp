#pragma once
// The bottleneck block of ResNet-50 (He et al. 2016, Fig. 5 right): 1x1 reduce, 3x3, 1x1
// expand, plus the shortcut (identity or 1x1 projection), added, then ReLU.

#include <algorithm>
#include <cstdint>
#include <optional>

#include "harness/core/communicator.hpp"
#include "kernels/detail/conv_bn.hpp"
#include "kernels/detail/gradient_scratch.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::detail {

/// One bottleneck block on a batch of `batch` samples. Parameters are taken in torchvision's
/// order: reduce, spatial, expand, then the projection.
class Bottleneck {
 public:
  Bottleneck(const BottleneckPlan& plan, int batch, core::Communicator* sync,
             ParameterArena& params, ops::MemoryLedger& buffers, ops::DType dtype)
      : m_ops(buffers.backend()),
        m_reduce(plan.reduce, true, batch, sync, params, buffers, dtype),
        m_spatial(plan.spatial, true, batch, sync, params, buffers, dtype),
        m_expand(plan.expand, false, batch, sync, params, buffers, dtype) {
    if (plan.projection)
      m_projection.emplace(*plan.projection, false, batch, sync, params, buffers, dtype);
  }

  /// [N, 4 mid, Ho, Wo]: relu(expand + shortcut) of the last forward.
  const ops::Tensor& output() const { return m_expand.output(); }

  /// Largest activation the block holds (its units' outputs), elements.
  std::int64_t max_activation_elements() const {
    return std::max({m_reduce.output().numel(), m_spatial.output().numel(), output().numel()});
  }

  /// Bytes its batch norms keep between forward and backward.
  std::int64_t state_bytes() const {
    return m_reduce.state_bytes() + m_spatial.state_bytes() + m_expand.state_bytes() +
           (m_projection ? m_projection->state_bytes() : 0);
  }

  /// Index of its first parameter in the flat buffers: the block's gradients are final from
  /// there on once backward returns.
  std::int64_t first_parameter() const { return m_reduce.first_parameter(); }

  /// output = relu(expand(spatial(reduce(x))) + shortcut(x)). x [N, C, H, W].
  void forward(const ops::Tensor& x) {
    m_reduce.forward(x);
    m_spatial.forward(m_reduce.output());
    m_expand.forward(m_spatial.output());
    if (m_projection) {
      m_projection->forward(x);
      m_ops.add(m_projection->output(), output());
    } else {
      m_ops.add(x, output());
    }
    m_ops.relu_forward(output(), output());
  }

  /// Backward from the gradient of output() held in scratch buffer `d_out` (overwritten);
  /// fills the parameter gradients and returns the index of the scratch buffer that then holds
  /// the gradient of x. x: the input of the last forward.
  int backward(const ops::Tensor& x, const GradientScratch& s, int d_out) {
    const ops::Tensor d_sum = s.window(d_out, output());
    m_ops.relu_backward(output(), d_sum, d_sum);
    const int tmp = GradientScratch::free_index({d_out});
    const int d_mid = GradientScratch::free_index({d_out, tmp});
    m_expand.backward(m_spatial.output(), d_sum, s.window(tmp, output()),
                      s.window(d_mid, m_spatial.output()));
    int d_short = d_out;
    if (m_projection) {
      d_short = GradientScratch::free_index({d_out, tmp, d_mid});
      m_projection->backward(x, d_sum, s.window(tmp, output()), s.window(d_short, x));
    }
    const int d_red = GradientScratch::free_index({d_short, tmp, d_mid});
    m_spatial.backward(m_reduce.output(), s.window(d_mid, m_spatial.output()),
                       s.window(tmp, m_spatial.output()), s.window(d_red, m_reduce.output()));
    const int d_in = GradientScratch::free_index({d_short, tmp, d_red});
    m_reduce.backward(x, s.window(d_red, m_reduce.output()), s.window(tmp, m_reduce.output()),
                      s.window(d_in, x));
    m_ops.add(s.window(d_short, x), s.window(d_in, x));
    return d_in;
  }

 private:
  ops::Backend& m_ops;
  ConvBn m_reduce;
  ConvBn m_spatial;
  ConvBn m_expand;
  std::optional<ConvBn> m_projection;
};

}  // namespace scaletune::kernels::detail
