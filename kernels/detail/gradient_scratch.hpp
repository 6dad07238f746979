#pragma once
// The buffers the backward pass hands activation gradients through. Each layer's gradient lives
// only until the layer before it has consumed it, so four buffers of the largest activation's
// size serve the whole network (a bottleneck block holds at most four gradients at once:
// the output's, the shortcut's, and the input and output of the layer running).

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "kernels/detail/buffer_ledger.hpp"
#include "kernels/host/tensor.hpp"

namespace scaletune::kernels::detail {

/// Four equal flat host buffers; window(i, like) views buffer i in the shape of `like`.
class GradientScratch {
 public:
  static constexpr int kBuffers = 4;

  /// Four buffers of `floats` floats each, made through `buffers`.
  GradientScratch(std::size_t floats, BufferLedger& buffers) {
    for (int i = 0; i < kBuffers; ++i)
      m_buffers[i] = buffers.make<Vector>("resnet50_grad_scratch_" + std::to_string(i), floats);
  }

  /// Unmanaged [N, C, H, W] window of buffer `i` with the shape of `like` (no allocation).
  /// Throws std::logic_error when `like` is larger than a buffer.
  Tensor4 window(int i, const Tensor4& like) const {
    const Vector& buffer = m_buffers.at(static_cast<std::size_t>(i));
    if (like.size() > buffer.size())
      throw std::logic_error("GradientScratch: a gradient of " + std::to_string(like.size()) +
                             " floats exceeds the scratch buffers of " +
                             std::to_string(buffer.size()));
    return Tensor4(buffer.data(), like.extent(0), like.extent(1), like.extent(2), like.extent(3));
  }

  /// The lowest buffer index not in `busy`. Throws std::logic_error when all are busy.
  static int free_index(std::initializer_list<int> busy) {
    for (int i = 0; i < kBuffers; ++i)
      if (std::find(busy.begin(), busy.end(), i) == busy.end()) return i;
    throw std::logic_error("GradientScratch: every buffer is busy");
  }

 private:
  std::array<Vector, kBuffers> m_buffers;
};

}  // namespace scaletune::kernels::detail
