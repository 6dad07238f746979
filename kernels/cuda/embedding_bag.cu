#include "kernels/cuda/embedding_bag.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/util_type.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/embedding_bag_math.hpp"
#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/lane_grid.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/vector_width.hpp"

namespace scaletune::kernels::cuda {

static_assert(kEmbeddingBadIndex == detail::kErrorBadIndex);
static_assert(kEmbeddingBadOffsets == detail::kErrorBadOffsets);

namespace {

using detail::kBlockThreads;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
/// Sorted lookups per tile of the backward (detail/embedding_bag_math.hpp).
constexpr std::int64_t kBackwardTileLen = 64;
/// Alignment of every piece carved out of the backward's workspace.
constexpr std::size_t kWorkspaceAlign = 256;

/// Which 16-bit copy the forward also writes.
enum class Out16 { none, fp16, bf16 };

__device__ inline void report(int* error_flags, int errors) {
  if (errors != 0) atomicOr(error_flags, errors);
}

/// One lane group per bag, one lane per V-column vector (lane_grid.hpp).
template <class T, int V>
__global__ void __launch_bounds__(kBlockThreads)
    forward_kernel(detail::BagForwardArgs<T> a, detail::LaneGrid grid, std::int64_t bags,
                   float* out, Out16 out16_kind, void* out16, int* error_flags) {
  const std::int64_t bag = grid.item(blockIdx.x, static_cast<int>(threadIdx.x));
  const std::int64_t col = grid.vector(blockIdx.y, static_cast<int>(threadIdx.x)) * V;
  if (bag >= bags || col >= a.dim) return;
  float values[V];
  const int errors = detail::pool_bag_columns<T, V>(a, bag, col, values);
  if (col == 0) report(error_flags, errors);
  const std::int64_t at = bag * a.dim + col;
  for (int i = 0; i < V; ++i) out[at + i] = values[i];
  if (out16_kind == Out16::fp16) {
    auto* copy = static_cast<detail::Fp16*>(out16) + at;
    for (int i = 0; i < V; ++i) copy[i] = detail::from_float<detail::Fp16>(values[i]);
  } else if (out16_kind == Out16::bf16) {
    auto* copy = static_cast<detail::Bf16*>(out16) + at;
    for (int i = 0; i < V; ++i) copy[i] = detail::from_float<detail::Bf16>(values[i]);
  }
}

Out16 out16_kind(const char* kernel, core::DType dtype, const void* out16) {
  if (out16 == nullptr) return Out16::none;
  if (dtype == core::DType::fp16) return Out16::fp16;
  if (dtype == core::DType::bf16) return Out16::bf16;
  throw std::invalid_argument(std::string(kernel) + ": out16 has element type " +
                              std::string(core::dtype_key(dtype)) + ", expected fp16 or bf16");
}

/// Keys and bags of every lookup for the sort, and the offsets check (one thread each).
__global__ void __launch_bounds__(kBlockThreads)
    mark_lookups_kernel(const std::int64_t* indices, const std::int64_t* offsets, std::int64_t bags,
                        std::int64_t nnz, std::int64_t num_rows, std::int64_t* keys,
                        std::int32_t* bag_of, int* error_flags) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x;
  int errors = 0;
  if (i < nnz)
    errors |= detail::mark_lookup(indices, offsets, bags, num_rows, i, keys[i], bag_of[i]);
  if (i < bags) errors |= detail::check_bag_offsets(offsets, bags, nnz, i);
  report(error_flags, errors);
}

/// One lane group per tile of sorted lookups.
template <int V>
__global__ void __launch_bounds__(kBlockThreads)
    tile_kernel(detail::BagBackwardArgs a, detail::LaneGrid grid, std::int64_t tiles) {
  const std::int64_t tile = grid.item(blockIdx.x, static_cast<int>(threadIdx.x));
  const std::int64_t col = grid.vector(blockIdx.y, static_cast<int>(threadIdx.x)) * V;
  if (tile >= tiles || col >= a.dim) return;
  detail::sum_tile_runs<V>(a, tile, col);
}

/// One lane group per tile boundary 1 .. tiles - 1.
template <int V>
__global__ void __launch_bounds__(kBlockThreads)
    combine_kernel(detail::BagBackwardArgs a, detail::LaneGrid grid, std::int64_t tiles) {
  const std::int64_t boundary = 1 + grid.item(blockIdx.x, static_cast<int>(threadIdx.x));
  const std::int64_t col = grid.vector(blockIdx.y, static_cast<int>(threadIdx.x)) * V;
  if (boundary >= tiles || col >= a.dim) return;
  detail::combine_crossing_run<V>(a, boundary, col);
}

std::size_t aligned(std::size_t bytes) {
  return (bytes + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign;
}

/// The backward's workspace, carved from one allocation in this order.
struct BackwardWorkspace {
  cub::DoubleBuffer<std::int64_t> keys;
  cub::DoubleBuffer<std::int32_t> bags;
  float* partials = nullptr;
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  std::size_t total_bytes = 0;
};

/// Bytes CUB needs for the sort and for the run-length encoding of nnz lookups (the larger).
std::size_t cub_temp_bytes(std::int64_t nnz, std::int64_t num_rows) {
  const int items = static_cast<int>(nnz);
  std::size_t sort_bytes = 0, encode_bytes = 0;
  cub::DoubleBuffer<std::int64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::int32_t> bags(nullptr, nullptr);
  SCALETUNE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, bags, items, 0,
                                                       detail::row_key_bits(num_rows)));
  SCALETUNE_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
      nullptr, encode_bytes, static_cast<const std::int64_t*>(nullptr),
      static_cast<std::int64_t*>(nullptr), static_cast<int*>(nullptr), static_cast<int*>(nullptr),
      items));
  return std::max(sort_bytes, encode_bytes);
}

