#include "kernels/host/host_backend.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "kernels/host/activation.hpp"
#include "kernels/host/adam.hpp"
#include "kernels/host/detail/host_views.hpp"
#include "kernels/host/dropout.hpp"
#include "kernels/host/elementwise.hpp"
#include "kernels/host/gelu.hpp"
#include "kernels/host/gemm.hpp"
#include "kernels/host/head_layout.hpp"
#include "kernels/host/huge_page_buffer.hpp"
#include "kernels/host/layer_norm.hpp"
#include "kernels/host/linear.hpp"
#include "kernels/host/loss.hpp"
#include "kernels/host/optimizer.hpp"
#include "kernels/host/token_embedding.hpp"

namespace scaletune::kernels {
namespace {

using detail::extent;
using detail::flat;
using detail::view2;
using detail::view4;

constexpr std::size_t kAlignment = 64;

/// Throws std::invalid_argument unless a and b have the same number of elements.
void require_same_numel(const char* op, const ops::Tensor& a, const ops::Tensor& b) {
  if (a.numel() != b.numel())
    throw std::invalid_argument(std::string(op) + ": " + a.describe() + " and " + b.describe() +
                                " differ in size");
}

/// The rows and columns of one (possibly transposed) GEMM operand of a rank-2 or rank-3 tensor.
struct MatrixShape {
  std::int64_t batch, rows, cols;
};

MatrixShape matrix_shape(const char* name, const ops::Tensor& t) {
  if (t.rank() == 2) return {1, t.dim(0), t.dim(1)};
  if (t.rank() == 3) return {t.dim(0), t.dim(1), t.dim(2)};
  throw std::invalid_argument(std::string("HostBackend::gemm: ") + name + " is " + t.describe() +
                              ", expected rank 2 or 3");
}

/// Throws std::invalid_argument unless the token rows r [B S, W] (the view of `rows`) hold
/// heads [B, heads, S, Dh] in their columns [col, col + heads Dh).
void require_head_block(const char* op, const ops::Tensor& rows, const Tensor2& r, std::int64_t col,
                        const ops::Tensor& heads) {
  const std::int64_t width = heads.dim(1) * heads.dim(3);
  if (static_cast<std::int64_t>(r.extent(0)) != heads.dim(0) * heads.dim(2) || col < 0 ||
      col + width > static_cast<std::int64_t>(r.extent(1)))
    throw std::invalid_argument(std::string(op) + ": columns [" + std::to_string(col) + ", " +
                                std::to_string(col + width) + ") of " + rows.describe() +
                                " do not hold " + heads.describe() +
                                ", expected B S rows and col + heads Dh <= W");
}

/// Throws std::invalid_argument unless tokens [T], wte [V, H] and wpe [S, H] (V, S >= 1) fit the
/// token rows [T, H] (out of the forward, dout of the backward).
void require_embedding_shapes(const char* op, const ops::Tensor& rows, const ops::Tensor& tokens,
                              const ops::Tensor& wte, const ops::Tensor& wpe) {
  const std::int64_t t = rows.dim(0), h = rows.numel() / std::max<std::int64_t>(t, 1);
  const auto fits = [h](const ops::Tensor& table) {
    return table.dim(0) >= 1 && table.numel() == table.dim(0) * h;
  };
  if (tokens.dim(0) != t || !fits(wte) || !fits(wpe))
    throw std::invalid_argument(std::string(op) + ": wte " + wte.describe() + ", wpe " +
                                wpe.describe() + " and tokens " + tokens.describe() +
                                " do not fit the token rows " + rows.describe() +
                                ", expected [V, H], [S, H] and [T] for [T, H]");
}

/// The loss tensor's one double, to add to.
double& loss_slot(const ops::Tensor& loss) {
  ops::require_shape("loss", "loss", loss, {1});
  return *loss.as<double>();
}

/// Runs an update of fp32 master parameters with `update`'s extras: skipped when the overflow
/// flag is set, gradients unscaled first, the 16-bit copy written after.
template <class Step>
void master_update(const ops::Tensor& params, const ops::Tensor& grads,
                   const ops::MasterUpdate& update, Step&& step) {
  require_same_numel("master update grads", params, grads);
  if (update.copy.defined()) require_same_numel("master update copy", params, update.copy);
  if (update.found_nonfinite.defined() && *update.found_nonfinite.as<std::int32_t>() != 0) return;
  if (update.unscale != 1.0f)
    scale_flat(grads.as<float>(), static_cast<std::size_t>(grads.numel()), update.unscale);
  step();
  if (update.copy.defined()) {
    convert_copy(params.data(), params.dtype(), update.copy.data(), update.copy.dtype(),
                 static_cast<std::size_t>(params.numel()));
  }
}

}  // namespace

ops::Buffer HostBackend::allocate(std::size_t bytes, const std::string& label) {
  if (static_cast<std::int64_t>(bytes) >= HugePageBuffer::kAlignmentBytes) {
    auto* mapping = new HugePageBuffer(static_cast<std::int64_t>(bytes));
    return {mapping->floats(), bytes, [mapping](void*) { delete mapping; }};
  }
  const std::size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* data = rounded == 0 ? nullptr : std::aligned_alloc(kAlignment, rounded);
  if (rounded != 0 && data == nullptr) throw std::bad_alloc();
  if (data != nullptr) std::memset(data, 0, rounded);
  static_cast<void>(label);
  return {data, bytes, [](void* p) { std::free(p); }};
}

void HostBackend::upload(const ops::Tensor& dst, std::span<const std::byte> host) {
  if (host.size() != dst.bytes())
    throw std::invalid_argument("HostBackend::upload: " + std::to_string(host.size()) +
                                " bytes for " + dst.describe());
  if (!host.empty()) std::memcpy(dst.data(), host.data(), host.size());
}

void HostBackend::download(const ops::Tensor& src, std::span<std::byte> host) {
  if (host.size() != src.bytes())
    throw std::invalid_argument("HostBackend::download: " + std::to_string(host.size()) +
                                " bytes for " + src.describe());
  if (!host.empty()) std::memcpy(host.data(), src.data(), host.size());
}

void HostBackend::fill(const ops::Tensor& x, float value) {
  kernels::fill(x.data(), x.dtype(), static_cast<std::size_t>(x.numel()), value);
}

void HostBackend::copy(const ops::Tensor& src, const ops::Tensor& dst) {
  require_same_numel("HostBackend::copy", src, dst);
  convert_copy(src.data(), src.dtype(), dst.data(), dst.dtype(),
               static_cast<std::size_t>(src.numel()));
}

void HostBackend::add(const ops::Tensor& x, const ops::Tensor& y) {
  require_same_numel("HostBackend::add", x, y);
  add_flat(x.as<float>(), y.as<float>(), static_cast<std::size_t>(x.numel()));
}

void HostBackend::scale(const ops::Tensor& x, float alpha) {
  scale_flat(x.as<float>(), static_cast<std::size_t>(x.numel()), alpha);
}

void HostBackend::copy_columns(const ops::Tensor& src, std::int64_t src_col, const ops::Tensor& dst,
                               std::int64_t dst_col, std::int64_t cols, bool accumulate) {
  constexpr const char* kOp = "HostBackend::copy_columns";
  const Tensor2 s = view2(kOp, src), d = view2(kOp, dst);
  if (s.extent(0) != d.extent(0) || src_col < 0 || dst_col < 0 || cols < 0 ||
      static_cast<std::size_t>(src_col + cols) > s.extent(1) ||
      static_cast<std::size_t>(dst_col + cols) > d.extent(1))
    throw std::invalid_argument(std::string(kOp) + ": columns [" + std::to_string(src_col) + ", +" +
                                std::to_string(cols) + ") of " + src.describe() + " into [" +
                                std::to_string(dst_col) + ", ...) of " + dst.describe() +
                                " do not fit");
  kernels::copy_columns(s.data(), s.extent(1), static_cast<std::size_t>(src_col), d.data(),
                        d.extent(1), static_cast<std::size_t>(dst_col), s.extent(0),
                        static_cast<std::size_t>(cols), accumulate);
}

void HostBackend::relu_forward(const ops::Tensor& x, const ops::Tensor& y) {
  require_same_numel("HostBackend::relu_forward", x, y);
  kernels::relu_forward(Tensor2(x.as<float>(), 1, std::size_t(x.numel())),
                        Tensor2(y.as<float>(), 1, std::size_t(y.numel())));
}

void HostBackend::relu_backward(const ops::Tensor& y, const ops::Tensor& dy,
                                const ops::Tensor& dx) {
  require_same_numel("HostBackend::relu_backward", y, dy);
  require_same_numel("HostBackend::relu_backward", y, dx);
  const auto n = static_cast<std::size_t>(y.numel());
  kernels::relu_backward(Tensor2(y.as<float>(), 1, n), Tensor2(dy.as<float>(), 1, n),
                         Tensor2(dx.as<float>(), 1, n));
}

void HostBackend::gelu_forward(const ops::Tensor& x, const ops::Tensor& y) {
  kernels::gelu_forward(view2("gelu_forward", x), view2("gelu_forward", y));
}

void HostBackend::gelu_backward(const ops::Tensor& x, const ops::Tensor& dy,
                                const ops::Tensor& dx) {
  kernels::gelu_backward(view2("gelu_backward", x), view2("gelu_backward", dy),
                         view2("gelu_backward", dx));
}

void HostBackend::dropout_forward(const ops::Tensor& x, const ops::DropoutMask& mask,
                                  const ops::Tensor& y) {
  kernels::dropout_forward(view2("dropout_forward", x), mask, view2("dropout_forward", y));
}

void HostBackend::dropout_backward(const ops::Tensor& dy, const ops::DropoutMask& mask,
                                   const ops::Tensor& dx) {
  kernels::dropout_backward(view2("dropout_backward", dy), mask, view2("dropout_backward", dx));
}

void HostBackend::gemm(bool trans_a, bool trans_b, float alpha, const ops::Tensor& a,
                       const ops::Tensor& b, float beta, const ops::Tensor& c) {
  const MatrixShape sa = matrix_shape("a", a), sb = matrix_shape("b", b), sc = matrix_shape("c", c);
  const std::int64_t m = trans_a ? sa.cols : sa.rows, k = trans_a ? sa.rows : sa.cols;
  const std::int64_t kb = trans_b ? sb.cols : sb.rows, n = trans_b ? sb.rows : sb.cols;
  if (sa.batch != sc.batch || sb.batch != sc.batch || k != kb || sc.rows != m || sc.cols != n)
    throw std::invalid_argument("HostBackend::gemm: a " + a.describe() + (trans_a ? "^T" : "") +
                                " times b " + b.describe() + (trans_b ? "^T" : "") +
                                " does not give c " + c.describe());
  const float* pa = a.as<float>();
  const float* pb = b.as<float>();
  float* pc = c.as<float>();
  for (std::int64_t i = 0; i < sc.batch; ++i)
    kernels::gemm(trans_a, trans_b, int(m), int(n), int(k), alpha, pa + i * sa.rows * sa.cols,
                  int(sa.cols), pb + i * sb.rows * sb.cols, int(sb.cols), beta,
                  pc + i * sc.rows * sc.cols, int(sc.cols));
}

void HostBackend::linear_forward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& b,
                                 const ops::Tensor& y) {
  kernels::linear_forward(view2("linear_forward", x), view2("linear_forward", w), flat(b),
                          view2("linear_forward", y));
}

