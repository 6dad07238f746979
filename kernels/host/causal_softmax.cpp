#include "causal_softmax.hpp"

#include <cmath>
#include <cstddef>

#include "kernels/host/detail/host_range.hpp"
#include "kernels/host/detail/op_checks.hpp"

namespace scaletune::kernels {

namespace {

/// Throws unless `scores` is [R, S, S] (one square score matrix per batch and head).
void require_square(const char* op, const char* name, const Tensor3& scores) {
  detail::require_shape(op, name, scores, {scores.extent(0), scores.extent(2), scores.extent(2)});
}

}  // namespace

void causal_softmax_forward(const Tensor3& scores, const Tensor3& p) {
  constexpr const char* kOp = "causal_softmax_forward";
  require_square(kOp, "scores", scores);
  const std::size_t seq = scores.extent(1);
  detail::require_shape(kOp, "p", p, {scores.extent(0), seq, seq});
  // One work item per (r, i) row; row i holds i + 1 unmasked entries.
  Kokkos::parallel_for("causal_softmax_forward", detail::host_range(scores.extent(0) * seq),
                       [=](std::size_t row) {
                         const std::size_t r = row / seq;
                         const std::size_t i = row % seq;
                         float max_score = scores(r, i, 0);
                         for (std::size_t j = 1; j <= i; ++j)
                           max_score = std::fmax(max_score, scores(r, i, j));
                         double sum = 0.0;
                         for (std::size_t j = 0; j <= i; ++j) {
                           p(r, i, j) = std::exp(scores(r, i, j) - max_score);
                           sum += p(r, i, j);
                         }
                         const auto inv_sum = static_cast<float>(1.0 / sum);
                         for (std::size_t j = 0; j <= i; ++j) p(r, i, j) *= inv_sum;
                         for (std::size_t j = i + 1; j < seq; ++j) p(r, i, j) = 0.0f;
                       });
}

void causal_softmax_backward(const Tensor3& p, const Tensor3& dp, const Tensor3& dscores) {
  constexpr const char* kOp = "causal_softmax_backward";
  require_square(kOp, "p", p);
  const std::size_t seq = p.extent(1);
  detail::require_shape(kOp, "dp", dp, {p.extent(0), seq, seq});
  detail::require_shape(kOp, "dscores", dscores, {p.extent(0), seq, seq});
  Kokkos::parallel_for("causal_softmax_backward", detail::host_range(p.extent(0) * seq),
                       [=](std::size_t row) {
                         const std::size_t r = row / seq;
                         const std::size_t i = row % seq;
                         double dot = 0.0;
                         for (std::size_t j = 0; j <= i; ++j)
                           dot += double{p(r, i, j)} * dp(r, i, j);
                         const auto dot_f = static_cast<float>(dot);
                         for (std::size_t j = 0; j <= i; ++j)
                           dscores(r, i, j) = p(r, i, j) * (dp(r, i, j) - dot_f);
                         for (std::size_t j = i + 1; j < seq; ++j) dscores(r, i, j) = 0.0f;
                       });
}

}  // namespace scaletune::kernels
