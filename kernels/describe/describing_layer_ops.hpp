#pragma once
// The stateful ops of the describing backend (convolution, batch norm, max pooling, attention,
// embedding bag): each pass records itself through the backend and computes nothing.

#include <cstdint>
#include <memory>

#include "harness/core/communicator.hpp"
#include "kernels/ops/backend.hpp"

namespace scaletune::kernels::describe {

class DescribingBackend;

/// [N, C, H, W] of an op's input.
struct Nchw {
  int n = 0, c = 0, h = 0, w = 0;
};

/// A pooling window.
struct Window {
  int kernel = 1, stride = 1, pad = 0;
};

/// Conv2dOp recording conv2d_forward and conv2d_backward (input gradient when dx is defined).
std::unique_ptr<ops::Conv2dOp> describe_conv2d(DescribingBackend& backend,
                                               const ops::ConvGeometry& g, int batch,
                                               ops::DType dtype);

/// BatchNormOp recording batch_norm_forward and batch_norm_backward; with `sync` (not null) it
/// all-reduces what the target's synchronised batch norm all-reduces: on the host 2C + 1 fp64
/// sums forward and 2C backward (kernels/host/batch_norm.cpp), on CUDA 2C fp32 sums each pass
/// (kernels/cuda/cuda_layer_ops.cpp). sync must outlive the op.
std::unique_ptr<ops::BatchNormOp> describe_batch_norm(DescribingBackend& backend, Nchw shape,
                                                      core::Communicator* sync, ops::DType dtype);

/// MaxPoolOp recording max_pool_forward and max_pool_backward.
std::unique_ptr<ops::MaxPoolOp> describe_max_pool(DescribingBackend& backend, Nchw shape,
                                                  Window window, ops::DType dtype);

/// AttentionOp recording attention_forward and attention_backward at the batch of each call.
std::unique_ptr<ops::AttentionOp> describe_attention(DescribingBackend& backend, int heads,
                                                     int seq_len, int head_dim, ops::DType dtype);

/// EmbeddingBagOp over a table of `rows` rows recording embedding_bag_forward and
/// embedding_bag_backward with the bags' lookups, reuse histogram and distinct rows, read from
/// the indices uploaded to the backend (lookups only, and distinct = min(lookups, rows), when
/// the indices were not uploaded). backward's SparseRows views describing tensors of max_nnz
/// rows.
std::unique_ptr<ops::EmbeddingBagOp> describe_embedding_bag(DescribingBackend& backend,
                                                            std::int64_t rows, int dim, int batch,
                                                            std::int64_t max_nnz);

}  // namespace scaletune::kernels::describe
