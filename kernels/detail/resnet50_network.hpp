#pragma once
// ResNet-50 v1.5 forward and backward on one rank's batch: stem, 16 bottleneck blocks,
// classifier. Owns the activations, the gradient scratch and the convolution workspace;
// parameters are windows into a ParameterArena.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/core/communicator.hpp"
#include "kernels/detail/bottleneck.hpp"
#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/detail/classifier_head.hpp"
#include "kernels/detail/conv_bn.hpp"
#include "kernels/detail/gradient_scratch.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/host/pooling.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// The whole network for `batch` samples per step. Takes every parameter from the arena in
/// resnet50_layers() order (stem, blocks, classifier: the member order below) and checks that
/// it took them all.
class ResNet50Network {
 public:
  ResNet50Network(const ResNet50Plan& plan, int batch, core::Communicator* sync,
                  ParameterArena& params, BufferLedger& buffers)
      : m_stem(plan.stem, true, batch, sync, params, buffers),
        m_pool(plan.pool.kernel, plan.pool.stride, plan.pool.pad),
        m_pooled(buffers.make<Tensor4>("resnet50_pooled", batch, plan.stem.conv.out_channels,
                                       plan.pool.out_h, plan.pool.out_w)),
        m_blocks(make_blocks(plan, batch, sync, params, buffers)),
        m_head(plan.fc, batch, params, buffers),
        m_scratch(max_activation_floats(), buffers),
        m_workspace(buffers.make<Vector>("resnet50_conv_workspace", workspace_floats())) {
    params.require_all_taken();
  }

  /// Loss share of this batch: sum over its samples of -log softmax[label] times `scale`.
  /// images [N, 3, S, S], labels [N].
  double forward(const Tensor4& images, const Labels& labels, float scale) {
    m_stem.forward(images, m_workspace);
    m_pool.forward(m_stem.output(), m_pooled);
    for (std::size_t i = 0; i < m_blocks.size(); ++i)
      m_blocks[i].forward(block_input(i), m_workspace);
    return m_head.forward(m_blocks.back().output(), labels, scale);
  }

  /// Every parameter gradient (overwritten) of the last forward's loss. images: the forward's.
  void backward(const Tensor4& images) {
    int d = 0;
    m_head.backward(m_scratch.window(d, m_blocks.back().output()));
    for (std::size_t i = m_blocks.size(); i-- > 0;)
      d = m_blocks[i].backward(block_input(i), m_scratch, d, m_workspace);
    const int d_stem = GradientScratch::free_index({d});
    const int tmp = GradientScratch::free_index({d, d_stem});
    m_pool.backward(m_scratch.window(d, m_pooled), m_scratch.window(d_stem, m_stem.output()));
    m_stem.backward(images, m_scratch.window(d_stem, m_stem.output()),
                    m_scratch.window(tmp, m_stem.output()), Tensor4(), m_workspace);
  }

  /// Bytes kept between forward and backward outside the ledger: batch-norm statistics and
  /// the max pool's argmax (one int32 per pooled output, pooling.hpp).
  std::int64_t state_bytes() const {
    std::int64_t bytes = m_stem.state_bytes();
    for (const Bottleneck& b : m_blocks) bytes += b.state_bytes();
    return bytes + static_cast<std::int64_t>(m_pooled.size() * sizeof(std::int32_t));
  }

 private:
  static std::vector<Bottleneck> make_blocks(const ResNet50Plan& plan, int batch,
                                             core::Communicator* sync, ParameterArena& params,
                                             BufferLedger& buffers) {
    std::vector<Bottleneck> blocks;
    blocks.reserve(plan.blocks.size());
    for (const BottleneckPlan& b : plan.blocks)
      blocks.emplace_back(b, batch, sync, params, buffers);
    return blocks;
  }

  const Tensor4& block_input(std::size_t i) const {
    return i == 0 ? m_pooled : m_blocks[i - 1].output();
  }

  std::size_t max_activation_floats() const {
    std::size_t floats = std::max(m_stem.output().size(), m_pooled.size());
    for (const Bottleneck& b : m_blocks) floats = std::max(floats, b.max_activation_floats());
    return floats;
  }

  std::size_t workspace_floats() const {
    std::size_t floats = m_stem.workspace_floats();
    for (const Bottleneck& b : m_blocks) floats = std::max(floats, b.workspace_floats());
    return floats;
  }

  // Declaration order is construction order is parameter order: keep stem, blocks, head.
  ConvBn m_stem;
  MaxPool2d m_pool;
  Tensor4 m_pooled;
  std::vector<Bottleneck> m_blocks;
  ClassifierHead m_head;
  GradientScratch m_scratch;
  Vector m_workspace;
};

}  // namespace scaletune::kernels::detail
