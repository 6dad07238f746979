#pragma once
// The classifier of ResNet: global average pooling, a fully-connected layer with bias, and the
// softmax cross-entropy loss.

#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/detail/parameter_arena.hpp"
#include "kernels/host/linear.hpp"
#include "kernels/host/loss.hpp"
#include "kernels/host/pooling.hpp"
#include "kernels/host/tensor.hpp"
#include "kernels/resnet50.hpp"

namespace scaletune::kernels::detail {

/// avg-pool -> fc -> loss on a batch of `batch` samples. Takes the fc weight [O, F] then the
/// bias [O] from the arena.
class ClassifierHead {
 public:
  ClassifierHead(const LayerSpec& fc, int batch, ParameterArena& params, BufferLedger& buffers) {
    const auto weight = params.take<Tensor2>(fc.out_channels, fc.in_channels);
    const auto bias = params.take<Vector>(fc.out_channels);
    m_w = weight.value;
    m_dw = weight.grad;
    m_b = bias.value;
    m_db = bias.grad;
    m_features = buffers.make<Tensor2>("resnet50_features", batch, fc.in_channels);
    m_dfeatures = buffers.make<Tensor2>("resnet50_dfeatures", batch, fc.in_channels);
    m_logits = buffers.make<Tensor2>("resnet50_logits", batch, fc.out_channels);
    m_dlogits = buffers.make<Tensor2>("resnet50_dlogits", batch, fc.out_channels);
  }

  /// Loss of x [N, F, H, W] against labels [N]: sum over samples of -log softmax[label] times
  /// `scale`; keeps the logits' gradient for backward.
  double forward(const Tensor4& x, const Labels& labels, float scale) {
    global_avg_pool_forward(x, m_features);
    linear_forward(m_features, m_w, m_b, m_logits);
    return softmax_cross_entropy(m_logits, labels, scale, m_dlogits);
  }

  /// Fills the fc gradients and dx [N, F, H, W] (overwritten), the gradient of forward's x.
  void backward(const Tensor4& dx) {
    linear_backward(m_features, m_w, m_dlogits, m_dw, m_db, m_dfeatures);
    global_avg_pool_backward(m_dfeatures, dx);
  }

 private:
  Tensor2 m_w, m_dw;
  Vector m_b, m_db;
  Tensor2 m_features, m_dfeatures;
  Tensor2 m_logits, m_dlogits;
};

}  // namespace scaletune::kernels::detail
