#pragma once
// Global average pooling on the device (ResNet-50's head), with the semantics of
// kernels/host/pooling.hpp global_avg_pool_* (the reference): y[n, c] = mean of x[n, c, :, :],
// dx[n, c, :, :] = dy[n, c] / (H * W). Both layouts of ActivationShape (NCHW, NHWC); x, y, dy
// and dx share one element type (core::DType fp32, fp16 or bf16: read exactly, math in fp32,
// written rounded to nearest even). Contiguous device arrays; work is queued on `stream`,
// nothing synchronises.

#include <cuda_runtime_api.h>

#include "harness/core/dtype.hpp"
#include "kernels/cuda/activation_shape.hpp"

namespace scaletune::kernels::cuda {

/// y [N, C] = per-(n, c) mean over H and W of x (shape.layout), overwritten. The plane's sum is
/// fp32 (the host's is double; a ResNet plane has 49 values) and is scaled by 1 / (H * W) in
/// double as the host does. NCHW: a warp per plane, lanes striding over it, cub::WarpReduce;
/// NHWC: a thread per (n, c), reading a row of C channels at a time (coalesced), summing H * W
/// values in order. Throws std::invalid_argument on an extent < 1, a null pointer, an
/// unsupported dtype or a grid too large.
void global_avg_pool_forward(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                             const void* x, void* y);

/// dx (shape.layout) = dy[n, c] * (1 / (H * W)) at every (h, w), overwritten; the factor is
/// fp32 as on the host, so values equal the host's bit for bit for fp32. dy [N, C]. Throws as
/// global_avg_pool_forward.
void global_avg_pool_backward(cudaStream_t stream, const ActivationShape& shape, core::DType dtype,
                              const void* dy, void* dx);

}  // namespace scaletune::kernels::cuda
