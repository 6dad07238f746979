#pragma once
// Per-thread bodies of the embedding-bag kernels (kernels/cuda/embedding_bag.cu), written so
// that tests/unit runs them on the host against kernels/host/embedding_bag.hpp.
//
// Forward: the thread owning columns [col, col + V) of bag b sums the bag's rows in index order
// in fp32 from 0 and multiplies by bag_scale: the host op's order, so results are equal bit for
// bit.
//
// Backward (after the (row, bag) pairs of all lookups are sorted by row, stably, and the runs
// of equal rows found): the sorted lookups are cut into tiles of `tile_len` positions. The
// thread owning columns [col, col + V) of a tile walks it in order, summing scale * grad_out
// [bag, col..] per run. A run that lies inside one tile is written to its output row at once
// (the host's order: bit for bit); a run that crosses tile boundaries leaves one partial sum per
// tile in `partials` [tiles, 2, D] (slot 1: the piece of a run that starts in the tile and
// continues past it; slot 0: the piece of a run that started before the tile), and
// combine_crossing_run adds those partials in tile order. Every step has a fixed order, so the
// result is deterministic; crossing runs differ from the host's sequential sum by rounding only.

#include <cstdint>

#include "kernels/cuda/detail/exact_float.hpp"
#include "kernels/cuda/detail/host_device.hpp"
#include "kernels/cuda/detail/vector_access.hpp"

namespace scaletune::kernels::cuda::detail {

/// Bits of the embedding kernels' device error flag (the public names are in
/// kernels/cuda/embedding_bag.hpp).
inline constexpr int kErrorBadIndex = 1;    ///< a row id outside [0, num_rows)
inline constexpr int kErrorBadOffsets = 2;  ///< offsets not a CSR offset vector over nnz

/// The factor a bag's sum is multiplied by: 1 for sum pooling and for an empty bag, else
/// 1 / length (kernels/host/embedding_bag.cpp bag_scale).
SCALETUNE_HOST_DEVICE inline float bag_scale(bool mean, std::int64_t length) {
  if (!mean || length == 0) return 1.0f;
  return div_rn(1.0f, static_cast<float>(length));
}

/// True when [begin, end) is a valid bag of a CSR offset vector over nnz lookups.
SCALETUNE_HOST_DEVICE inline bool bag_in_range(std::int64_t begin, std::int64_t end,
                                               std::int64_t nnz) {
  return 0 <= begin && begin <= end && end <= nnz;
}

/// True when `row` is a row id of a table of num_rows rows.
SCALETUNE_HOST_DEVICE inline bool row_in_range(std::int64_t row, std::int64_t num_rows) {
  return 0 <= row && row < num_rows;
}

/// The bag of lookup `position`: the largest b in [0, bags) with offsets[b] <= position (binary
/// search over offsets [bags + 1]; empty bags are skipped because their successor has the same
/// offset). bags >= 1.
SCALETUNE_HOST_DEVICE inline std::int64_t bag_of_position(const std::int64_t* offsets,
                                                          std::int64_t bags,
                                                          std::int64_t position) {
  std::int64_t lo = 0, hi = bags;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (offsets[mid] <= position)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/// First index i in [0, n) with sorted[i] >= key, or n.
SCALETUNE_HOST_DEVICE inline std::int64_t lower_bound(const std::int64_t* sorted, std::int64_t n,
                                                      std::int64_t key) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// First index i in [0, n) with sorted[i] > key, or n.
SCALETUNE_HOST_DEVICE inline std::int64_t upper_bound(const std::int64_t* sorted, std::int64_t n,
                                                      std::int64_t key) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] <= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/// Bits the radix sort must look at for row ids in [0, num_rows): the bit width of
/// num_rows - 1, at least 1.
SCALETUNE_HOST_DEVICE inline int row_key_bits(std::int64_t num_rows) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) < num_rows) ++bits;
  return bits;
}

/// What the forward reads.
template <class T>
struct BagForwardArgs {
  const T* table;  ///< [num_rows, dim]
  std::int64_t num_rows;
  std::int64_t dim;
  const std::int64_t* indices;  ///< [nnz]
  const std::int64_t* offsets;  ///< [bags + 1]
  std::int64_t nnz;
  bool mean;
};

