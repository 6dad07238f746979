#pragma once
// The buffers the backward pass hands activation gradients through. Each layer's gradient lives
// only until the layer before it has consumed it, so four buffers of the largest activation's
// size serve the whole network (a bottleneck block holds at most four gradients at once:
// the output's, the shortcut's, and the input and output of the layer running).

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "kernels/ops/memory_ledger.hpp"

namespace scaletune::kernels::detail {

/// Four equal flat buffers of the compute type; window(i, like) views buffer i in the shape
/// of `like`.
class GradientScratch {
 public:
  static constexpr int kBuffers = 4;

  /// Four buffers of `elements` elements of `dtype` each, made through `ledger`.
  GradientScratch(std::int64_t elements, ops::DType dtype, ops::MemoryLedger& ledger) {
    for (int i = 0; i < kBuffers; ++i)
      m_buffers[static_cast<std::size_t>(i)] =
          ledger.make("grad_scratch_" + std::to_string(i), dtype, {elements});
  }

  /// Buffer `i` seen with the shape of `like` [N, C, H, W] (no allocation). Throws
  /// std::logic_error when `like` is larger than a buffer.
  ops::Tensor window(int i, const ops::Tensor& like) const {
    const ops::Tensor& buffer = m_buffers.at(static_cast<std::size_t>(i));
    if (like.numel() > buffer.numel())
      throw std::logic_error("GradientScratch: a gradient of " + std::to_string(like.numel()) +
                             " elements exceeds the scratch buffers of " +
                             std::to_string(buffer.numel()));
    return buffer.window(0, {like.dim(0), like.dim(1), like.dim(2), like.dim(3)});
  }

  /// The lowest buffer index not in `busy`. Throws std::logic_error when all are busy.
  static int free_index(std::initializer_list<int> busy) {
    for (int i = 0; i < kBuffers; ++i)
      if (std::find(busy.begin(), busy.end(), i) == busy.end()) return i;
    throw std::logic_error("GradientScratch: every buffer is busy");
  }

 private:
  std::array<ops::Tensor, kBuffers> m_buffers;
};

}  // namespace scaletune::kernels::detail
