#pragma once
// Embedding-bag forward and backward for the DLRM workload (the optimizer steps that apply its
// sparse gradient are in sparse_optimizer.hpp).
//
// Bags use the CSR layout of PyTorch's torch.nn.EmbeddingBag and FBGEMM: `indices` [nnz] holds
// the row ids of all bags back to back, `offsets` [B + 1] holds where each bag starts
// (offsets[0] = 0, non-decreasing, offsets[B] = nnz); bag b is indices[offsets[b], offsets[b+1]).
// All views are host, LayoutRight, fp32 for values and int64 for ids.

#include <cstddef>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// How a bag's rows are combined.
enum class Pooling {
  kSum,   ///< out[b] = sum of the bag's rows
  kMean,  ///< out[b] = sum / bag length; an empty bag gives 0 (as torch.nn.EmbeddingBag)
};

/// Gradient of an embedding table in row-sparse form: only the rows a batch touched.
struct SparseRowGrad {
  IndexVector rows;  ///< [U] touched row ids, strictly increasing
  Tensor2 values;    ///< [U, D] accumulated gradient of row rows(u)
};

/// out[b, :] = pooled table rows of bag b (out overwritten). table [R, D], indices [nnz],
/// offsets [B + 1], out [B, D]. Throws std::invalid_argument when a shape does not match, when
/// offsets are not a CSR offset vector for nnz (naming the position and value) or when an index
/// lies outside [0, R) (naming the position and value).
void embedding_bag_forward(const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);

/// Gradient of the table given grad_out [B, D] = dLoss/dout of embedding_bag_forward with the
/// same indices, offsets and mode over a table of `num_rows` rows. Returns the U distinct rows
/// the bags touch, sorted, each with the sum over all its occurrences (within and across bags)
/// of grad_out[b, :], divided by the bag's length for kMean. Untouched rows are absent.
/// Algorithm: the (row, bag) pair of every index position is sorted; each run of equal rows is
/// one output row, summed in that order (deterministic). Cost O(nnz log nnz + nnz * D).
/// Throws std::invalid_argument as embedding_bag_forward does.
SparseRowGrad embedding_bag_backward(const Tensor2& grad_out, const IndexVector& indices,
                                     const IndexVector& offsets, Pooling mode,
                                     std::size_t num_rows);

}  // namespace scaletune::kernels