/// Lookups whose row loads are issued before any of them is added (memory-level parallelism).
inline constexpr int kForwardLoadBatch = 4;

/// out[0, V) = pooled columns [col, col + V) of bag `bag` (col a multiple of V, V dividing dim):
/// the bag's rows summed in index order from 0 in fp32, times bag_scale. Lookups of a row id
/// outside [0, num_rows) are skipped; a bag whose offsets are out of order or outside [0, nnz]
/// gives 0. Returns the kError* bits of what was wrong (0 when nothing was).
template <class T, int V>
SCALETUNE_HOST_DEVICE int pool_bag_columns(const BagForwardArgs<T>& a, std::int64_t bag,
                                           std::int64_t col, float (&out)[V]) {
  for (int i = 0; i < V; ++i) out[i] = 0.0f;
  const std::int64_t begin = a.offsets[bag], end = a.offsets[bag + 1];
  if (!bag_in_range(begin, end, a.nnz)) return kErrorBadOffsets;
  int errors = 0;
  for (std::int64_t k = begin; k < end; k += kForwardLoadBatch) {
    float rows[kForwardLoadBatch][V] = {};
    bool valid[kForwardLoadBatch];
    for (int j = 0; j < kForwardLoadBatch; ++j) {
      valid[j] = false;
      if (k + j >= end) continue;
      const std::int64_t row = a.indices[k + j];
      valid[j] = row_in_range(row, a.num_rows);
      if (!valid[j]) {
        errors |= kErrorBadIndex;
        continue;
      }
      load_as_floats<T, V>(a.table + row * a.dim + col, rows[j]);
    }
    for (int j = 0; j < kForwardLoadBatch; ++j) {
      if (!valid[j]) continue;
      for (int i = 0; i < V; ++i) out[i] = add_rn(out[i], rows[j][i]);
    }
  }
  const float scale = bag_scale(a.mean, end - begin);
  for (int i = 0; i < V; ++i) out[i] = mul_rn(out[i], scale);
  return errors;
}

/// Marks one lookup before the sort: key = its row id, bag = its bag, or, for a row id outside
/// [0, num_rows), key 0 and bag -1 (the lookup then adds nothing, every later index stays in
/// bounds, and the caller reports kErrorBadIndex). Returns the kError* bits.
SCALETUNE_HOST_DEVICE inline int mark_lookup(const std::int64_t* indices,
                                             const std::int64_t* offsets, std::int64_t bags,
                                             std::int64_t num_rows, std::int64_t position,
                                             std::int64_t& key, std::int32_t& bag) {
  const std::int64_t row = indices[position];
  if (!row_in_range(row, num_rows)) {
    key = 0;
    bag = -1;
    return kErrorBadIndex;
  }
  key = row;
  bag = static_cast<std::int32_t>(bag_of_position(offsets, bags, position));
  return 0;
}

/// kErrorBadOffsets when offsets[b + 1] < offsets[b], or for b == 0 when offsets[0] != 0, or for
/// b == bags - 1 when offsets[bags] != nnz; else 0.
SCALETUNE_HOST_DEVICE inline int check_bag_offsets(const std::int64_t* offsets, std::int64_t bags,
                                                   std::int64_t nnz, std::int64_t b) {
  const bool ok = offsets[b] <= offsets[b + 1] && (b != 0 || offsets[0] == 0) &&
                  (b != bags - 1 || offsets[bags] == nnz);
  return ok ? 0 : kErrorBadOffsets;
}

/// What the backward's tile walk and combine read and write (all device arrays but tile_len).
struct BagBackwardArgs {
  const std::int64_t* sorted_rows;  ///< [nnz] row ids, non-decreasing
  const std::int32_t* sorted_bags;  ///< [nnz] bag of each sorted lookup (-1: skipped)
  const std::int64_t* offsets;      ///< [bags + 1]
  const float* grad_out;            ///< [bags, dim]
  const std::int64_t* unique_rows;  ///< [num_unique] the distinct sorted_rows, increasing
  const int* num_unique;
  std::int64_t nnz;
  std::int64_t dim;
  std::int64_t tile_len;  ///< lookups per tile
  bool mean;
  float* values;    ///< [num_unique, dim] output
  float* partials;  ///< [tiles, 2, dim]
};

