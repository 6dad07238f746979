#pragma once
// Embedding-bag forward and backward for the DLRM workload (the optimizer steps that apply its
// sparse gradient are in sparse_optimizer.hpp).
//
// Bags use the CSR layout of PyTorch's torch.nn.EmbeddingBag and FBGEMM: `indices` [nnz] holds
// the row ids of all bags back to back, `offsets` [B + 1] holds where each bag starts
// (offsets[0] = 0, non-decreasing, offsets[B] = nnz); bag b is indices[offsets[b], offsets[b+1]).
// All views are host, LayoutRight, int64 for ids and fp32 for values, except that the forward
// also reads tables stored in fp16 or bf16 (Fp16Table, Bf16Table; computed in fp32).

#include <cstddef>

#include "kernels/host/half_table.hpp"
#include "kernels/host/host_isa.hpp"
#include "kernels/host/tensor.hpp"
#include "kernels/ops/op_options.hpp"

namespace scaletune::kernels {

using ops::Pooling;

/// Gradient of an embedding table in row-sparse form: only the rows a batch touched.
struct SparseRowGrad {
  IndexVector rows;  ///< [U] touched row ids, strictly increasing
  Tensor2 values;    ///< [U, D] accumulated gradient of row rows(u)
};

/// out[b, :] = pooled table rows of bag b (out overwritten). table [R, D], indices [nnz],
/// offsets [B + 1], out [B, D]. Throws std::invalid_argument when a shape does not match, when
/// offsets are not a CSR offset vector for nnz (naming the position and value) or when an index
/// lies outside [0, R) (naming the position and value).
/// Each out[b, d] is summed in fp32 in index order starting from 0 and, for kMean, then
/// multiplied by 1 / length: bit for bit the result of the naive loop in that order. Built for
/// tables far larger than the caches: rows are prefetched some 32 lookups ahead (across bags),
/// up to 128 columns are summed at once in vector registers, and on x86-64 the loop is compiled
/// for each HostIsa with best_host_isa() used (tests/bench/bench_embedding_bag.cpp compares it
/// with a STREAM triad). Tables on huge pages (HugePageBuffer) spare a TLB miss per row.
void embedding_bag_forward(const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);

/// embedding_bag_forward over a table stored in fp16: the same contract, checks and order, with
/// each table value converted to float (exactly; with F16C's VCVTPH2PS in the kAvx2 and kAvx512
/// variants) before it is added; out stays fp32. Reads half the bytes of an fp32 table per row.
void embedding_bag_forward(const Fp16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);

/// embedding_bag_forward over a table stored in bf16, as the Fp16Table overload (a bf16 value
/// is the top half of an fp32: widened by a zero-extend and a shift, in vector registers).
void embedding_bag_forward(const Bf16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);

/// The three overloads above with the variant compiled for `isa` instead of best_host_isa(),
/// for tests and benchmarks that compare variants: every variant gives the same bits. Throws
/// std::invalid_argument naming isa unless host_isa_available(isa), and as the others.
void embedding_bag_forward(HostIsa isa, const Tensor2& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);
void embedding_bag_forward(HostIsa isa, const Fp16Table& table, const IndexVector& indices,
                           const IndexVector& offsets, Pooling mode, const Tensor2& out);
void embedding_bag_forward(HostIsa isa, const Bf16Table& table, const IndexVector& indices,
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
