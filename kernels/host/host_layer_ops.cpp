// The host backend's stateful ops (convolution, batch norm, max pooling, attention, embedding
// bags) and the embedding and interaction ops that go with them.
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/host/attention.hpp"
#include "kernels/host/batch_norm.hpp"
#include "kernels/host/conv2d.hpp"
#include "kernels/host/detail/host_views.hpp"
#include "kernels/host/embedding_bag.hpp"
#include "kernels/host/host_backend.hpp"
#include "kernels/host/interaction.hpp"
#include "kernels/host/pooling.hpp"
#include "kernels/host/sparse_optimizer.hpp"

namespace scaletune::kernels {
namespace {

using detail::flat;
using detail::view2;
using detail::view4;

/// Throws std::invalid_argument unless the host computes in `dtype` (fp32).
void require_fp32(const char* op, ops::DType dtype) {
  if (dtype != ops::DType::fp32)
    throw std::invalid_argument(std::string(op) + ": the host computes in fp32 only, not " +
                                std::string(core::dtype_key(dtype)));
}

class HostConv2d final : public ops::Conv2dOp {
 public:
  HostConv2d(const ops::ConvGeometry& g, HostBackend& backend) : m_conv(g), m_backend(backend) {
    m_backend.workspace(m_conv.workspace_floats());
  }
  void forward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& y) override {
    m_conv.forward(view4("conv2d forward", x), view4("conv2d forward", w),
                   view4("conv2d forward", y), workspace());
  }
  void backward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& dy,
                const ops::Tensor& dw, const ops::Tensor& dx) override {
    constexpr const char* kOp = "conv2d backward";
    m_conv.backward(view4(kOp, x), view4(kOp, w), view4(kOp, dy), view4(kOp, dw),
                    dx.defined() ? view4(kOp, dx) : Tensor4(), workspace());
  }

 private:
  Vector workspace() const {
    const std::size_t floats = m_conv.workspace_floats();
    return Vector(m_backend.workspace(floats), floats);
  }
  Conv2d m_conv;
  HostBackend& m_backend;
};

class HostBatchNorm final : public ops::BatchNormOp {
 public:
  HostBatchNorm(int channels, float eps, core::Communicator* sync) : m_bn(channels, sync, eps) {}
  void forward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& beta,
               const ops::Tensor& y) override {
    m_bn.forward(view4("batch_norm forward", x), flat(gamma), flat(beta),
                 view4("batch_norm forward", y));
  }
  void backward(const ops::Tensor& x, const ops::Tensor& gamma, const ops::Tensor& dy,
                const ops::Tensor& dgamma, const ops::Tensor& dbeta,
                const ops::Tensor& dx) override {
    constexpr const char* kOp = "batch_norm backward";
    m_bn.backward(view4(kOp, x), flat(gamma), view4(kOp, dy), flat(dgamma), flat(dbeta),
                  view4(kOp, dx));
  }
  std::int64_t state_bytes() const override { return m_bn.state_bytes(); }

 private:
  BatchNorm2d m_bn;
};

class HostMaxPool final : public ops::MaxPoolOp {
 public:
  HostMaxPool(int kernel, int stride, int pad, std::int64_t outputs)
      : m_pool(kernel, stride, pad), m_state_bytes(outputs * std::int64_t{sizeof(std::int32_t)}) {}
  void forward(const ops::Tensor& x, const ops::Tensor& y) override {
    m_pool.forward(view4("max_pool forward", x), view4("max_pool forward", y));
  }
  void backward(const ops::Tensor& dy, const ops::Tensor& dx) override {
    m_pool.backward(view4("max_pool backward", dy), view4("max_pool backward", dx));
  }
  std::int64_t state_bytes() const override { return m_state_bytes; }

 private:
  MaxPool2d m_pool;
  std::int64_t m_state_bytes;
};

