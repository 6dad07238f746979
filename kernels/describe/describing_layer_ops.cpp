#include "kernels/describe/describing_layer_ops.hpp"

#include <algorithm>
#include <vector>

#include "kernels/describe/describing_backend.hpp"
#include "kernels/describe/op_costs.hpp"
#include "kernels/host/reuse_histogram.hpp"

namespace scaletune::kernels::describe {
namespace {

class Conv2d final : public ops::Conv2dOp {
 public:
  Conv2d(DescribingBackend& backend, const ops::ConvGeometry& g, int batch, ops::DType dtype)
      : m_backend(backend), m_geometry(g), m_batch(batch), m_dtype(dtype) {}
  void forward(const ops::Tensor&, const ops::Tensor&, const ops::Tensor&) override {
    m_backend.record(conv2d_op(false, m_geometry, m_batch, m_dtype, false));
  }
  void backward(const ops::Tensor&, const ops::Tensor&, const ops::Tensor&, const ops::Tensor&,
                const ops::Tensor& dx) override {
    m_backend.record(conv2d_op(true, m_geometry, m_batch, m_dtype, dx.defined()));
  }

 private:
  DescribingBackend& m_backend;
  ops::ConvGeometry m_geometry;
  int m_batch;
  ops::DType m_dtype;
};

class BatchNorm final : public ops::BatchNormOp {
 public:
  BatchNorm(DescribingBackend& backend, Nchw shape, core::Communicator* sync, ops::DType dtype)
      : m_backend(backend), m_shape(shape), m_sync(sync), m_dtype(dtype) {}
  void forward(const ops::Tensor&, const ops::Tensor&, const ops::Tensor&,
               const ops::Tensor&) override {
    m_backend.record(batch_norm_op(false, m_shape.n, m_shape.c, m_shape.h, m_shape.w, m_dtype));
    all_reduce_sums(host() ? 2 * m_shape.c + 1 : 2 * m_shape.c);
  }
  void backward(const ops::Tensor&, const ops::Tensor&, const ops::Tensor&, const ops::Tensor&,
                const ops::Tensor&, const ops::Tensor&) override {
    m_backend.record(batch_norm_op(true, m_shape.n, m_shape.c, m_shape.h, m_shape.w, m_dtype));
    all_reduce_sums(2 * m_shape.c);
  }
  std::int64_t state_bytes() const override { return 0; }

 private:
  bool host() const { return m_backend.target() != core::DeviceKind::cuda; }
  void all_reduce_sums(int count) {
    if (m_sync == nullptr) return;
    m_sync->all_reduce(nullptr, nullptr, static_cast<std::size_t>(count),
                       host() ? core::DType::fp64 : core::DType::fp32, core::ReduceOp::sum);
  }
  DescribingBackend& m_backend;
  Nchw m_shape;
  core::Communicator* m_sync;
  ops::DType m_dtype;
};

class MaxPool final : public ops::MaxPoolOp {
 public:
  MaxPool(DescribingBackend& backend, Nchw shape, Window window, ops::DType dtype)
      : m_backend(backend), m_shape(shape), m_window(window), m_dtype(dtype) {}
  void forward(const ops::Tensor&, const ops::Tensor&) override { record(false); }
  void backward(const ops::Tensor&, const ops::Tensor&) override { record(true); }
  std::int64_t state_bytes() const override { return 0; }

 private:
  void record(bool backward) {
    m_backend.record(max_pool_op(backward, m_shape.n, m_shape.c, m_shape.h, m_shape.w,
                                 m_window.kernel, m_window.stride, m_window.pad, m_dtype));
  }
  DescribingBackend& m_backend;
  Nchw m_shape;
  Window m_window;
  ops::DType m_dtype;
};

class Attention final : public ops::AttentionOp {
 public:
  Attention(DescribingBackend& backend, int heads, int seq, int head_dim, ops::DType dtype)
      : m_backend(backend), m_heads(heads), m_seq(seq), m_head_dim(head_dim), m_dtype(dtype) {}
  void forward(const ops::Tensor& q, const ops::Tensor&, const ops::Tensor&,
               const ops::Tensor&) override {
    m_backend.record(attention_op(false, q.dim(0), m_heads, m_seq, m_head_dim, m_dtype));
  }
  void backward(const ops::Tensor& q, const ops::Tensor&, const ops::Tensor&, const ops::Tensor&,
                const ops::Tensor&, const ops::Tensor&, const ops::Tensor&) override {
    m_backend.record(attention_op(true, q.dim(0), m_heads, m_seq, m_head_dim, m_dtype));
  }
  std::int64_t workspace_bytes() const override { return 0; }

