#pragma once
// Grid arithmetic of the launchers of the embedding, interaction, pooling and batch-norm
// kernels, and the size limits it implies (std::invalid_argument naming the kernel). Plain C++.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace scaletune::kernels::cuda::detail {

/// Threads per block of these kernels.
inline constexpr int kBlockThreads = 256;

/// Largest grid.x (blocks) CUDA accepts.
inline constexpr std::int64_t kMaxGridX = std::numeric_limits<std::int32_t>::max();
/// Largest grid.y and grid.z CUDA accepts.
inline constexpr std::int64_t kMaxGridYz = 65535;

/// ceil(a / b) for a >= 0, b >= 1.
constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

/// Throws std::invalid_argument naming `kernel` and `what` unless value <= max (a size a kernel
/// indexes with 32-bit integers, or a grid extent), e.g. "embedding_bag_backward: nnz is
/// 3000000000, expected <= 2147483647".
inline void require_at_most(const char* kernel, const char* what, std::int64_t value,
                            std::int64_t max) {
  if (value > max)
    throw std::invalid_argument(std::string(kernel) + ": " + what + " is " + std::to_string(value) +
                                ", expected <= " + std::to_string(max));
}

/// ceil(items / per_block) blocks for grid.x; throws std::invalid_argument naming `kernel` when
/// that exceeds kMaxGridX.
inline unsigned grid_x_blocks(const char* kernel, std::int64_t items, std::int64_t per_block) {
  const std::int64_t blocks = ceil_div(items, per_block);
  require_at_most(kernel, "the grid's x extent (blocks)", blocks, kMaxGridX);
  return static_cast<unsigned>(blocks);
}

/// `blocks` for grid.y or grid.z; throws std::invalid_argument naming `kernel` when it exceeds
/// kMaxGridYz.
inline unsigned grid_yz_blocks(const char* kernel, std::int64_t blocks) {
  require_at_most(kernel, "the grid's y extent (blocks)", blocks, kMaxGridYz);
  return static_cast<unsigned>(blocks);
}

}  // namespace scaletune::kernels::cuda::detail
