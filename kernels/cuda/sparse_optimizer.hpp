#pragma once
// Optimizer steps on the device's row-sparse embedding gradients (embedding_bag_backward's
// rows_out, values_out and num_unique), with the arithmetic of kernels/host/sparse_optimizer.hpp
// (the reference): only the touched rows, and their optimizer state, are read or written;
// math in fp32, each operation rounded once in the host's order, the result rounded to nearest
// even into the table's type, so a step equals the host's bit for bit on the same inputs (with
// unscale = 1). All pointers are device memory; work is queued on `stream`, nothing
// synchronises.
//
// Common arguments: table [num_rows, dim] in table_dtype (fp32, fp16 or bf16), updated in place;
// rows [max_unique] int64 and values [max_unique, dim] fp32, of which the first *num_unique
// (a device int, at most max_unique) are used, rows strictly increasing; unscale multiplies every
// gradient value first (dynamic loss scaling; 1 otherwise); found_nonfinite, when non-null, is a
// device int that makes the whole step a no-op when non-zero; error_flags (device int, bits ORed
// in, never cleared): kEmbeddingBadIndex for a row outside [0, num_rows), kSparseRowsUnordered
// for a row not greater than the one before it; such a row is not updated.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/embedding_bag.hpp"

namespace scaletune::kernels::cuda {

/// error_flags bit: rows of a sparse gradient not strictly increasing (the later row skipped).
inline constexpr int kSparseRowsUnordered = 4;

/// Row-wise sparse SGD: table[rows[u], :] = T(float(table[rows[u], :]) - lr * g[u, :]) for
/// u < *num_unique, g = values * unscale (host sparse_sgd_step). A lane group per row, each lane
/// owning a vector of consecutive columns. Throws std::invalid_argument on a null table, rows,
/// values, num_unique or error_flags (unless max_unique == 0), num_rows < 1, dim < 1,
/// max_unique < 0, an unsupported dtype or a grid too large.
void sparse_sgd_step(cudaStream_t stream, std::int64_t num_rows, std::int64_t dim,
                     std::int64_t max_unique, core::DType table_dtype, void* table,
                     const std::int64_t* rows, const float* values, const int* num_unique, float lr,
                     float unscale, const int* found_nonfinite, int* error_flags);

/// FBGEMM's rowwise Adagrad (host sparse_rowwise_adagrad_step): for each touched row r with
/// gradient g = values[u, :] * unscale,
///   state[r] += (sum_d g[d]^2) / dim  (the squares summed in column order, as the host),
///   table[r, :] = T(float(table[r, :]) - lr / (sqrt(state[r]) + eps) * g).
/// state [num_rows] fp32. One warp per row: the sum of squares is passed lane to lane in column
/// order (sequential, as the host's), then the row is updated. Throws as sparse_sgd_step, and on
/// a null state.
void sparse_rowwise_adagrad_step(cudaStream_t stream, std::int64_t num_rows, std::int64_t dim,
                                 std::int64_t max_unique, core::DType table_dtype, void* table,
                                 float* state, const std::int64_t* rows, const float* values,
                                 const int* num_unique, float lr, float eps, float unscale,
                                 const int* found_nonfinite, int* error_flags);

}  // namespace scaletune::kernels::cuda
