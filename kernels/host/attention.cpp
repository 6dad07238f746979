#include "attention.hpp"

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "kernels/host/causal_softmax.hpp"
#include "kernels/host/detail/op_checks.hpp"
#include "kernels/host/gemm.hpp"

namespace scaletune::kernels {

namespace {

/// The extents every call works with: B * H score matrices of [S, S], heads of width Dh.
struct AttentionDims {
  std::size_t heads_total;  ///< B * H
  std::size_t seq;          ///< S
  std::size_t head_dim;     ///< Dh

  /// Elements of one (b, h) slice of a [B, H, S, Dh] tensor.
  std::size_t head_elems() const { return seq * head_dim; }
  /// Elements of one (b, h) slice of the [B, H, S, S] probabilities.
  std::size_t score_elems() const { return seq * seq; }
  /// 1 / sqrt(Dh), the score scale of Vaswani et al. 2017.
  float scale() const { return 1.0f / std::sqrt(static_cast<float>(head_dim)); }
};

/// A tensor with its name, for the aliasing checks.
struct Named {
  const char* name;
  const Tensor4& tensor;
};

/// Throws unless `t` is a contiguous tensor of `like`'s shape.
void require_like(const char* op, const char* name, const Tensor4& t, const Tensor4& like) {
  detail::require_shape(op, name, t,
                        {like.extent(0), like.extent(1), like.extent(2), like.extent(3)});
  detail::require_contiguous(op, name, t);
}

/// Checks q, k, v [B, H, S, Dh] (Dh >= 1) and ws.probs [B, H, S, S]; returns the extents.
AttentionDims checked_dims(const char* op, const Tensor4& q, const Tensor4& k, const Tensor4& v,
                           const AttentionWorkspace& ws) {
  if (q.extent(3) == 0)
    throw std::invalid_argument(std::string(op) + ": q is " + detail::shape_string(q, 4) +
                                ", expected a head dimension Dh >= 1");
  detail::require_contiguous(op, "q", q);
  require_like(op, "k", k, q);
  require_like(op, "v", v, q);
  const std::size_t seq = q.extent(2);
  detail::require_shape(op, "ws.probs", ws.probs, {q.extent(0), q.extent(1), seq, seq});
  detail::require_contiguous(op, "ws.probs", ws.probs);
  return {q.extent(0) * q.extent(1), seq, q.extent(3)};
}

/// Throws when an output shares storage with an input or with an earlier output.
void require_apart(const char* op, std::initializer_list<Named> inputs,
                   std::initializer_list<Named> outputs) {
  for (auto out = outputs.begin(); out != outputs.end(); ++out) {
    for (const Named& in : inputs)
      detail::require_distinct(op, in.name, in.tensor, out->name, out->tensor);
    for (auto earlier = outputs.begin(); earlier != out; ++earlier)
      detail::require_distinct(op, earlier->name, earlier->tensor, out->name, out->tensor);
  }
}

int as_int(std::size_t extent) {
  return static_cast<int>(extent);
}

/// [1, S, S] view of the S x S matrix at `data` (unmanaged), for the softmax backward.
Tensor3 one_matrix(float* data, std::size_t seq) {
  return Tensor3(data, 1, seq, seq);
}

}  // namespace

AttentionWorkspace::AttentionWorkspace(std::size_t batch, std::size_t heads, std::size_t seq_len)
    : probs("attention_probs", batch, heads, seq_len, seq_len),
      dprobs("attention_dprobs", seq_len, seq_len) {}

std::int64_t AttentionWorkspace::bytes(std::size_t batch, std::size_t heads, std::size_t seq_len) {
  return static_cast<std::int64_t>(sizeof(float) * seq_len * seq_len * (batch * heads + 1));
}

void attention_forward(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                       const AttentionWorkspace& ws, const Tensor4& out) {
  constexpr const char* kOp = "attention_forward";
  const AttentionDims d = checked_dims(kOp, q, k, v, ws);
  require_like(kOp, "out", out, q);
  require_apart(kOp, {{"q", q}, {"k", k}, {"v", v}}, {{"out", out}});
  if (d.heads_total == 0 || d.seq == 0) return;
  const int s = as_int(d.seq);
  const int dh = as_int(d.head_dim);
  float* probs = ws.probs.data();
  // scores[b,h] = c * q[b,h] [S,Dh] . k[b,h]^T [Dh,S], written where the probabilities go.
  for (std::size_t bh = 0; bh < d.heads_total; ++bh)
    gemm(false, true, s, s, dh, d.scale(), q.data() + bh * d.head_elems(), dh,
         k.data() + bh * d.head_elems(), dh, 0.0f, probs + bh * d.score_elems(), s);
  const Tensor3 probs3(probs, d.heads_total, d.seq, d.seq);
  causal_softmax_forward(probs3, probs3);
  HostExec().fence();
  // out[b,h] [S,Dh] = P[b,h] [S,S] . v[b,h] [S,Dh].
  for (std::size_t bh = 0; bh < d.heads_total; ++bh)
    gemm(false, false, s, dh, s, 1.0f, probs + bh * d.score_elems(), s,
         v.data() + bh * d.head_elems(), dh, 0.0f, out.data() + bh * d.head_elems(), dh);
}

void attention_backward(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& dout,
                        const AttentionWorkspace& ws, const Tensor4& dq, const Tensor4& dk,
                        const Tensor4& dv) {
  constexpr const char* kOp = "attention_backward";
  const AttentionDims d = checked_dims(kOp, q, k, v, ws);
  require_like(kOp, "dout", dout, q);
  require_like(kOp, "dq", dq, q);
  require_like(kOp, "dk", dk, q);
  require_like(kOp, "dv", dv, q);
  detail::require_shape(kOp, "ws.dprobs", ws.dprobs, {d.seq, d.seq});
  detail::require_contiguous(kOp, "ws.dprobs", ws.dprobs);
  require_apart(kOp, {{"q", q}, {"k", k}, {"v", v}, {"dout", dout}},
                {{"dq", dq}, {"dk", dk}, {"dv", dv}});
  if (d.heads_total == 0 || d.seq == 0) return;
  const int s = as_int(d.seq);
  const int dh = as_int(d.head_dim);
  float* ds = ws.dprobs.data();
  const Tensor3 ds3 = one_matrix(ds, d.seq);
  for (std::size_t bh = 0; bh < d.heads_total; ++bh) {
    float* p = ws.probs.data() + bh * d.score_elems();
    const std::size_t at = bh * d.head_elems();
    // dv [S,Dh] = P^T [S,S] . dout [S,Dh].
    gemm(true, false, s, dh, s, 1.0f, p, s, dout.data() + at, dh, 0.0f, dv.data() + at, dh);
    // dP [S,S] = dout [S,Dh] . v^T [Dh,S], then dS in place.
    gemm(false, true, s, s, dh, 1.0f, dout.data() + at, dh, v.data() + at, dh, 0.0f, ds, s);
    causal_softmax_backward(one_matrix(p, d.seq), ds3, ds3);
    HostExec().fence();
    // dq [S,Dh] = c dS [S,S] . k [S,Dh];  dk [S,Dh] = c dS^T [S,S] . q [S,Dh].
    gemm(false, false, s, dh, s, d.scale(), ds, s, k.data() + at, dh, 0.0f, dq.data() + at, dh);
    gemm(true, false, s, dh, s, d.scale(), ds, s, q.data() + at, dh, 0.0f, dk.data() + at, dh);
  }
}

}  // namespace scaletune::kernels