void HostBackend::linear_backward(const ops::Tensor& x, const ops::Tensor& w, const ops::Tensor& dy,
                                  const ops::Tensor& dw, const ops::Tensor& db,
                                  const ops::Tensor& dx, ops::GradMode mode) {
  constexpr const char* kOp = "linear_backward";
  kernels::linear_backward(view2(kOp, x), view2(kOp, w), view2(kOp, dy), view2(kOp, dw), flat(db),
                           dx.defined() ? view2(kOp, dx) : Tensor2(), mode);
}

void HostBackend::layer_norm_forward(const ops::Tensor& x, const ops::Tensor& gamma,
                                     const ops::Tensor& beta, const ops::Tensor& y,
                                     const ops::Tensor& mean, const ops::Tensor& rstd, float eps) {
  constexpr const char* kOp = "layer_norm_forward";
  kernels::layer_norm_forward(view2(kOp, x), flat(gamma), flat(beta), view2(kOp, y), flat(mean),
                              flat(rstd), eps);
}

void HostBackend::layer_norm_backward(const ops::Tensor& x, const ops::Tensor& gamma,
                                      const ops::Tensor& dy, const ops::Tensor& mean,
                                      const ops::Tensor& rstd, const ops::Tensor& dx,
                                      const ops::Tensor& dgamma, const ops::Tensor& dbeta) {
  constexpr const char* kOp = "layer_norm_backward";
  kernels::layer_norm_backward(view2(kOp, x), flat(gamma), view2(kOp, dy), flat(mean), flat(rstd),
                               view2(kOp, dx), flat(dgamma), flat(dbeta));
}

