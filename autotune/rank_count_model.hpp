#pragma once
// A collective's time across rank counts as well as sizes, for rank counts nobody measured: an
// alpha-beta model (Hockney's latency-bandwidth model, as extended per collective by Thakur,
// Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005) whose latency grows with the steps of a ring, n - 1, and whose bandwidth term moves the
// op's bus-factor share of the bytes at a per-byte cost that may fall with n (NVLink/NVSwitch
// links add up as ranks join).

#include <span>
#include <string>

#include "autotune/collective_log.hpp"

namespace scaletune::autotune {

/// time_us(n, b) = alpha0 + alpha1 (n - 1) + b x bus_factor(op, n) x (beta0 + beta1 / n), with
/// alpha in microseconds and beta in microseconds per byte.
struct RankCountModel {
  std::string op;
  double alpha0 = 0.0, alpha1 = 0.0;  ///< us, us per ring step
  double beta0 = 0.0, beta1 = 0.0;    ///< us per bus byte, and its 1 / n part
  int min_ranks = 0, max_ranks = 0;   ///< the rank counts it was fitted on

  /// Predicted time of one collective of `bytes` on `ranks` ranks, microseconds.
  double time_us(int ranks, double bytes) const;
};

/// Fits the model to `rows` of one op (with a bus factor, results::has_bus_factor) measured on
/// at least 2 distinct rank counts, each >= 2, by linear least squares on the relative error
/// (each equation divided by its measured time). Throws std::invalid_argument naming the op when
/// the rows mix ops, the op has no bus factor, or they span fewer than 2 rank counts.
RankCountModel fit_rank_count_model(std::span<const CollectiveRow> rows);

}  // namespace scaletune::autotune