 private:
  DescribingBackend& m_backend;
  int m_heads, m_seq, m_head_dim;
  ops::DType m_dtype;
};

/// What an embedding bag's description knows of one batch of indices.
struct Lookups {
  std::int64_t count = 0;
  std::int64_t distinct = 0;
  std::vector<double> reuse;  ///< 17 bins, empty when the indices are unknown
};

class EmbeddingBag final : public ops::EmbeddingBagOp {
 public:
  EmbeddingBag(DescribingBackend& backend, std::int64_t rows, int dim, int batch,
               std::int64_t max_nnz)
      : m_backend(backend),
        m_rows(rows),
        m_dim(dim),
        m_batch(batch),
        m_row_ids(backend.allocate(static_cast<std::size_t>(max_nnz) * 8, "bag rows")),
        m_values(backend.allocate(static_cast<std::size_t>(max_nnz * dim) * 4, "bag grads")),
        m_max_nnz(max_nnz) {}

  void forward(const ops::Tensor& table, const ops::Tensor& indices, const ops::Tensor&,
               const ops::Tensor&) override {
    const Lookups& l = lookups(indices);
    m_backend.record(embedding_forward_op(m_batch, m_rows, m_dim, l.count, table.dtype(), l.reuse));
  }
  ops::SparseRows backward(const ops::Tensor&, const ops::Tensor& indices,
                           const ops::Tensor&) override {
    const Lookups& l = lookups(indices);
    m_backend.record(embedding_backward_op(m_batch, m_rows, m_dim, l.count, l.distinct, l.reuse));
    return {.rows = m_row_ids.tensor(ops::DType::int64, {l.distinct}),
            .values = m_values.tensor(ops::DType::fp32, {l.distinct, m_dim}),
            .count = l.distinct,
            .count_on_device = {}};
  }
  std::int64_t workspace_bytes() const override {
    return m_max_nnz * (8 + 4 * static_cast<std::int64_t>(m_dim));
  }

 private:
  /// The indices' lookups, computed once per indices tensor (a step's bags stay the same).
  const Lookups& lookups(const ops::Tensor& indices) {
    if (m_known == indices.data() && m_lookups.count == indices.numel()) return m_lookups;
    m_known = indices.data();
    m_lookups = Lookups{
        .count = indices.numel(), .distinct = std::min(indices.numel(), m_rows), .reuse = {}};
    const std::span<const std::int64_t> ids = m_backend.uploaded_int64(indices);
    if (ids.empty() && indices.numel() > 0) return m_lookups;
    const ReuseProfile profile = reuse_profile(ids);
    m_lookups.distinct = profile.distinct;
    m_lookups.reuse.assign(profile.shares.begin(), profile.shares.end());
    return m_lookups;
  }

  DescribingBackend& m_backend;
  std::int64_t m_rows;
  int m_dim;
  int m_batch;
  ops::Buffer m_row_ids, m_values;
  std::int64_t m_max_nnz;
  const void* m_known = nullptr;
  Lookups m_lookups;
};

}  // namespace

std::unique_ptr<ops::Conv2dOp> describe_conv2d(DescribingBackend& backend,
                                               const ops::ConvGeometry& g, int batch,
                                               ops::DType dtype) {
  return std::make_unique<Conv2d>(backend, g, batch, dtype);
}

std::unique_ptr<ops::BatchNormOp> describe_batch_norm(DescribingBackend& backend, Nchw shape,
                                                      core::Communicator* sync, ops::DType dtype) {
  return std::make_unique<BatchNorm>(backend, shape, sync, dtype);
}

std::unique_ptr<ops::MaxPoolOp> describe_max_pool(DescribingBackend& backend, Nchw shape,
                                                  Window window, ops::DType dtype) {
  return std::make_unique<MaxPool>(backend, shape, window, dtype);
}

std::unique_ptr<ops::AttentionOp> describe_attention(DescribingBackend& backend, int heads,
                                                     int seq_len, int head_dim, ops::DType dtype) {
  return std::make_unique<Attention>(backend, heads, seq_len, head_dim, dtype);
}

std::unique_ptr<ops::EmbeddingBagOp> describe_embedding_bag(DescribingBackend& backend,
                                                            std::int64_t rows, int dim, int batch,
                                                            std::int64_t max_nnz) {
  return std::make_unique<EmbeddingBag>(backend, rows, dim, batch, max_nnz);
}

}  // namespace scaletune::kernels::describe
