#pragma once
// Losses fused with their gradients on device logits (fp32, fp16 or bf16), with the semantics
// of the host kernels/host/loss.hpp: softmax cross-entropy and binary cross-entropy with logits.
// Conventions of both:
//  - loss_sum (one fp64 value, device) ACCUMULATES: the kernels add scale * sum_n loss_n to it,
//    so the caller zeroes it once (e.g. per step) and micro-batches add up. The sum over
//    samples is deterministic: per-sample losses go to `workspace` (loss_workspace_bytes) and
//    one block adds them in a fixed order, in double.
//  - dlogits = d(loss)/d(logits) * grad_scale is overwritten in the logits' element type:
//    grad_scale is fp16 loss scaling, applied to the gradient only (1 otherwise).
//  - A label the host op would refuse sets *bad_label = 1 (an int, device; never cleared, so
//    the caller zeroes it and reads it when it next synchronises) instead of throwing: that
//    sample adds 0 to loss_sum and gets dlogits 0.
// Asynchronous on `stream`; nothing synchronises.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "harness/core/dtype.hpp"

namespace scaletune::kernels::cuda {

/// Bytes of device workspace (4-byte aligned) a loss over `rows` samples needs: one fp32 per
/// sample. Throws std::invalid_argument when rows < 0.
std::size_t loss_workspace_bytes(std::int64_t rows);

/// Softmax cross-entropy over `classes` logits per sample, max subtracted (the host
/// softmax_cross_entropy): loss_sum += scale * sum_n (log sum_k exp(l[n,k] - m_n) + m_n -
/// l[n, labels[n]]); dlogits = (softmax - onehot(label)) * scale * grad_scale. One block per
/// sample (cub::BlockReduce), math in fp32. logits, dlogits [rows, classes] of element type
/// `type`, labels [rows] int32, loss_sum one double, bad_label one int; all device, contiguous;
/// dlogits may alias logits. bad_label is set for a label outside [0, classes). Throws
/// std::invalid_argument when rows < 0, classes < 1 (with rows > 0), a pointer is null,
/// the workspace is smaller than loss_workspace_bytes(rows) or misaligned, or `type` is not
/// fp32, fp16 or bf16; CudaError when a launch fails.
void softmax_cross_entropy(cudaStream_t stream, core::DType type, std::int64_t rows,
                           std::int64_t classes, float scale, float grad_scale, const void* logits,
                           const std::int32_t* labels, void* dlogits, double* loss_sum,
                           int* bad_label, void* workspace, std::size_t workspace_bytes);

/// Binary cross-entropy on one logit per sample (the host binary_cross_entropy_with_logits,
/// torch.nn.BCEWithLogitsLoss with reduction "sum"), numerically stable: loss_sum += scale *
/// sum_n (max(x, 0) - x y + log(1 + exp(-|x|))); dlogits = (sigmoid(x) - y) * scale *
/// grad_scale. logits, dlogits [rows] (the host's [N, 1]) of element type `type`, labels [rows]
/// fp32, loss_sum one double, bad_label one int; all device, contiguous; dlogits may alias
/// logits. bad_label is set for a label other than 0 or 1. Throws as softmax_cross_entropy.
void binary_cross_entropy_with_logits(cudaStream_t stream, core::DType type, std::int64_t rows,
                                      float scale, float grad_scale, const void* logits,
                                      const float* labels, void* dlogits, double* loss_sum,
                                      int* bad_label, void* workspace, std::size_t workspace_bytes);

}  // namespace scaletune::kernels::cuda