/// Carves `base` (may be null: only the sizes are computed) for the given sizes.
BackwardWorkspace carve_workspace(std::byte* base, std::int64_t nnz, std::int64_t num_rows,
                                  std::int64_t dim) {
  const auto lookups = static_cast<std::size_t>(nnz);
  const std::size_t key_bytes = aligned(lookups * sizeof(std::int64_t));
  const std::size_t bag_bytes = aligned(lookups * sizeof(std::int32_t));
  const std::size_t partial_bytes =
      aligned(static_cast<std::size_t>(2 * detail::backward_tiles(nnz, kBackwardTileLen) * dim) *
              sizeof(float));
  BackwardWorkspace ws;
  ws.cub_bytes = cub_temp_bytes(nnz, num_rows);
  std::size_t at = 0;
  const auto take = [&](std::size_t bytes) {
    std::byte* piece = base == nullptr ? nullptr : base + at;
    at += bytes;
    return piece;
  };
  std::byte* key_a = take(key_bytes);
  std::byte* key_b = take(key_bytes);
  std::byte* bag_a = take(bag_bytes);
  std::byte* bag_b = take(bag_bytes);
  ws.keys = cub::DoubleBuffer<std::int64_t>(reinterpret_cast<std::int64_t*>(key_a),
                                            reinterpret_cast<std::int64_t*>(key_b));
  ws.bags = cub::DoubleBuffer<std::int32_t>(reinterpret_cast<std::int32_t*>(bag_a),
                                            reinterpret_cast<std::int32_t*>(bag_b));
  ws.partials = reinterpret_cast<float*>(take(partial_bytes));
  ws.cub_temp = take(aligned(ws.cub_bytes));
  ws.total_bytes = at;
  return ws;
}

constexpr const char* kForward = "embedding_bag_forward";
constexpr const char* kBackward = "embedding_bag_backward";

