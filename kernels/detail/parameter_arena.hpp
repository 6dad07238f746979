#pragma once
// The flat parameter, gradient and momentum buffers of a model, handed out to its layers as
// windows in forward order, so the gradient all-reduce and the optimizer see one buffer.
// Under mixed precision the layers also get windows of a 16-bit working copy of the
// parameters and of their 16-bit gradients.

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::detail {

/// A layer's parameter window and the gradient window at the same offset: `value` and `grad`
/// in the compute type (what convolutions and GEMMs read and write), `master` and
/// `master_grad` in fp32 (what normalisation layers, the all-reduce and the optimizer use).
/// With fp32 compute, value is master and grad is master_grad.
struct ParamWindow {
  ops::Tensor value, grad;
  ops::Tensor master, master_grad;
  std::int64_t offset = 0;  ///< index of the window's first value in the flat buffers
};

/// Owns [count] fp32 parameters, gradients and momentum (zero-filled, made through a
/// MemoryLedger) and, when the compute type is 16-bit, [count] working parameters and
/// gradients of that type.
class ParameterArena {
 public:
  /// Throws std::invalid_argument when count < 1; std::bad_alloc (core::MemoryBudgetExceeded
  /// past the ledger's budget) when memory runs out.
  ParameterArena(ops::MemoryLedger& ledger, std::int64_t count, ops::DType compute)
      : m_count(checked(count)),
        m_values(ledger.make("params", ops::DType::fp32, {count})),
        m_grads(ledger.make("grads", ops::DType::fp32, {count})),
        m_velocity(ledger.make("momentum", ops::DType::fp32, {count})),
        m_compute_values(compute == ops::DType::fp32 ? m_values
                                                     : ledger.make("params16", compute, {count})),
        m_compute_grads(compute == ops::DType::fp32 ? m_grads
                                                    : ledger.make("grads16", compute, {count})) {}

  /// The windows of the next product(shape) values in shape `shape` (e.g. [K, C, R, S]).
  /// Throws std::logic_error when the buffers are exhausted.
  ParamWindow take(std::initializer_list<std::int64_t> shape) {
    std::int64_t n = 1;
    for (const std::int64_t e : shape) n *= e;
    if (m_taken + n > m_count)
      throw std::logic_error("ParameterArena: layers need more than the " +
                             std::to_string(m_count) + " parameters allocated");
    const std::int64_t at = m_taken;
    m_taken += n;
    return {m_compute_values.window(at, shape), m_compute_grads.window(at, shape),
            m_values.window(at, shape), m_grads.window(at, shape), at};
  }

  /// Throws std::logic_error unless the layers took exactly every allocated value.
  void require_all_taken() const {
    if (m_taken != m_count)
      throw std::logic_error("ParameterArena: layers took " + std::to_string(m_taken) + " of " +
                             std::to_string(m_count) + " parameters");
  }

  std::int64_t count() const { return m_count; }
  /// [count] fp32 parameters.
  const ops::Tensor& values() const { return m_values; }
  /// [count] fp32 gradients, same layout.
  const ops::Tensor& grads() const { return m_grads; }
  /// [count] fp32 momentum of SGD, same layout.
  const ops::Tensor& velocity() const { return m_velocity; }
  /// [count] parameters in the compute type (values() itself for fp32).
  const ops::Tensor& compute_values() const { return m_compute_values; }

 private:
  static std::int64_t checked(std::int64_t count) {
    if (count < 1)
      throw std::invalid_argument("ParameterArena: count is " + std::to_string(count) +
                                  ", expected >= 1");
    return count;
  }

  std::int64_t m_count;
  ops::Tensor m_values, m_grads, m_velocity;
  ops::Tensor m_compute_values, m_compute_grads;
  std::int64_t m_taken = 0;
};

}  // namespace scaletune::kernels::detail