void HostBackend::heads_from_rows(const ops::Tensor& rows, std::int64_t col,
                                  const ops::Tensor& heads) {
  const Tensor2 r = view2("heads_from_rows", rows);
  const Tensor4 h = view4("heads_from_rows", heads);
  require_head_block("heads_from_rows", rows, r, col, heads);
  rows_to_heads(r.data() + col, r.extent(1), h);
}

void HostBackend::rows_from_heads(const ops::Tensor& heads, const ops::Tensor& rows,
                                  std::int64_t col) {
  const Tensor2 r = view2("rows_from_heads", rows);
  const Tensor4 h = view4("rows_from_heads", heads);
  require_head_block("rows_from_heads", rows, r, col, heads);
  heads_to_rows(h, r.data() + col, r.extent(1));
}

void HostBackend::token_embedding_forward(const ops::Tensor& wte, const ops::Tensor& wpe,
                                          const ops::Tensor& tokens, const ops::Tensor& out) {
  constexpr const char* kOp = "token_embedding_forward";
  const Tensor2 te = view2(kOp, wte), pe = view2(kOp, wpe), o = view2(kOp, out);
  const Labels ids = detail::labels(kOp, tokens);
  require_embedding_shapes(kOp, out, tokens, wte, wpe);
  kernels::token_embedding_forward(te, pe, ids, o);
}