/// Tiles the backward cuts nnz sorted lookups into.
SCALETUNE_HOST_DEVICE inline std::int64_t backward_tiles(std::int64_t nnz, std::int64_t tile_len) {
  return (nnz + tile_len - 1) / tile_len;
}

/// acc[0, V) += scale of the bag * grad_out[bag, col .. col + V) for sorted lookup p (nothing
/// for a skipped lookup, bag -1).
template <int V>
SCALETUNE_HOST_DEVICE inline void add_lookup_gradient(const BagBackwardArgs& a, std::int64_t p,
                                                      std::int64_t col, float (&acc)[V]) {
  const std::int32_t bag = a.sorted_bags[p];
  if (bag < 0) return;
  const float scale = a.mean ? bag_scale(true, a.offsets[bag + 1] - a.offsets[bag]) : 1.0f;
  float g[V];
  load_as_floats<float, V>(a.grad_out + bag * a.dim + col, g);
  for (int i = 0; i < V; ++i) acc[i] = add_rn(acc[i], mul_rn(scale, g[i]));
}

/// Copies acc[0, V) to dst[0, V) (aligned to V floats).
template <int V>
SCALETUNE_HOST_DEVICE inline void write_columns(float* dst, const float (&acc)[V]) {
  store_floats<float, V>(dst, acc);
}

/// Walks tile `tile` for columns [col, col + V): see the file comment.
template <int V>
SCALETUNE_HOST_DEVICE void sum_tile_runs(const BagBackwardArgs& a, std::int64_t tile,
                                         std::int64_t col) {
  const std::int64_t begin = tile * a.tile_len;
  const std::int64_t end = begin + a.tile_len < a.nnz ? begin + a.tile_len : a.nnz;
  std::int64_t u = lower_bound(a.unique_rows, *a.num_unique, a.sorted_rows[begin]);
  bool started_here = begin == 0 || a.sorted_rows[begin - 1] != a.sorted_rows[begin];
  float acc[V];
  for (int i = 0; i < V; ++i) acc[i] = 0.0f;
  for (std::int64_t p = begin; p < end; ++p) {
    add_lookup_gradient<V>(a, p, col, acc);
    const bool run_goes_on = p + 1 < a.nnz && a.sorted_rows[p + 1] == a.sorted_rows[p];
    if (run_goes_on && p + 1 < end) continue;
    if (started_here && !run_goes_on)
      write_columns<V>(a.values + u * a.dim + col, acc);
    else
      write_columns<V>(a.partials + (2 * tile + (started_here ? 1 : 0)) * a.dim + col, acc);
    for (int i = 0; i < V; ++i) acc[i] = 0.0f;
    ++u;
    started_here = true;
  }
}

/// For the tile boundary `boundary` (1 <= boundary < tiles, the start of tile `boundary`): when
/// a run crosses it and started in the tile before (so this is the run's first crossing), writes
/// that run's output columns [col, col + V) as its partials added in tile order; else nothing.
template <int V>
SCALETUNE_HOST_DEVICE void combine_crossing_run(const BagBackwardArgs& a, std::int64_t boundary,
                                                std::int64_t col) {
  const std::int64_t first = boundary * a.tile_len;
  const std::int64_t row = a.sorted_rows[first];
  if (a.sorted_rows[first - 1] != row) return;
  const std::int64_t previous_tile_begin = first - a.tile_len;
  if (previous_tile_begin > 0 && a.sorted_rows[previous_tile_begin - 1] == row) return;
  const std::int64_t run_end = upper_bound(a.sorted_rows, a.nnz, row);
  const std::int64_t last_tile = (run_end - 1) / a.tile_len;
  float acc[V];
  load_as_floats<float, V>(a.partials + (2 * (boundary - 1) + 1) * a.dim + col, acc);
  for (std::int64_t t = boundary; t <= last_tile; ++t) {
    float piece[V];
    load_as_floats<float, V>(a.partials + 2 * t * a.dim + col, piece);
    for (int i = 0; i < V; ++i) acc[i] = add_rn(acc[i], piece[i]);
  }
  const std::int64_t u = lower_bound(a.unique_rows, *a.num_unique, row);
  write_columns<V>(a.values + u * a.dim + col, acc);
}

}  // namespace scaletune::kernels::cuda::detail
