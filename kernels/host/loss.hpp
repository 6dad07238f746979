#pragma once
// Softmax and binary cross-entropy losses and their gradients with respect to the logits.

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Softmax cross-entropy, numerically stable (max subtracted; log-sum-exp in double).
/// Returns sum over this rank's samples of -log softmax(logits)[label] times `scale`;
/// dlogits = (softmax - onehot(label)) * scale (overwritten). scale = 1/global_batch makes the
/// data-parallel sum of gradients equal the gradient of the mean loss over the global batch.
/// logits, dlogits [N,K], labels [N] with values in [0, K); host. dlogits may alias logits.
/// Throws std::invalid_argument on a wrong shape or a label outside [0, K) (naming the sample).
double softmax_cross_entropy(const Tensor2& logits, const Labels& labels, float scale,
                             const Tensor2& dlogits);

/// Binary cross-entropy on logits (torch.nn.BCEWithLogitsLoss with reduction "sum", times
/// `scale`), numerically stable: loss_n = max(x, 0) - x y + log(1 + exp(-|x|)) in double.
/// Returns scale * sum_n loss_n; dlogits[n, 0] = (sigmoid(x_n) - y_n) * scale (overwritten).
/// logits, dlogits [N, 1]; labels [N], each 0 or 1 (floats); dlogits may alias logits.
/// Throws std::invalid_argument on a wrong shape or a label other than 0 or 1 (naming the
/// sample).
double binary_cross_entropy_with_logits(const Tensor2& logits, const Vector& labels, float scale,
                                        const Tensor2& dlogits);

}  // namespace scaletune::kernels