class HostAttention final : public ops::AttentionOp {
 public:
  HostAttention(int max_batch, int heads, int seq_len)
      : m_ws(std::size_t(max_batch), std::size_t(heads), std::size_t(seq_len)),
        m_bytes(AttentionWorkspace::bytes(std::size_t(max_batch), std::size_t(heads),
                                          std::size_t(seq_len))) {}
  void forward(const ops::Tensor& q, const ops::Tensor& k, const ops::Tensor& v,
               const ops::Tensor& out) override {
    constexpr const char* kOp = "attention forward";
    const Tensor4 tq = view4(kOp, q);
    attention_forward(tq, view4(kOp, k), view4(kOp, v), batch_view(tq.extent(0)), view4(kOp, out));
  }
  void backward(const ops::Tensor& q, const ops::Tensor& k, const ops::Tensor& v,
                const ops::Tensor& dout, const ops::Tensor& dq, const ops::Tensor& dk,
                const ops::Tensor& dv) override {
    constexpr const char* kOp = "attention backward";
    const Tensor4 tq = view4(kOp, q);
    attention_backward(tq, view4(kOp, k), view4(kOp, v), view4(kOp, dout), batch_view(tq.extent(0)),
                       view4(kOp, dq), view4(kOp, dk), view4(kOp, dv));
  }
  std::int64_t workspace_bytes() const override { return m_bytes; }

 private:
  /// The workspace seen for `batch` <= max_batch samples (the probabilities' leading rows).
  /// Throws std::invalid_argument for a larger batch.
  AttentionWorkspace batch_view(std::size_t batch) const {
    const Tensor4& all = m_ws.probs;
    if (batch > all.extent(0))
      throw std::invalid_argument("HostBackend attention: a batch of " + std::to_string(batch) +
                                  " samples, expected at most max_batch " +
                                  std::to_string(all.extent(0)));
    AttentionWorkspace ws;
    ws.probs = Tensor4(all.data(), batch, all.extent(1), all.extent(2), all.extent(3));
    ws.dprobs = m_ws.dprobs;
    return ws;
  }
  AttentionWorkspace m_ws;
  std::int64_t m_bytes;
};

/// The SparseRowGrad views of a SparseRows of the host backend.
SparseRowGrad row_grad(const ops::SparseRows& grad) {
  const auto count = static_cast<std::size_t>(grad.count);
  const Tensor2 values = view2("sparse gradient", grad.values);
  return {IndexVector(grad.rows.as<std::int64_t>(), count),
          Tensor2(values.data(), count, values.extent(1))};
}

/// Calls f(table view) with the table as the host ops' fp32, fp16 or bf16 view.
template <class F>
void with_table(const char* op, const ops::Tensor& table, F&& f) {
  switch (table.dtype()) {
    case ops::DType::fp32:
      return f(view2(op, table));
    case ops::DType::fp16:
      return f(detail::fp16_table(table));
    case ops::DType::bf16:
      return f(detail::bf16_table(table));
    default:
      throw std::invalid_argument(std::string(op) + ": a table of " +
                                  std::string(core::dtype_key(table.dtype())) +
                                  ", expected fp32, fp16 or bf16");
  }
}

class HostEmbeddingBag final : public ops::EmbeddingBagOp {
 public:
  HostEmbeddingBag(std::int64_t rows, int dim, std::int64_t max_nnz, ops::Pooling mode)
      : m_rows(rows),
        m_mode(mode),
        m_bytes(max_nnz * static_cast<std::int64_t>(sizeof(std::int64_t) + dim * sizeof(float))) {}
  void forward(const ops::Tensor& table, const ops::Tensor& indices, const ops::Tensor& offsets,
               const ops::Tensor& out) override {
    constexpr const char* kOp = "embedding_bag forward";
    with_table(kOp, table, [&](const auto& t) {
      embedding_bag_forward(t, detail::indices(kOp, indices), detail::indices(kOp, offsets), m_mode,
                            view2(kOp, out));
    });
  }
  ops::SparseRows backward(const ops::Tensor& grad_out, const ops::Tensor& indices,
                           const ops::Tensor& offsets) override {
    constexpr const char* kOp = "embedding_bag backward";
    m_grad = embedding_bag_backward(view2(kOp, grad_out), detail::indices(kOp, indices),
                                    detail::indices(kOp, offsets), m_mode,
                                    static_cast<std::size_t>(m_rows));
    const auto count = static_cast<std::int64_t>(m_grad.rows.extent(0));
    return {.rows = ops::Tensor(m_grad.rows.data(), ops::DType::int64, {count}),
            .values = ops::Tensor(m_grad.values.data(), ops::DType::fp32,
                                  {count, static_cast<std::int64_t>(m_grad.values.extent(1))}),
            .count = count,
            .count_on_device = {}};
  }
  std::int64_t workspace_bytes() const override { return m_bytes; }

