#pragma once
// Per-element bodies of the loss kernels (loss.hpp), the formulas of the host ops
// (kernels/host/loss.cpp) in fp32 (the host evaluates them in double). The kernels' loss is
// `scale` times the host's terms; the gradient is multiplied by grad_factor = scale *
// grad_scale, where grad_scale is the extra factor of fp16 loss scaling that leaves the loss
// alone.

#include <cmath>
#include <cstdint>

#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// scale * grad_scale, formed in double and rounded once.
inline float loss_grad_factor(float scale, float grad_scale) {
  return static_cast<float>(static_cast<double>(scale) * grad_scale);
}

/// Whether a class label is in [0, classes).
SCALETUNE_HOST_DEVICE inline bool class_label_valid(std::int32_t label, std::int64_t classes) {
  return label >= 0 && label < classes;
}

/// One sample's softmax cross-entropy times scale: (log z + m - logit[label]) * scale with
/// m = max_k logit[k] and z = sum_k exp(logit[k] - m) (the log-sum-exp with the max
/// subtracted).
SCALETUNE_HOST_DEVICE inline float cross_entropy_loss(float sum_exp, float row_max,
                                                      float label_logit, float scale) {
  return (logf(sum_exp) + row_max - label_logit) * scale;
}

/// dlogit[k] = (softmax[k] - onehot[k]) * grad_factor, softmax[k] = exp(logit[k] - m) / z.
SCALETUNE_HOST_DEVICE inline float cross_entropy_grad(float logit, float row_max, float sum_exp,
                                                      bool is_label, float grad_factor) {
  return (expf(logit - row_max) / sum_exp - (is_label ? 1.0f : 0.0f)) * grad_factor;
}

/// Whether a binary label is 0 or 1 (the host accepts nothing else).
SCALETUNE_HOST_DEVICE inline bool binary_label_valid(float y) {
  return y == 0.0f || y == 1.0f;
}

/// One sample's binary cross-entropy on its logit and the gradient with respect to it.
struct BceTerms {
  float loss;  ///< (max(x, 0) - x y + log(1 + exp(-|x|))) * scale
  float grad;  ///< (sigmoid(x) - y) * grad_factor
};

/// BceTerms of logit x and label y, numerically stable as the host: with t = e^-|x| /
/// (1 + e^-|x|) = sigmoid(-|x|), sigmoid(x) - y = (1 - y) - t for x >= 0 and t - y otherwise
/// (no 1 - t, which would round a gradient of e^-100 to 0).
SCALETUNE_HOST_DEVICE inline BceTerms bce_with_logits(float x, float y, float scale,
                                                      float grad_factor) {
  const float e = expf(-fabsf(x));
  const float t = e / (1.0f + e);
  return BceTerms{(fmaxf(x, 0.0f) - x * y + log1pf(e)) * scale,
                  (x >= 0.0f ? (1.0f - y) - t : t - y) * grad_factor};
}

}  // namespace scaletune::kernels::cuda::detail