/// The checks of the backward's sizes that the workspace query shares.
void require_lookup_sizes(std::int64_t nnz, std::int64_t num_rows, std::int64_t dim) {
  detail::require_size(kBackward, "nnz", nnz);
  detail::require_at_most(kBackward, "nnz", nnz, kInt32Max);
  detail::require_positive(kBackward, "num_rows", num_rows);
  detail::require_positive(kBackward, "dim", dim);
}

void require_backward_sizes(std::int64_t num_bags, std::int64_t nnz, std::int64_t num_rows,
                            std::int64_t dim) {
  require_lookup_sizes(nnz, num_rows, dim);
  detail::require_size(kBackward, "num_bags", num_bags);
  detail::require_at_most(kBackward, "num_bags", num_bags, kInt32Max);
  if (num_bags == 0 && nnz > 0)
    throw std::invalid_argument(std::string(kBackward) + ": nnz is " + std::to_string(nnz) +
                                " with no bags, expected 0 (offsets[0] = 0 = offsets[B])");
}

/// Queues the tile and combine kernels with V-column vectors.
template <int V>
void launch_sums(cudaStream_t stream, const detail::BagBackwardArgs& a) {
  const std::int64_t tiles = detail::backward_tiles(a.nnz, a.tile_len);
  const std::int64_t vectors = a.dim / V;
  const detail::LaneGrid tile_grid = detail::make_lane_grid(tiles, vectors);
  const dim3 blocks(detail::grid_x_blocks(kBackward, tiles, tile_grid.items_per_block),
                    detail::grid_yz_blocks(kBackward, tile_grid.blocks_y));
  tile_kernel<V><<<blocks, kBlockThreads, 0, stream>>>(a, tile_grid, tiles);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
  if (tiles < 2) return;
  const detail::LaneGrid combine_grid = detail::make_lane_grid(tiles - 1, vectors);
  const dim3 combine_blocks(
      detail::grid_x_blocks(kBackward, tiles - 1, combine_grid.items_per_block),
      detail::grid_yz_blocks(kBackward, combine_grid.blocks_y));
  combine_kernel<V><<<combine_blocks, kBlockThreads, 0, stream>>>(a, combine_grid, tiles);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void embedding_bag_forward(cudaStream_t stream, std::int64_t num_bags, std::int64_t nnz,
                           std::int64_t num_rows, std::int64_t dim, core::DType table_dtype,
                           const void* table, const std::int64_t* indices,
                           const std::int64_t* offsets, ops::Pooling mode, float* out,
                           core::DType out16_dtype, void* out16, int* error_flags) {
  detail::require_size(kForward, "num_bags", num_bags);
  detail::require_size(kForward, "nnz", nnz);
  detail::require_positive(kForward, "num_rows", num_rows);
  detail::require_positive(kForward, "dim", dim);
  detail::require_pointers(kForward, 1, {{"offsets", offsets}, {"error_flags", error_flags}});
  if (nnz > 0) {
    detail::require_pointers(kForward, 1, {{"table", table}, {"indices", indices}});
  }
  const Out16 kind = out16_kind(kForward, out16_dtype, out16);
  if (num_bags == 0) return;
  detail::require_pointers(kForward, 1, {{"out", out}});
  detail::dispatch_activation(table_dtype, kForward, "table", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int width = detail::pick_vector_width(dim, sizeof(T), 8, {table});
    detail::dispatch_vector_width(width, [&](auto v) {
      constexpr int V = decltype(v)::value;
      const detail::BagForwardArgs<T> a{
          static_cast<const T*>(table), num_rows, dim, indices, offsets, nnz,
          mode == ops::Pooling::kMean};
      const detail::LaneGrid grid = detail::make_lane_grid(num_bags, dim / V);
      const dim3 blocks(detail::grid_x_blocks(kForward, num_bags, grid.items_per_block),
                        detail::grid_yz_blocks(kForward, grid.blocks_y));
      forward_kernel<T, V>
          <<<blocks, kBlockThreads, 0, stream>>>(a, grid, num_bags, out, kind, out16, error_flags);
      SCALETUNE_CUDA_CHECK(cudaGetLastError());
    });
  });
}

