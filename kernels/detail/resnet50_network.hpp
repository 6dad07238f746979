#pragma once
// ResNet-50 v1.5 forward and backward on one rank's batch: stem, 16 bottleneck blocks,
// classifier. Owns the activations and the gradient scratch; parameters are windows into a
// ParameterArena; every op runs on the ledger's backend.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "harness/core/communicator.hpp"
#include "kernels/detail/bottleneck.hpp"
#include "kernels/detail/classifier_head.hpp"
#include "kernels/detail/conv_bn.hpp"
#include "kernels/detail/gradient_scratch.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/detail/resnet50_plan.hpp"
#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::detail {

/// Called during backward with an index of the flat gradient buffer from which on every
/// gradient is final (the index only decreases during one backward; 0 at its end).
using GradientsReady = std::function<void(std::int64_t first_final)>;

/// The whole network for `batch` samples per step. Takes every parameter from the arena in
/// resnet50_layers() order (stem, blocks, classifier: the member order below) and checks that
/// it took them all.
class ResNet50Network {
 public:
  ResNet50Network(const ResNet50Plan& plan, int batch, core::Communicator* sync,
                  ParameterArena& params, ops::MemoryLedger& buffers, ops::DType dtype)
      : m_stem(plan.stem, true, batch, sync, params, buffers, dtype),
        m_pool(buffers.backend().make_max_pool(
            plan.pool.kernel, plan.pool.stride, plan.pool.pad, batch, plan.stem.conv.out_channels,
            plan.stem.conv.out_h(), plan.stem.conv.out_w(), dtype)),
        m_pooled(
            buffers.make("pooled", dtype,
                         {batch, plan.stem.conv.out_channels, plan.pool.out_h, plan.pool.out_w})),
        m_blocks(make_blocks(plan, batch, sync, params, buffers, dtype)),
        m_head(plan.fc, batch, params, buffers, dtype),
        m_scratch(max_activation_elements(), dtype, buffers) {
    params.require_all_taken();
  }

  /// Runs forward to the loss (head().loss(): sum over the samples of -log softmax[label]
  /// times `scale`). images [N, 3, S, S] of the compute type, labels int32 [N].
  void forward(const ops::Tensor& images, const ops::Tensor& labels, float scale,
               float grad_scale) {
    m_stem.forward(images);
    m_pool->forward(m_stem.output(), m_pooled);
    for (std::size_t i = 0; i < m_blocks.size(); ++i) m_blocks[i].forward(block_input(i));
    m_head.forward(m_blocks.back().output(), labels, scale, grad_scale);
  }

  /// Every parameter gradient (overwritten) of the last forward's loss, reporting to `ready`
  /// (may be empty) as gradients become final: after the head, each block and the stem.
  /// images: the forward's.
  void backward(const ops::Tensor& images, const GradientsReady& ready) {
    int d = 0;
    m_head.backward(m_scratch.window(d, m_blocks.back().output()));
    report(ready, m_head.first_parameter());
    for (std::size_t i = m_blocks.size(); i-- > 0;) {
      d = m_blocks[i].backward(block_input(i), m_scratch, d);
      report(ready, m_blocks[i].first_parameter());
    }
    const int d_stem = GradientScratch::free_index({d});
    const int tmp = GradientScratch::free_index({d, d_stem});
    m_pool->backward(m_scratch.window(d, m_pooled), m_scratch.window(d_stem, m_stem.output()));
    m_stem.backward(images, m_scratch.window(d_stem, m_stem.output()),
                    m_scratch.window(tmp, m_stem.output()), ops::Tensor());
    report(ready, 0);
  }

  const ClassifierHead& head() const { return m_head; }

  /// Bytes kept between forward and backward outside the ledger: batch-norm statistics and
  /// the max pool's winners.
  std::int64_t state_bytes() const {
    std::int64_t bytes = m_stem.state_bytes() + m_pool->state_bytes();
    for (const Bottleneck& b : m_blocks) bytes += b.state_bytes();
    return bytes;
  }

 private:
  static std::vector<Bottleneck> make_blocks(const ResNet50Plan& plan, int batch,
                                             core::Communicator* sync, ParameterArena& params,
                                             ops::MemoryLedger& buffers, ops::DType dtype) {
    std::vector<Bottleneck> blocks;
    blocks.reserve(plan.blocks.size());
    for (const BottleneckPlan& b : plan.blocks)
      blocks.emplace_back(b, batch, sync, params, buffers, dtype);
    return blocks;
  }

  static void report(const GradientsReady& ready, std::int64_t first_final) {
    if (ready) ready(first_final);
  }

  const ops::Tensor& block_input(std::size_t i) const {
    return i == 0 ? m_pooled : m_blocks[i - 1].output();
  }

  std::int64_t max_activation_elements() const {
    std::int64_t elements = std::max(m_stem.output().numel(), m_pooled.numel());
    for (const Bottleneck& b : m_blocks) elements = std::max(elements, b.max_activation_elements());
    return elements;
  }

  // Declaration order is construction order is parameter order: keep stem, blocks, head.
  ConvBn m_stem;
  std::unique_ptr<ops::MaxPoolOp> m_pool;
  ops::Tensor m_pooled;
  std::vector<Bottleneck> m_blocks;
  ClassifierHead m_head;
  GradientScratch m_scratch;
};

}  // namespace scaletune::kernels::detail