void HostBackend::token_embedding_backward(const ops::Tensor& dout, const ops::Tensor& tokens,
                                           const ops::Tensor& dwte, const ops::Tensor& dwpe) {
  constexpr const char* kOp = "token_embedding_backward";
  const Tensor2 d = view2(kOp, dout), dte = view2(kOp, dwte), dpe = view2(kOp, dwpe);
  const Labels ids = detail::labels(kOp, tokens);
  require_embedding_shapes(kOp, dout, tokens, dwte, dwpe);
  kernels::token_embedding_backward(d, ids, dte, dpe);
}

void HostBackend::softmax_cross_entropy(const ops::Tensor& logits, const ops::Tensor& labels,
                                        float scale, float grad_scale, const ops::Tensor& dlogits,
                                        const ops::Tensor& loss) {
  constexpr const char* kOp = "softmax_cross_entropy";
  const Tensor2 d = view2(kOp, dlogits);
  loss_slot(loss) +=
      kernels::softmax_cross_entropy(view2(kOp, logits), detail::labels(kOp, labels), scale, d);
  if (grad_scale != 1.0f) scale_flat(d.data(), d.size(), grad_scale);
}

void HostBackend::bce_with_logits(const ops::Tensor& logits, const ops::Tensor& labels, float scale,
                                  float grad_scale, const ops::Tensor& dlogits,
                                  const ops::Tensor& loss) {
  constexpr const char* kOp = "bce_with_logits";
  const Tensor2 d = view2(kOp, dlogits);
  loss_slot(loss) +=
      kernels::binary_cross_entropy_with_logits(view2(kOp, logits), flat(labels), scale, d);
  if (grad_scale != 1.0f) scale_flat(d.data(), d.size(), grad_scale);
}

void HostBackend::sgd_momentum(const ops::Tensor& params, const ops::Tensor& grads,
                               const ops::Tensor& velocity, const ops::SgdOptions& opt,
                               const ops::MasterUpdate& update) {
  master_update(params, grads, update,
                [&] { sgd_momentum_step(flat(params), flat(grads), flat(velocity), opt); });
}

void HostBackend::adam(const ops::Tensor& params, const ops::Tensor& grads, const ops::Tensor& m,
                       const ops::Tensor& v, int step, const ops::AdamOptions& opt,
                       const ops::MasterUpdate& update) {
  master_update(params, grads, update,
                [&] { adam_step(flat(params), flat(grads), flat(m), flat(v), step, opt); });
}

void HostBackend::check_nonfinite(const ops::Tensor& x, const ops::Tensor& flag) {
  ops::require_shape("check_nonfinite", "flag", flag, {1});
  if (any_nonfinite(x.as<float>(), static_cast<std::size_t>(x.numel())))
    *flag.as<std::int32_t>() = 1;
}

}  // namespace scaletune::kernels
