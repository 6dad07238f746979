#pragma once
// The flat parameter, gradient and momentum buffers of a model, handed out to its layers as
// unmanaged windows in forward order, so the gradient all-reduce and the optimizer see one span.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// A layer's parameter window and the gradient window at the same offset.
template <class View>
struct ParamWindow {
  View value;
  View grad;
};

/// Owns three [count] float buffers (host, zero-filled): parameters, gradients, momentum.
class ParameterArena {
 public:
  /// Throws std::invalid_argument when count < 1; std::bad_alloc when memory runs out.
  explicit ParameterArena(std::int64_t count)
      : m_values("resnet50_params", checked(count)),
        m_grads("resnet50_grads", checked(count)),
        m_velocity("resnet50_velocity", checked(count)) {}

  /// The next product(extents) values as windows of shape `extents` (e.g. [K, C, R, S]).
  /// Throws std::logic_error when the buffers are exhausted.
  template <class View, class... Extents>
  ParamWindow<View> take(Extents... extents) {
    const std::size_t n = (std::size_t{1} * ... * static_cast<std::size_t>(extents));
    if (m_taken + n > m_values.size())
      throw std::logic_error("ParameterArena: layers need more than the " +
                             std::to_string(m_values.size()) + " parameters allocated");
    const std::size_t at = m_taken;
    m_taken += n;
    return {View(m_values.data() + at, static_cast<std::size_t>(extents)...),
            View(m_grads.data() + at, static_cast<std::size_t>(extents)...)};
  }

  /// Throws std::logic_error unless the layers took exactly every allocated value.
  void require_all_taken() const {
    if (m_taken != m_values.size())
      throw std::logic_error("ParameterArena: layers took " + std::to_string(m_taken) + " of " +
                             std::to_string(m_values.size()) + " parameters");
  }

  /// [count] parameters.
  const Vector& values() const { return m_values; }
  /// [count] gradients, same layout.
  const Vector& grads() const { return m_grads; }
  /// [count] momentum buffer of SGD, same layout.
  const Vector& velocity() const { return m_velocity; }
  /// Bytes of the three buffers.
  std::int64_t bytes() const {
    return 3 * static_cast<std::int64_t>(m_values.span() * sizeof(float));
  }

 private:
  static std::size_t checked(std::int64_t count) {
    if (count < 1)
      throw std::invalid_argument("ParameterArena: count is " + std::to_string(count) +
                                  ", expected >= 1");
    return static_cast<std::size_t>(count);
  }

  Vector m_values;
  Vector m_grads;
  Vector m_velocity;
  std::size_t m_taken = 0;
};

}  // namespace scaletune::kernels::detail
