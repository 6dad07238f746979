#include "kernels/describe/describing_backend.hpp"

#include <algorithm>
#include <cstring>

#include "harness/core/described_memory.hpp"

#include "kernels/describe/describing_layer_ops.hpp"
#include "kernels/describe/op_costs.hpp"

namespace scaletune::kernels::describe {
namespace {

/// Where the first allocation starts: the described range, which no process maps.
constexpr std::uintptr_t kFirstAddress = core::kDescribedAddressBase + (std::uintptr_t{1} << 20);
/// Allocations are aligned to this and kept this far apart.
constexpr std::uintptr_t kAlignment = 256;

bool is_integer(ops::DType t) {
  return t == ops::DType::int32 || t == ops::DType::int64;
}

}  // namespace

DescribingBackend::DescribingBackend(core::DeviceKind target, trace::Recorder& recorder)
    : m_target(target), m_recorder(recorder), m_next_address(kFirstAddress) {}

DescribingBackend::~DescribingBackend() = default;

core::MemorySpace DescribingBackend::memory_space() const {
  return m_target == core::DeviceKind::cuda ? core::MemorySpace::device : core::MemorySpace::host;
}

bool DescribingBackend::computes_in(ops::DType dtype) const {
  if (dtype == ops::DType::fp32) return true;
  return m_target == core::DeviceKind::cuda &&
         (dtype == ops::DType::fp16 || dtype == ops::DType::bf16);
}

ops::Buffer DescribingBackend::allocate(std::size_t bytes, const std::string&) {
  const std::uintptr_t at = m_next_address;
  m_next_address += (bytes + 2 * kAlignment - 1) / kAlignment * kAlignment;
  return ops::Buffer(reinterpret_cast<void*>(at), bytes, [this](void* data) {
    m_uploads.erase(reinterpret_cast<std::uintptr_t>(data));
  });
}

void DescribingBackend::upload(const ops::Tensor& dst, std::span<const std::byte> host) {
  if (!is_integer(dst.dtype())) return;
  auto& kept = m_uploads[reinterpret_cast<std::uintptr_t>(dst.data())];
  kept.first = dst.numel();
  kept.second.assign(host.begin(), host.end());
}

void DescribingBackend::download(const ops::Tensor& src, std::span<std::byte> host) {
  std::fill(host.begin(), host.end(), std::byte{0});
  const auto it = m_uploads.find(reinterpret_cast<std::uintptr_t>(src.data()));
  if (it == m_uploads.end() || it->second.first != src.numel()) return;
  const std::size_t n = std::min(host.size(), it->second.second.size());
  std::memcpy(host.data(), it->second.second.data(), n);
}

std::span<const std::int64_t> DescribingBackend::uploaded_int64(const ops::Tensor& t) const {
  const auto it = m_uploads.find(reinterpret_cast<std::uintptr_t>(t.data()));
  if (t.dtype() != ops::DType::int64 || it == m_uploads.end() || it->second.first != t.numel())
    return {};
  return {reinterpret_cast<const std::int64_t*>(it->second.second.data()),
          static_cast<std::size_t>(t.numel())};
}

void DescribingBackend::elementwise(const char* op, const ops::Tensor& x) {
  record(elementwise_kind_op(op, x.numel(), x.dtype()));
}

void DescribingBackend::fill(const ops::Tensor& x, float) {
  elementwise("fill", x);
}

void DescribingBackend::copy(const ops::Tensor& src, const ops::Tensor& dst) {
  record(copy_op(src.numel(), src.dtype(), dst.dtype()));
}

void DescribingBackend::add(const ops::Tensor& x, const ops::Tensor&) {
  elementwise("add", x);
}

void DescribingBackend::scale(const ops::Tensor& x, float) {
  elementwise("scale", x);
}

void DescribingBackend::copy_columns(const ops::Tensor& src, std::int64_t, const ops::Tensor& dst,
                                     std::int64_t, std::int64_t cols, bool accumulate) {
  record(copy_columns_op(src.dim(0), cols, dst.dtype(), accumulate));
}

void DescribingBackend::relu_forward(const ops::Tensor& x, const ops::Tensor&) {
  elementwise("relu_forward", x);
}

void DescribingBackend::relu_backward(const ops::Tensor& y, const ops::Tensor&,
                                      const ops::Tensor&) {
  elementwise("relu_backward", y);
}

void DescribingBackend::gelu_forward(const ops::Tensor& x, const ops::Tensor&) {
  elementwise("gelu_forward", x);
}

void DescribingBackend::gelu_backward(const ops::Tensor& x, const ops::Tensor&,
                                      const ops::Tensor&) {
  elementwise("gelu_backward", x);
}

void DescribingBackend::dropout_forward(const ops::Tensor& x, const ops::DropoutMask&,
                                        const ops::Tensor&) {
  elementwise("dropout_forward", x);
}

void DescribingBackend::dropout_backward(const ops::Tensor& dy, const ops::DropoutMask&,
                                         const ops::Tensor&) {
  elementwise("dropout_backward", dy);
}

void DescribingBackend::gemm(bool trans_a, bool trans_b, float, const ops::Tensor& a,
                             const ops::Tensor&, float beta, const ops::Tensor& c) {
  const bool batched = c.rank() == 3;
  const std::int64_t batch = batched ? c.dim(0) : 1;
  const int r = batched ? 1 : 0;
  const std::int64_t m = c.dim(r), n = c.dim(r + 1);
  const std::int64_t k = trans_a ? a.dim(r) : a.dim(r + 1);
  record(gemm_op(m, n, k, batch, trans_a, trans_b, a.dtype(), c.dtype(), beta != 0.0f));
}

void DescribingBackend::linear_forward(const ops::Tensor& x, const ops::Tensor& w,
                                       const ops::Tensor&, const ops::Tensor&) {
  record(linear_forward_op(x.dim(0), x.dim(1), w.dim(0), x.dtype()));
}

void DescribingBackend::linear_backward(const ops::Tensor& x, const ops::Tensor& w,
                                        const ops::Tensor&, const ops::Tensor&, const ops::Tensor&,
                                        const ops::Tensor& dx, ops::GradMode) {
  record(linear_backward_op(x.dim(0), x.dim(1), w.dim(0), x.dtype(), dx.defined()));
}

void DescribingBackend::layer_norm_forward(const ops::Tensor& x, const ops::Tensor&,
                                           const ops::Tensor&, const ops::Tensor&,
                                           const ops::Tensor&, const ops::Tensor&, float) {
  record(layer_norm_op(false, x.dim(0), x.dim(1), x.dtype()));
}

void DescribingBackend::layer_norm_backward(const ops::Tensor& x, const ops::Tensor&,
                                            const ops::Tensor&, const ops::Tensor&,
                                            const ops::Tensor&, const ops::Tensor&,
                                            const ops::Tensor&, const ops::Tensor&) {
  record(layer_norm_op(true, x.dim(0), x.dim(1), x.dtype()));
}

void DescribingBackend::heads_from_rows(const ops::Tensor&, std::int64_t,
                                        const ops::Tensor& heads) {
  record(heads_copy_op("heads_from_rows", heads.shape(), heads.dtype()));
}

void DescribingBackend::rows_from_heads(const ops::Tensor& heads, const ops::Tensor&,
                                        std::int64_t) {
  record(heads_copy_op("rows_from_heads", heads.shape(), heads.dtype()));
}

void DescribingBackend::token_embedding_forward(const ops::Tensor& wte, const ops::Tensor&,
                                                const ops::Tensor& tokens, const ops::Tensor&) {
  record(token_embedding_op(false, tokens.numel(), wte.dim(1)));
}

void DescribingBackend::token_embedding_backward(const ops::Tensor&, const ops::Tensor& tokens,
                                                 const ops::Tensor& dwte, const ops::Tensor&) {
  record(token_embedding_op(true, tokens.numel(), dwte.dim(1)));
}

std::unique_ptr<ops::Conv2dOp> DescribingBackend::make_conv2d(const ops::ConvGeometry& g, int batch,
                                                              ops::DType dtype) {
  return describe_conv2d(*this, g, batch, dtype);
}

std::unique_ptr<ops::BatchNormOp> DescribingBackend::make_batch_norm(int batch, int channels, int h,
                                                                     int w, float,
                                                                     core::Communicator* sync,
                                                                     ops::DType dtype) {
  return describe_batch_norm(*this, {batch, channels, h, w}, sync, dtype);
}

std::unique_ptr<ops::MaxPoolOp> DescribingBackend::make_max_pool(int kernel, int stride, int pad,
                                                                 int batch, int channels, int h,
                                                                 int w, ops::DType dtype) {
  return describe_max_pool(*this, {batch, channels, h, w}, {kernel, stride, pad}, dtype);
}

void DescribingBackend::global_avg_pool_forward(const ops::Tensor& x, const ops::Tensor&) {
  record(avg_pool_op(false, x.dim(0), x.dim(1), x.dim(2), x.dim(3), x.dtype()));
}

void DescribingBackend::global_avg_pool_backward(const ops::Tensor&, const ops::Tensor& dx) {
  record(avg_pool_op(true, dx.dim(0), dx.dim(1), dx.dim(2), dx.dim(3), dx.dtype()));
}

std::unique_ptr<ops::AttentionOp> DescribingBackend::make_attention(int, int heads, int seq_len,
                                                                    int head_dim,
                                                                    ops::DType dtype) {
  return describe_attention(*this, heads, seq_len, head_dim, dtype);
}

void DescribingBackend::softmax_cross_entropy(const ops::Tensor& logits, const ops::Tensor&, float,
                                              float, const ops::Tensor&, const ops::Tensor&) {
  record(softmax_cross_entropy_op(logits.dim(0), logits.dim(1), logits.dtype()));
}

void DescribingBackend::bce_with_logits(const ops::Tensor& logits, const ops::Tensor&, float, float,
                                        const ops::Tensor&, const ops::Tensor&) {
  record(bce_op(logits.dim(0), logits.dtype()));
}

std::unique_ptr<ops::EmbeddingBagOp> DescribingBackend::make_embedding_bag(std::int64_t rows,
                                                                           int dim, int batch,
                                                                           std::int64_t max_nnz,
                                                                           ops::Pooling) {
  return describe_embedding_bag(*this, rows, dim, batch, max_nnz);
}

void DescribingBackend::sparse_sgd(const ops::Tensor& table, const ops::SparseRows& grad, float) {
  record(sparse_update_op("sparse_sgd", grad.count, table.dim(0), table.dim(1), table.dtype()));
}

void DescribingBackend::sparse_rowwise_adagrad(const ops::Tensor& table, const ops::Tensor&,
                                               const ops::SparseRows& grad,
                                               const ops::RowwiseAdagradOptions&) {
  record(sparse_update_op("sparse_rowwise_adagrad", grad.count, table.dim(0), table.dim(1),
                          table.dtype()));
}

void DescribingBackend::interaction_forward(const ops::Tensor& z, const ops::Tensor&) {
  record(interaction_op(false, z.dim(0), z.dim(1), z.dim(2)));
}

void DescribingBackend::interaction_backward(const ops::Tensor& z, const ops::Tensor&,
                                             const ops::Tensor&) {
  record(interaction_op(true, z.dim(0), z.dim(1), z.dim(2)));
}

void DescribingBackend::sgd_momentum(const ops::Tensor& params, const ops::Tensor&,
                                     const ops::Tensor&, const ops::SgdOptions&,
                                     const ops::MasterUpdate& update) {
  record(optimizer_op("sgd_momentum", params.numel(), update.copy.defined()));
}

void DescribingBackend::adam(const ops::Tensor& params, const ops::Tensor&, const ops::Tensor&,
                             const ops::Tensor&, int, const ops::AdamOptions&,
                             const ops::MasterUpdate& update) {
  record(optimizer_op("adam", params.numel(), update.copy.defined()));
}

void DescribingBackend::check_nonfinite(const ops::Tensor& x, const ops::Tensor&) {
  elementwise("check_nonfinite", x);
}

}  // namespace scaletune::kernels::describe
