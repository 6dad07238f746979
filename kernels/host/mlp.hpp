#pragma once
// A multi-layer perceptron (fully-connected layers with ReLU) whose parameters and gradients
// are windows into flat buffers owned by the caller, so one gradient all-reduce covers them.

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Trainable values of an MLP with layer widths `widths` (widths[0] = input features,
/// widths[i + 1] = outputs of layer i): sum over layers of O * F + O (weight and bias).
/// Throws std::invalid_argument when widths has fewer than 2 entries or one below 1.
std::int64_t mlp_parameter_count(std::span<const int> widths);

/// Forward multiply-adds per sample: sum over layers of O * F. Throws as mlp_parameter_count.
double mlp_macs_per_sample(std::span<const int> widths);

/// Fills `params` ([mlp_parameter_count(widths)] floats, layout of Mlp) as dlrm_s_pytorch.py
/// initialises its MLPs: weight of a layer F -> O normal(0, sqrt(2 / (O + F))), bias
/// normal(0, sqrt(1 / O)), drawn from std::mt19937_64 seeded with `seed`, layer by layer,
/// weight row-major then bias (std::normal_distribution<float>). Throws std::invalid_argument
/// when widths is invalid (as mlp_parameter_count) or params has the wrong length.
void init_mlp_parameters(std::span<const int> widths, std::uint64_t seed, std::span<float> params);

/// An MLP: layer i maps [N, widths[i]] to [N, widths[i+1]] by y = x W^T + b, then ReLU unless it
/// is the last layer and relu_last is false. Parameters (and gradients) are laid out layer by
/// layer, weight [O, F] row-major then bias [O], in caller-owned buffers of
/// mlp_parameter_count(widths) floats. The activations for up to max_batch samples are
/// allocated at construction; forward/backward allocate nothing. All tensors are host,
/// LayoutRight, contiguous.
class Mlp {
 public:
  /// widths: at least 2 entries, each >= 1; params, grads: [mlp_parameter_count(widths)] floats
  /// that outlive the Mlp; max_batch >= 1. Throws std::invalid_argument otherwise,
  /// std::bad_alloc when the activations do not fit.
  Mlp(std::vector<int> widths, bool relu_last, std::span<float> params, std::span<float> grads,
      int max_batch);

  /// Runs x [N, widths[0]] (N <= max_batch; x must stay unchanged until backward) through
  /// every layer; returns the output [N, widths.back()], a view into the MLP's activations that
  /// stays valid until the next forward. Throws std::invalid_argument when x's shape does not
  /// fit.
  Tensor2 forward(const Tensor2& x);

  /// Given dy [N, widths.back()] for the latest forward, overwrites the gradient buffer with
  /// d loss / d params and, when dx.data() != nullptr, dx [N, widths[0]] with d loss / d x.
  /// dy is only read; dx must not alias x or dy. Throws std::invalid_argument when no forward
  /// ran yet or a shape does not match the latest forward.
  void backward(const Tensor2& dy, const Tensor2& dx);

  /// Bytes of the activation buffers this MLP allocated.
  std::int64_t activation_bytes() const;

  /// Bytes Mlp(widths, ..., max_batch) allocates, without making one (for memory estimates):
  /// 4 * max_batch * (sum of widths[1..] + 2 * max of widths[1..]), i.e. every layer's output
  /// plus two gradient buffers for the backward pass. Throws as the constructor on bad input.
  static std::int64_t activation_bytes(std::span<const int> widths, int max_batch);

 private:
  std::vector<int> m_widths;
  bool m_relu_last;
  std::vector<Tensor2> m_weights, m_weight_grads;  ///< [layers] of [O, F], into params / grads
  std::vector<Vector> m_biases, m_bias_grads;      ///< [layers] of [O], into params / grads
  std::vector<Tensor2> m_outputs;                  ///< [layers] of [max_batch, widths[i+1]]
  Vector m_grad_a, m_grad_b;  ///< backward ping-pong buffers, [max_batch * max widths[1..]]
  Tensor2 m_input;            ///< the latest forward's x; [0, 0] before the first forward
  int m_max_batch;

  bool has_relu(std::size_t layer) const;
  const Vector& other_grad_buffer(const Tensor2& grad) const;
};

}  // namespace scaletune::kernels
