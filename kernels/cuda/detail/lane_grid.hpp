#pragma once
// How the row-wise kernels (embedding-bag forward and backward, sparse optimizer steps) map
// threads onto (item, column vector) pairs: an item (a bag, a tile of sorted lookups, a touched
// row) gets a group of `lanes` consecutive threads of a 256-thread block (a power of two up to a
// warp, so a group never straddles warps), each owning one vector of V columns; grid.x walks
// the items, grid.y the column chunks of lanes * V columns each.

#include <bit>
#include <cstdint>

#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/host_device.hpp"

namespace scaletune::kernels::cuda::detail {

/// Threads per item and the grid of one launch; see the file comment.
struct LaneGrid {
  int lanes = 1;              ///< threads per item: a power of two in [1, 32]
  int items_per_block = 1;    ///< kBlockThreads / lanes
  std::int64_t blocks_x = 0;  ///< ceil(items / items_per_block)
  std::int64_t blocks_y = 0;  ///< ceil(vectors / lanes)

  /// The item thread `thread` of block `block_x` works on (may be >= items: the thread idles).
  SCALETUNE_HOST_DEVICE std::int64_t item(std::int64_t block_x, int thread) const {
    return block_x * items_per_block + thread / lanes;
  }
  /// The column vector thread `thread` of block row `block_y` owns (may be >= vectors).
  SCALETUNE_HOST_DEVICE std::int64_t vector(std::int64_t block_y, int thread) const {
    return block_y * lanes + thread % lanes;
  }
};

/// The grid for `items` items of `vectors` column vectors each (both >= 1): lanes is the
/// smallest power of two >= vectors, at most 32.
inline LaneGrid make_lane_grid(std::int64_t items, std::int64_t vectors) {
  LaneGrid grid;
  grid.lanes =
      vectors >= 32 ? 32 : static_cast<int>(std::bit_ceil(static_cast<std::uint64_t>(vectors)));
  grid.items_per_block = kBlockThreads / grid.lanes;
  grid.blocks_x = ceil_div(items, grid.items_per_block);
  grid.blocks_y = ceil_div(vectors, grid.lanes);
  return grid;
}

}  // namespace scaletune::kernels::cuda::detail
