#pragma once
// Multi-head causal self-attention core (Vaswani et al. 2017, "Attention Is All You Need",
// eq. 1, with the causal mask of GPT-2): out = softmax_causal(q k^T / sqrt(Dh)) v per batch and
// head. The projections to q, k, v and back are linear layers outside this op.

#include <cstddef>
#include <cstdint>

#include "kernels/host/tensor.hpp"

namespace scaletune::kernels {

/// Caller-owned buffers of one attention layer, allocated once and reused by every call.
struct AttentionWorkspace {
  /// Empty workspace (every extent 0); fits only an attention with S = 0.
  AttentionWorkspace() = default;
  /// Allocates probs [batch, heads, seq_len, seq_len] and dprobs [seq_len, seq_len].
  AttentionWorkspace(std::size_t batch, std::size_t heads, std::size_t seq_len);

  /// Bytes AttentionWorkspace(batch, heads, seq_len) allocates, without making one (for memory
  /// models): 4 * seq_len^2 * (batch * heads + 1).
  static std::int64_t bytes(std::size_t batch, std::size_t heads, std::size_t seq_len);

  Tensor4 probs;   ///< [B, H, S, S] attention probabilities: written by forward, read by backward
  Tensor2 dprobs;  ///< [S, S] backward scratch: d loss / d probs, then d loss / d scores, per head
};

/// out[b,h] = P v[b,h] with P = causal_softmax(q[b,h] k[b,h]^T / sqrt(Dh)), for every batch b
/// and head h; P is kept in ws.probs [B, H, S, S] (masked entries exactly 0) for the backward.
/// q, k, v, out [B, H, S, Dh], LayoutRight, host, contiguous; out overwritten and must not alias
/// q, k or v. The score GEMMs run through kernels::gemm (BLAS). Throws std::invalid_argument when
/// Dh is 0, a shape differs from q's (ws.probs: [B, H, S, S]), a view is not contiguous or out
/// aliases an input.
void attention_forward(const Tensor4& q, const Tensor4& k, const Tensor4& v,
                       const AttentionWorkspace& ws, const Tensor4& out);

/// Given dout = d loss / d out [B, H, S, Dh] for the latest attention_forward(q, k, v, ws, ...)
/// (ws.probs unchanged since), overwrites, per batch and head with c = 1 / sqrt(Dh):
/// dv = P^T dout, dP = dout v^T, dS = causal_softmax_backward(P, dP), dq = c dS k,
/// dk = c dS^T q. ws.dprobs [S, S] is clobbered. q, k, v, dout, dq, dk, dv [B, H, S, Dh],
/// LayoutRight, host, contiguous; dq, dk, dv must not alias each other or any input. Throws
/// std::invalid_argument as attention_forward, and when ws.dprobs is not [S, S] or an output
/// aliases another tensor.
void attention_backward(const Tensor4& q, const Tensor4& k, const Tensor4& v, const Tensor4& dout,
                        const AttentionWorkspace& ws, const Tensor4& dq, const Tensor4& dk,
                        const Tensor4& dv);

}  // namespace scaletune::kernels
