#pragma once
// DLRM's multi-layer perceptrons (fully-connected layers with ReLU) on the op layer, whose
// parameters and gradients are windows into the model's flat buffers, so one gradient
// all-reduce and one optimizer update cover both MLPs.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kernels/ops/memory_ledger.hpp"

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

/// An MLP's parameter windows, each [mlp_parameter_count(widths)] in the backend's memory.
struct MlpParameters {
  /// In the compute type (the element type of the MLP's activations): the weights GEMMs read.
  ops::Tensor values;
  /// fp32 master values (the biases are read from here); `values` itself under fp32.
  ops::Tensor master;
  /// fp32 gradients, overwritten by backward.
  ops::Tensor grads;
  /// Index of the first value in the model's flat buffers (what backward reports).
  std::int64_t offset = 0;
};

/// Called during backward with the index (in the model's flat buffers) from which on every
/// gradient is final; may be empty.
using GradientsReady = std::function<void(std::int64_t first_final)>;

/// An MLP: layer i maps [N, widths[i]] to [N, widths[i+1]] by y = x W^T + b, then ReLU unless it
/// is the last layer and relu_last is false. Parameters (and gradients) are laid out layer by
/// layer, weight [O, F] row-major then bias [O]. The activations for up to max_batch samples
/// (in the compute type) are made through the ledger at construction; forward and backward
/// allocate nothing. Every tensor is in the ledger's backend's memory.
class Mlp {
 public:
  /// widths: at least 2 entries, each >= 1; params: windows that outlive the Mlp; max_batch
  /// >= 1. Throws std::invalid_argument otherwise, std::bad_alloc (core::MemoryBudgetExceeded
  /// past the ledger's budget) when the activations do not fit.
  Mlp(std::vector<int> widths, bool relu_last, const MlpParameters& params,
      ops::MemoryLedger& ledger, int max_batch);

  /// Runs x [N, widths[0]] of the compute type (N <= max_batch; x must stay unchanged until
  /// backward) through every layer; returns the output [N, widths.back()], a view into the
  /// MLP's activations valid until the next forward. Throws std::invalid_argument when x's
  /// shape or type does not fit.
  ops::Tensor forward(const ops::Tensor& x);

  /// Given dy [N, widths.back()] for the latest forward, overwrites the gradients with
  /// d loss / d params, reporting each layer's window to `ready` as soon as it is written (last
  /// layer first), and, when dx is not "none", dx [N, widths[0]] with d loss / d x. dy is only
  /// read; dx must not alias x or dy. Throws std::invalid_argument when no forward ran yet or a
  /// shape does not match the latest forward.
  void backward(const ops::Tensor& dy, const ops::Tensor& dx, const GradientsReady& ready = {});

  /// Bytes of the activation buffers this MLP made.
  std::int64_t activation_bytes() const;

  /// Bytes Mlp(widths, ..., max_batch) makes for activations of `value_bytes` each, without
  /// making one (for memory estimates): value_bytes * max_batch * (sum of widths[1..] + 2 *
  /// max of widths[1..]), i.e. every layer's output plus two gradient buffers for the backward
  /// pass. Throws as the constructor on bad input.
  static std::int64_t activation_bytes(std::span<const int> widths, int max_batch, int value_bytes);

 private:
  struct Layer {
    ops::Tensor weight, bias, weight_grad, bias_grad;  ///< [O, F], [O], [O, F], [O]
    ops::Tensor output;                                ///< [max_batch, O]
    std::int64_t offset = 0;                           ///< of the weight in the model's buffers
  };

  bool has_relu(std::size_t layer) const;
  /// The first n * cols values of the gradient buffer `grad` does not lie in, as [n, cols].
  ops::Tensor other_grad_buffer(const ops::Tensor& grad, std::int64_t n, int cols) const;
  void check_backward(const ops::Tensor& dy, const ops::Tensor& dx) const;

  ops::Backend& m_backend;
  std::vector<int> m_widths;
  bool m_relu_last;
  std::vector<Layer> m_layers;
  ops::Tensor m_grad_a, m_grad_b;  ///< backward ping-pong buffers, [max_batch * max widths[1..]]
  ops::Tensor m_input;             ///< the latest forward's x; "none" before the first forward
  int m_max_batch;
  std::int64_t m_activation_bytes = 0;
};

}  // namespace scaletune::kernels