std::size_t embedding_bag_backward_workspace_bytes(std::int64_t nnz, std::int64_t num_rows,
                                                   std::int64_t dim) {
  require_lookup_sizes(nnz, num_rows, dim);
  if (nnz == 0) return 0;  // nothing is sorted
  return carve_workspace(nullptr, nnz, num_rows, dim).total_bytes;
}

void embedding_bag_backward(cudaStream_t stream, std::int64_t num_bags, std::int64_t nnz,
                            std::int64_t num_rows, std::int64_t dim, const float* grad_out,
                            const std::int64_t* indices, const std::int64_t* offsets,
                            ops::Pooling mode, void* workspace, std::size_t workspace_bytes,
                            std::int64_t* rows_out, float* values_out, int* num_unique,
                            int* error_flags) {
  require_backward_sizes(num_bags, nnz, num_rows, dim);
  detail::require_pointers(
      kBackward, 1,
      {{"offsets", offsets}, {"num_unique", num_unique}, {"error_flags", error_flags}});
  if (nnz == 0) {
    SCALETUNE_CUDA_CHECK(cudaMemsetAsync(num_unique, 0, sizeof(int), stream));
    return;
  }
  detail::require_pointers(kBackward, 1,
                           {{"grad_out", grad_out},
                            {"indices", indices},
                            {"rows_out", rows_out},
                            {"values_out", values_out}});
  BackwardWorkspace ws = carve_workspace(static_cast<std::byte*>(workspace), nnz, num_rows, dim);
  detail::require_workspace(kBackward, workspace, workspace_bytes, ws.total_bytes, kWorkspaceAlign);

  const std::int64_t marked = std::max(nnz, num_bags);
  mark_lookups_kernel<<<detail::grid_x_blocks(kBackward, marked, kBlockThreads), kBlockThreads, 0,
                        stream>>>(indices, offsets, num_bags, nnz, num_rows, ws.keys.Current(),
                                  ws.bags.Current(), error_flags);
  SCALETUNE_CUDA_CHECK(cudaGetLastError());
  const int items = static_cast<int>(nnz);
  SCALETUNE_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(ws.cub_temp, ws.cub_bytes, ws.keys, ws.bags,
                                                       items, 0, detail::row_key_bits(num_rows),
                                                       stream));
  // The bags' other buffer is free after the sort: it takes the run lengths Encode must write.
  SCALETUNE_CUDA_CHECK(
      cub::DeviceRunLengthEncode::Encode(ws.cub_temp, ws.cub_bytes, ws.keys.Current(), rows_out,
                                         ws.bags.Alternate(), num_unique, items, stream));

  const detail::BagBackwardArgs a{ws.keys.Current(),
                                  ws.bags.Current(),
                                  offsets,
                                  grad_out,
                                  rows_out,
                                  num_unique,
                                  nnz,
                                  dim,
                                  kBackwardTileLen,
                                  mode == ops::Pooling::kMean,
                                  values_out,
                                  ws.partials};
  const int width = detail::pick_vector_width(dim, sizeof(float), 4, {grad_out, values_out});
  detail::dispatch_vector_width(width, [&](auto v) { launch_sums<decltype(v)::value>(stream, a); });
}

int read_num_unique(cudaStream_t stream, const int* num_unique) {
  detail::require_pointers("read_num_unique", 1, {{"num_unique", num_unique}});
  int value = 0;
  SCALETUNE_CUDA_CHECK(
      cudaMemcpyAsync(&value, num_unique, sizeof(int), cudaMemcpyDeviceToHost, stream));
  SCALETUNE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

}  // namespace scaletune::kernels::cuda
