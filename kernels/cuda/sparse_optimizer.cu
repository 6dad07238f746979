#include "kernels/cuda/sparse_optimizer.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "harness/device/cuda_error.hpp"
#include "kernels/cuda/detail/cast_math.hpp"
#include "kernels/cuda/detail/dispatch_dtype.hpp"
#include "kernels/cuda/detail/grid_checks.hpp"
#include "kernels/cuda/detail/lane_grid.hpp"
#include "kernels/cuda/detail/launch_checks.hpp"
#include "kernels/cuda/detail/sparse_optimizer_math.hpp"
#include "kernels/cuda/detail/vector_access.hpp"
#include "kernels/cuda/detail/vector_width.hpp"

namespace scaletune::kernels::cuda {

static_assert(kEmbeddingBadIndex == detail::kErrorRowOutOfRange);
static_assert(kSparseRowsUnordered == detail::kErrorRowsUnordered);

namespace {

using detail::kBlockThreads;

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;

/// What both steps read besides their own state.
template <class T>
struct SparseStepArgs {
  T* table;  ///< [num_rows, dim]
  std::int64_t num_rows;
  std::int64_t dim;
  const std::int64_t* rows;  ///< [max_unique]
  const float* values;       ///< [max_unique, dim]
  const int* num_unique;
  float unscale;
  const int* found_nonfinite;  ///< may be null
  int* error_flags;
};

/// True when the step must leave everything alone (found_nonfinite set).
template <class T>
__device__ inline bool skip_step(const SparseStepArgs<T>& a) {
  return a.found_nonfinite != nullptr && *a.found_nonfinite != 0;
}

/// g[0, V) = values[u, col .. col + V) * unscale.
template <class T, int V>
__device__ inline void load_gradient(const SparseStepArgs<T>& a, std::int64_t u, std::int64_t col,
                                     float (&g)[V]) {
  detail::load_as_floats<float, V>(a.values + u * a.dim + col, g);
  for (int i = 0; i < V; ++i) g[i] = detail::unscaled_gradient(g[i], a.unscale);
}

/// table[row, col .. col + V) descended by step * g.
template <class T, int V>
__device__ inline void descend_columns(const SparseStepArgs<T>& a, std::int64_t row,
                                       std::int64_t col, const float (&g)[V], float step) {
  T* w = a.table + row * a.dim + col;
  float values[V];
  detail::load_as_floats<T, V>(w, values);
  for (int i = 0; i < V; ++i) values[i] = detail::descend(values[i], g[i], step);
  detail::store_floats<T, V>(w, values);
}

/// A lane group per touched row (lane_grid.hpp), one lane per V-column vector.
template <class T, int V>
__global__ void __launch_bounds__(kBlockThreads)
    sgd_kernel(SparseStepArgs<T> a, detail::LaneGrid grid, float lr) {
  const std::int64_t u = grid.item(blockIdx.x, static_cast<int>(threadIdx.x));
  const std::int64_t col = grid.vector(blockIdx.y, static_cast<int>(threadIdx.x)) * V;
  if (u >= *a.num_unique || col >= a.dim || skip_step(a)) return;
  const int errors = detail::check_update_row(a.rows, u, a.num_rows);
  if (errors != 0) {
    if (col == 0) atomicOr(a.error_flags, errors);
    return;
  }
  float g[V];
  load_gradient<T, V>(a, u, col, g);
  descend_columns<T, V>(a, a.rows[u], col, g, lr);
}

/// sum_squares advanced over the columns [chunk, chunk + 32 V) in column order, lane by lane
/// (lane l holds g of columns chunk + l V ..); every lane ends with the same value.
template <int V>
__device__ inline float add_chunk_squares(float sum_squares, const float (&g)[V],
                                          std::int64_t chunk, std::int64_t dim) {
  for (int lane = 0; lane < kWarp && chunk + lane * V < dim; ++lane)
    for (int i = 0; i < V; ++i)
      sum_squares = detail::add_square(sum_squares, __shfl_sync(kFullMask, g[i], lane));
  return sum_squares;
}

/// One warp per touched row: sum of squares, state, then the row's update.
template <class T, int V>
__global__ void __launch_bounds__(kBlockThreads)
    rowwise_adagrad_kernel(SparseStepArgs<T> a, float* state, float lr, float eps) {
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const std::int64_t u =
      static_cast<std::int64_t>(blockIdx.x) * (kBlockThreads / kWarp) + threadIdx.x / kWarp;
  if (u >= *a.num_unique || skip_step(a)) return;  // uniform over the warp
  const int errors = detail::check_update_row(a.rows, u, a.num_rows);
  if (errors != 0) {
    if (lane == 0) atomicOr(a.error_flags, errors);
    return;
  }
  const std::int64_t row = a.rows[u];
  float sum_squares = 0.0f;
  for (std::int64_t chunk = 0; chunk < a.dim; chunk += kWarp * V) {
    float g[V] = {};
    const std::int64_t col = chunk + lane * V;
    if (col < a.dim) load_gradient<T, V>(a, u, col, g);
    sum_squares = add_chunk_squares<V>(sum_squares, g, chunk, a.dim);
  }
  const float new_state = detail::rowwise_adagrad_state(state[row], sum_squares, a.dim);
  const float step = detail::rowwise_adagrad_step_size(lr, new_state, eps);
  __syncwarp();  // every lane has read state[row] before lane 0 overwrites it
  if (lane == 0) state[row] = new_state;
  for (std::int64_t col = lane * V; col < a.dim; col += kWarp * V) {
    float g[V];
    load_gradient<T, V>(a, u, col, g);
    descend_columns<T, V>(a, row, col, g, step);
  }
}

/// Checks both steps' arguments; false when there is nothing to do (max_unique == 0).
bool check_step(const char* kernel, std::int64_t num_rows, std::int64_t dim,
                std::int64_t max_unique, const void* table, const std::int64_t* rows,
                const float* values, const int* num_unique, const int* error_flags) {
  detail::require_positive(kernel, "num_rows", num_rows);
  detail::require_positive(kernel, "dim", dim);
  detail::require_size(kernel, "max_unique", max_unique);
  if (max_unique == 0) return false;
  detail::require_pointers(kernel, 1,
                           {{"table", table},
                            {"rows", rows},
                            {"values", values},
                            {"num_unique", num_unique},
                            {"error_flags", error_flags}});
  return true;
}

/// Calls f(SparseStepArgs<T>, V-constant) for the table's element type and the widest vector
/// both the table rows and the gradient rows allow.
template <class F>
void dispatch_step(const char* kernel, std::int64_t num_rows, std::int64_t dim,
                   core::DType table_dtype, void* table, const std::int64_t* rows,
                   const float* values, const int* num_unique, float unscale,
                   const int* found_nonfinite, int* error_flags, F&& f) {
  detail::dispatch_activation(table_dtype, kernel, "table", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int width = std::min(detail::pick_vector_width(dim, sizeof(T), 8, {table}),
                               detail::pick_vector_width(dim, sizeof(float), 8, {values}));
    const SparseStepArgs<T> a{
        static_cast<T*>(table), num_rows,   dim, rows, values, num_unique, unscale,
        found_nonfinite,        error_flags};
    detail::dispatch_vector_width(width, [&](auto v) { f(a, v); });
  });
}

constexpr const char* kSgd = "sparse_sgd_step";
constexpr const char* kAdagrad = "sparse_rowwise_adagrad_step";

}  // namespace

