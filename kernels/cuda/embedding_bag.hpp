#pragma once
// Embedding-bag forward and backward on the device, with the semantics of
// kernels/host/embedding_bag.hpp (the reference): CSR bags (`offsets` [B + 1], `indices`
// [nnz], int64, offsets[0] = 0, non-decreasing, offsets[B] = nnz), sum or mean pooling, an empty
// bag gives 0, and the backward returns the touched rows, strictly increasing, with their
// summed gradients. All pointers are device memory, contiguous and row-major; work is queued on
// `stream` and nothing synchronises except read_num_unique.
//
// Bad ids and offsets are not checked on the host (that would need the data there): the kernels
// set bits of a device int `error_flags` (kEmbeddingBadIndex, kEmbeddingBadOffsets; they only
// ever OR bits in, the caller zeroes it and reads it when it chooses) and never read or write
// out of bounds; what they write for a bad bag or id is unspecified beyond that.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "harness/core/dtype.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels::cuda {

/// error_flags bit: a row id outside [0, num_rows) (its lookup was skipped).
inline constexpr int kEmbeddingBadIndex = 1;
/// error_flags bit: offsets are not a CSR offset vector over nnz (an affected bag gives 0).
inline constexpr int kEmbeddingBadOffsets = 2;

/// out[b, :] = pooled rows of bag b, fp32, overwritten; with out16 non-null also
/// out16[b, :] = the same values rounded to nearest even in out16_dtype (fp16 or bf16).
/// table [num_rows, dim] in table_dtype (fp32, fp16 or bf16); indices [nnz], offsets
/// [num_bags + 1] int64; out [num_bags, dim] fp32; out16 [num_bags, dim] or null; error_flags
/// one int. Each out[b, d] is the bag's values converted to fp32 and summed in index order from
/// 0, times 1 / length for mean: the host op's result bit for bit.
/// Design: a group of lanes (a power of two up to a warp) per bag, each lane owning V
/// consecutive columns loaded as one vector (V * element size <= 16 bytes, the largest V that
/// divides dim and keeps table rows aligned; 1 otherwise); grid.y covers the columns in chunks
/// of lanes * V, so dim may be up to 65535 * 32 * V; four lookups' row loads are in flight at
/// once. Throws std::invalid_argument on a null pointer (table, indices and offsets may be null
/// only when nnz == 0), num_bags < 0, nnz < 0, num_rows < 1, dim < 1, an unsupported dtype or a
/// grid too large.
void embedding_bag_forward(cudaStream_t stream, std::int64_t num_bags, std::int64_t nnz,
                           std::int64_t num_rows, std::int64_t dim, core::DType table_dtype,
                           const void* table, const std::int64_t* indices,
                           const std::int64_t* offsets, ops::Pooling mode, float* out,
                           core::DType out16_dtype, void* out16, int* error_flags);

/// Rows the backward's outputs must hold: at most min(nnz, num_rows) rows are touched.
inline std::int64_t embedding_bag_backward_max_unique(std::int64_t nnz, std::int64_t num_rows) {
  return std::min(nnz, num_rows);
}

/// Bytes of workspace embedding_bag_backward needs for these sizes: the sort's keys and values
/// (2 x 12 bytes a lookup), partial sums for rows whose lookups cross a tile of 64 sorted lookups
/// (2 x ceil(nnz / 64) x dim floats) and CUB's temporary storage for the sort and the
/// run-length encoding; 0 when nnz == 0. Asks CUB for its part, which needs a CUDA device
/// (CudaError without one). Throws std::invalid_argument as embedding_bag_backward does for nnz,
/// num_rows and dim.
std::size_t embedding_bag_backward_workspace_bytes(std::int64_t nnz, std::int64_t num_rows,
                                                   std::int64_t dim);

/// Gradient of the table for grad_out [num_bags, dim] fp32 = dLoss/dout of embedding_bag_forward
/// with the same indices [nnz], offsets [num_bags + 1] and mode over a table of num_rows rows.
/// Writes *num_unique = U, the number of distinct rows the bags touch, rows_out[0, U) = those
/// rows, strictly increasing, and values_out[0, U) [U, dim] fp32 = for each, the sum over its
/// occurrences (within and across bags) of grad_out[bag, :] (times 1 / bag length for mean);
/// rows_out and values_out must hold embedding_bag_backward_max_unique(nnz, num_rows) rows,
/// those past U are left alone. Untouched table rows are absent.
/// Algorithm (as the host's): cub::DeviceRadixSort::SortPairs of (row id, bag) over the
/// row_key_bits(num_rows) low bits (stable: equal rows keep lookup order, so bags ascend),
/// cub::DeviceRunLengthEncode::Encode of the sorted ids (the unique rows and U), then each tile
/// of 64 sorted lookups sums its runs in order and runs that cross tiles are combined from
/// per-tile partial sums in tile order. Deterministic; runs inside one tile equal the host's
/// sums bit for bit, longer runs differ by rounding only.
/// workspace: device memory of workspace_bytes >= embedding_bag_backward_workspace_bytes(nnz,
/// num_rows, dim) bytes, 256-byte aligned. error_flags as for the forward (a lookup of a bad id
/// adds nothing and may list row 0 as touched). nnz must be <= INT32_MAX (CUB's run-length
/// encoding counts in int) and num_bags <= INT32_MAX.
/// Throws std::invalid_argument on a null pointer (indices, rows_out and values_out may be null
/// when nnz == 0), nnz or num_bags outside [0, INT32_MAX], num_rows < 1, dim < 1, a workspace
/// too small or a grid too large; CudaError when a CUB call fails.
void embedding_bag_backward(cudaStream_t stream, std::int64_t num_bags, std::int64_t nnz,
                            std::int64_t num_rows, std::int64_t dim, const float* grad_out,
                            const std::int64_t* indices, const std::int64_t* offsets,
                            ops::Pooling mode, void* workspace, std::size_t workspace_bytes,
                            std::int64_t* rows_out, float* values_out, int* num_unique,
                            int* error_flags);

/// The U embedding_bag_backward wrote to `num_unique` (device): waits for `stream` to finish
/// everything queued on it so far (cudaStreamSynchronize), then copies the int to the host.
/// Throws CudaError when the copy or the wait fails.
int read_num_unique(cudaStream_t stream, const int* num_unique);

}  // namespace scaletune::kernels::cuda