 private:
  std::int64_t m_rows;
  ops::Pooling m_mode;
  std::int64_t m_bytes;
  SparseRowGrad m_grad;
};

}  // namespace

float* HostBackend::workspace(std::size_t floats) {
  if (m_workspace.size() < floats) m_workspace.resize(floats);
  return m_workspace.data();
}

std::int64_t HostBackend::workspace_bytes() const {
  return static_cast<std::int64_t>(m_workspace.size() * sizeof(float));
}

std::unique_ptr<ops::Conv2dOp> HostBackend::make_conv2d(const ops::ConvGeometry& g, int,
                                                        ops::DType dtype) {
  require_fp32("HostBackend::make_conv2d", dtype);
  return std::make_unique<HostConv2d>(g, *this);
}

std::unique_ptr<ops::BatchNormOp> HostBackend::make_batch_norm(int, int channels, int, int,
                                                               float eps, core::Communicator* sync,
                                                               ops::DType dtype) {
  require_fp32("HostBackend::make_batch_norm", dtype);
  return std::make_unique<HostBatchNorm>(channels, eps, sync);
}

std::unique_ptr<ops::MaxPoolOp> HostBackend::make_max_pool(int kernel, int stride, int pad,
                                                           int batch, int channels, int h, int w,
                                                           ops::DType dtype) {
  require_fp32("HostBackend::make_max_pool", dtype);
  const std::int64_t outputs = std::int64_t{batch} * channels *
                               MaxPool2d::out_size(h, kernel, stride, pad) *
                               MaxPool2d::out_size(w, kernel, stride, pad);
  return std::make_unique<HostMaxPool>(kernel, stride, pad, outputs);
}

void HostBackend::global_avg_pool_forward(const ops::Tensor& x, const ops::Tensor& y) {
  kernels::global_avg_pool_forward(view4("global_avg_pool forward", x),
                                   view2("global_avg_pool forward", y));
}

void HostBackend::global_avg_pool_backward(const ops::Tensor& dy, const ops::Tensor& dx) {
  kernels::global_avg_pool_backward(view2("global_avg_pool backward", dy),
                                    view4("global_avg_pool backward", dx));
}

std::unique_ptr<ops::AttentionOp> HostBackend::make_attention(int max_batch, int heads, int seq_len,
                                                              int, ops::DType dtype) {
  require_fp32("HostBackend::make_attention", dtype);
  return std::make_unique<HostAttention>(max_batch, heads, seq_len);
}

std::unique_ptr<ops::EmbeddingBagOp> HostBackend::make_embedding_bag(std::int64_t rows, int dim,
                                                                     int, std::int64_t max_nnz,
                                                                     ops::Pooling mode) {
  return std::make_unique<HostEmbeddingBag>(rows, dim, max_nnz, mode);
}

void HostBackend::sparse_sgd(const ops::Tensor& table, const ops::SparseRows& grad, float lr) {
  with_table("sparse_sgd", table, [&](const auto& t) { sparse_sgd_step(t, row_grad(grad), lr); });
}

void HostBackend::sparse_rowwise_adagrad(const ops::Tensor& table, const ops::Tensor& state,
                                         const ops::SparseRows& grad,
                                         const ops::RowwiseAdagradOptions& opt) {
  with_table("sparse_rowwise_adagrad", table, [&](const auto& t) {
    sparse_rowwise_adagrad_step(t, flat(state), row_grad(grad), opt);
  });
}

void HostBackend::interaction_forward(const ops::Tensor& z, const ops::Tensor& out) {
  kernels::interaction_forward(detail::view3("interaction forward", z),
                               view2("interaction forward", out));
}

void HostBackend::interaction_backward(const ops::Tensor& z, const ops::Tensor& dout,
                                       const ops::Tensor& dz) {
  constexpr const char* kOp = "interaction backward";
  kernels::interaction_backward(detail::view3(kOp, z), view2(kOp, dout), detail::view3(kOp, dz));
}

}  // namespace scaletune::kernels
