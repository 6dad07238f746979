#pragma once
// The record of one compute op of the op layer (kernels/ops/backend.hpp): its kind, the shape
// fields an op model of that kind is fitted on, FLOPs and compulsory bytes. The describing
// backend records a step's ops with these, and the op profile stores the same fields with
// its timings, so a model fitted on the profile reads a description's ops directly.
//
// FLOPs count 2 per multiply-add (GEMM 2mnk; convolution 2 N K Ho Wo C R S per pass, the
// backward's weight and input gradients one pass each; attention 4 B h S^2 Dh forward for
// QK^T and PV, twice that backward), other ops a small constant per element. Bytes are what
// the op must read and write at least once (each operand once), not its cache traffic.

#include <cstdint>
#include <span>
#include <string>

#include "harness/core/dtype.hpp"
#include "harness/trace/step_trace.hpp"
#include "kernels/ops/conv_geometry.hpp"

namespace scaletune::kernels::describe {

using core::DType;

/// An element-wise op over `numel` elements of `dtype` doing `flops_per_element` and moving
/// `bytes_per_element` bytes per element (e.g. add: 1 FLOP, 3 operands). Field: numel.
trace::ComputeOp elementwise_op(const char* op, std::int64_t numel, DType dtype,
                                double flops_per_element, double bytes_per_element);

/// The element-wise op kind `op` of the op layer (fill, copy, add, scale, relu_forward,
/// relu_backward, gelu_forward, gelu_backward, dropout_forward, dropout_backward,
/// check_nonfinite) over `numel` elements of `dtype`, with the kind's FLOPs and operands per
/// element (copy: between two tensors of `dtype`). Throws std::invalid_argument for another op.
trace::ComputeOp elementwise_kind_op(const std::string& op, std::int64_t numel, DType dtype);

/// c [m, n] = op(a) op(b) in `batch` products, a and b of `ab`, c of `c_type`, read too when
/// `accumulate` (beta != 0). Fields: m, n, k, batch, trans_a, trans_b.
trace::ComputeOp gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch,
                         bool trans_a, bool trans_b, DType ab, DType c_type, bool accumulate);

/// y [N, O] = x [N, F] w^T + b. Fields: m = N, n = O, k = F.
trace::ComputeOp linear_forward_op(std::int64_t rows, std::int64_t in, std::int64_t out,
                                   DType dtype);
/// dw, db and (with input_grad) dx of linear_forward. Fields: m, n, k, input_grad.
trace::ComputeOp linear_backward_op(std::int64_t rows, std::int64_t in, std::int64_t out,
                                    DType dtype, bool input_grad);

/// Layer norm of [rows, features]; op "layer_norm_forward" or "layer_norm_backward". Fields:
/// rows, features.
trace::ComputeOp layer_norm_op(bool backward, std::int64_t rows, std::int64_t features,
                               DType dtype);

/// A copy between token rows and heads [B, heads, S, Dh] (op "heads_from_rows" or
/// "rows_from_heads"). Fields: batch, heads, seq, head_dim.
trace::ComputeOp heads_copy_op(const char* op, std::span<const std::int64_t> heads_shape,
                               DType dtype);

/// GPT-2's token + position embedding over `tokens` tokens of width `hidden`; backward adds to
/// the fp32 tables. Fields: tokens, hidden.
trace::ComputeOp token_embedding_op(bool backward, std::int64_t tokens, std::int64_t hidden);

/// A convolution pass ("conv2d_forward", or "conv2d_backward": weight gradient, and input
/// gradient when input_grad). Fields: batch, in_channels, in_h, in_w, out_channels, kernel,
/// stride, pad, input_grad (backward only).
trace::ComputeOp conv2d_op(bool backward, const ops::ConvGeometry& g, std::int64_t batch,
                           DType dtype, bool input_grad);

/// Batch norm of [N, C, H, W]. Fields: batch, channels, h, w.
trace::ComputeOp batch_norm_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                               std::int64_t w, DType dtype);

/// Max pooling over x [N, C, H, W]. Fields: batch, channels, h, w, kernel, stride, pad.
trace::ComputeOp max_pool_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                             std::int64_t w, int kernel, int stride, int pad, DType dtype);

/// Global average pooling of [N, C, H, W]. Fields: batch, channels, h, w.
trace::ComputeOp avg_pool_op(bool backward, std::int64_t n, std::int64_t c, std::int64_t h,
                             std::int64_t w, DType dtype);

/// Causal attention over [B, heads, S, Dh]. Fields: batch, heads, seq, head_dim.
trace::ComputeOp attention_op(bool backward, std::int64_t batch, std::int64_t heads,
                              std::int64_t seq, std::int64_t head_dim, DType dtype);

/// Softmax cross-entropy (with its gradient) of logits [N, K]. Fields: rows, classes.
trace::ComputeOp softmax_cross_entropy_op(std::int64_t rows, std::int64_t classes, DType dtype);
/// Binary cross-entropy with logits (and gradient) of [N, 1]. Field: rows.
trace::ComputeOp bce_op(std::int64_t rows, DType dtype);

/// An embedding bag's forward over a table [rows, dim] of `table_type`: `lookups` indices in
/// `batch` bags, with their 17-bin reuse histogram (may be empty when unknown). Fields: batch,
/// rows, dim, lookups, pooling (lookups / batch, rounded).
trace::ComputeOp embedding_forward_op(std::int64_t batch, std::int64_t rows, std::int64_t dim,
                                      std::int64_t lookups, DType table_type,
                                      std::span<const double> reuse_histogram);
/// The backward (sort the indices, sum the duplicates): fields as forward plus distinct, the
/// rows the sparse gradient holds.
trace::ComputeOp embedding_backward_op(std::int64_t batch, std::int64_t rows, std::int64_t dim,
                                       std::int64_t lookups, std::int64_t distinct,
                                       std::span<const double> reuse_histogram);

/// Copying (accumulate: adding) a block of [rows, cols] elements of `dtype` between column
/// windows of two matrices. Fields: rows, cols, accumulate.
trace::ComputeOp copy_columns_op(std::int64_t rows, std::int64_t cols, DType dtype,
                                 bool accumulate);

/// A copy of `numel` elements from a `src`-typed into a `dst`-typed buffer (each read or
/// written once). Field: numel.
trace::ComputeOp copy_op(std::int64_t numel, DType src, DType dst);

/// A row-sparse update of `count` rows of width dim ("sparse_sgd" or "sparse_rowwise_adagrad")
/// in a table of `rows` rows (>= count): the rows the update scatters over, which decide its
/// cache and TLB misses. Fields: count, rows, dim.
trace::ComputeOp sparse_update_op(const char* op, std::int64_t count, std::int64_t rows,
                                  std::int64_t dim, DType table_type);

/// DLRM's dot interaction of z [N, F, D]. Fields: rows, features, dim.
trace::ComputeOp interaction_op(bool backward, std::int64_t rows, std::int64_t features,
                                std::int64_t dim);

/// A dense optimizer update of n fp32 parameters ("sgd_momentum": params, grads, velocity;
/// "adam": params, grads, m, v), plus a 16-bit copy when `copy16`. Fields: numel, copy16.
trace::ComputeOp optimizer_op(const char* op, std::int64_t numel, bool copy16);

}  // namespace scaletune::kernels::describe