void sparse_sgd_step(cudaStream_t stream, std::int64_t num_rows, std::int64_t dim,
                     std::int64_t max_unique, core::DType table_dtype, void* table,
                     const std::int64_t* rows, const float* values, const int* num_unique, float lr,
                     float unscale, const int* found_nonfinite, int* error_flags) {
  if (!check_step(kSgd, num_rows, dim, max_unique, table, rows, values, num_unique, error_flags))
    return;
  dispatch_step(kSgd, num_rows, dim, table_dtype, table, rows, values, num_unique, unscale,
                found_nonfinite, error_flags, [&](const auto& a, auto v) {
                  using T = std::remove_pointer_t<decltype(a.table)>;
                  constexpr int V = decltype(v)::value;
                  const detail::LaneGrid grid = detail::make_lane_grid(max_unique, dim / V);
                  const dim3 blocks(detail::grid_x_blocks(kSgd, max_unique, grid.items_per_block),
                                    detail::grid_yz_blocks(kSgd, grid.blocks_y));
                  sgd_kernel<T, V><<<blocks, kBlockThreads, 0, stream>>>(a, grid, lr);
                  SCALETUNE_CUDA_CHECK(cudaGetLastError());
                });
}

void sparse_rowwise_adagrad_step(cudaStream_t stream, std::int64_t num_rows, std::int64_t dim,
                                 std::int64_t max_unique, core::DType table_dtype, void* table,
                                 float* state, const std::int64_t* rows, const float* values,
                                 const int* num_unique, float lr, float eps, float unscale,
                                 const int* found_nonfinite, int* error_flags) {
  if (!check_step(kAdagrad, num_rows, dim, max_unique, table, rows, values, num_unique,
                  error_flags))
    return;
  detail::require_pointers(kAdagrad, 1, {{"state", state}});
  dispatch_step(
      kAdagrad, num_rows, dim, table_dtype, table, rows, values, num_unique, unscale,
      found_nonfinite, error_flags, [&](const auto& a, auto v) {
        using T = std::remove_pointer_t<decltype(a.table)>;
        constexpr int V = decltype(v)::value;
        const unsigned blocks = detail::grid_x_blocks(kAdagrad, max_unique, kBlockThreads / kWarp);
        rowwise_adagrad_kernel<T, V><<<blocks, kBlockThreads, 0, stream>>>(a, state, lr, eps);
        SCALETUNE_CUDA_CHECK(cudaGetLastError());
      });
}

}  // namespace scaletune::kernels::cuda
