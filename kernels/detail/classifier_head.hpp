#pragma once
// The classifier of ResNet: global average pooling, a fully-connected layer with bias, and the
// softmax cross-entropy loss.

#include <cstdint>

#include "kernels/detail/parameter_arena.hpp"
#include "kernels/ops/memory_ledger.hpp"
#include "kernels/resnet50.hpp"

namespace scaletune::kernels::detail {

/// avg-pool -> fc -> loss on a batch of `batch` samples. Takes the fc weight [O, F] then the
/// bias [O] from the arena; the loss accumulates into a fp64 [1] tensor of the backend.
class ClassifierHead {
 public:
  ClassifierHead(const LayerSpec& fc, int batch, ParameterArena& params, ops::MemoryLedger& buffers,
                 ops::DType dtype)
      : m_ops(buffers.backend()) {
    m_weight = params.take({fc.out_channels, fc.in_channels});
    m_bias = params.take({fc.out_channels});
    m_features = buffers.make("features", dtype, {batch, fc.in_channels});
    m_dfeatures = buffers.make("dfeatures", dtype, {batch, fc.in_channels});
    m_logits = buffers.make("logits", dtype, {batch, fc.out_channels});
    m_dlogits = buffers.make("dlogits", dtype, {batch, fc.out_channels});
    m_loss = buffers.make("loss", ops::DType::fp64, {1});
  }

  /// loss() = sum over samples of -log softmax(fc(pool(x)))[label] times `scale` for x
  /// [N, F, H, W] and labels int32 [N]; keeps the logits' gradient (times grad_scale) for
  /// backward.
  void forward(const ops::Tensor& x, const ops::Tensor& labels, float scale, float grad_scale) {
    m_ops.global_avg_pool_forward(x, m_features);
    m_ops.linear_forward(m_features, m_weight.value, m_bias.master, m_logits);
    m_ops.fill(m_loss, 0.0f);
    m_ops.softmax_cross_entropy(m_logits, labels, scale, grad_scale, m_dlogits, m_loss);
  }

  /// Fills the fc gradients and dx [N, F, H, W] (overwritten), the gradient of forward's x.
  void backward(const ops::Tensor& dx) {
    m_ops.linear_backward(m_features, m_weight.value, m_dlogits, m_weight.master_grad,
                          m_bias.master_grad, m_dfeatures, ops::GradMode::overwrite);
    m_ops.global_avg_pool_backward(m_dfeatures, dx);
  }

  /// fp64 [1]: the loss of the last forward.
  const ops::Tensor& loss() const { return m_loss; }
  /// Index of its first parameter (the fc weight) in the flat buffers.
  std::int64_t first_parameter() const { return m_weight.offset; }

 private:
  ops::Backend& m_ops;
  ParamWindow m_weight, m_bias;
  ops::Tensor m_features, m_dfeatures;
  ops::Tensor m_logits, m_dlogits;
  ops::Tensor m_loss;
};

}  // namespace scaletune::kernels::detail
