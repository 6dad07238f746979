#pragma once
// Throughput against device count for one group of MLPerf submissions (one accelerator and
// software stack, or one accelerator over all its stacks), with the scaling law chosen by a rule
// that does not reward extra parameters unless they predict unseen device counts better.

#include <span>
#include <string>

#include "autotune/scaling_model.hpp"

namespace scaletune::autotune {

/// The throughput law of one group.
struct GroupFit {
  std::string accelerator;   ///< canonical accelerator model
  std::string stack;         ///< software stack; empty for the accelerator over all its stacks
  ScalingFit throughput;     ///< X(p), samples/s at p devices
  int points = 0;            ///< runs fitted
  int distinct_devices = 0;  ///< distinct device counts among them
  /// Why this law: "1 device count: perfect scaling", "amdahl: 3 device counts (usl needs >= 4)",
  /// "usl: leave-one-count-out MAPE 2.1% < amdahl 4.0%", ...
  std::string selection;
};

/// Fewest distinct device counts for which the USL is considered (its 3 parameters are then
/// checked on at least 3 counts in each leave-one-count-out fold).
inline constexpr int kUslMinDeviceCounts = 4;

/// Fits the throughput of `points` (devices as ranks, samples/s) of one group by relative
/// residuals (Residual::relative: submissions span 1 to 4,000 accelerators, and absolute
/// residuals would let the few largest decide the fit) and this rule:
/// - one distinct device count: Amdahl with s = 0 (perfect scaling), X1 = mean of X/p;
/// - otherwise fit_amdahl() (falling back to perfect scaling when it does not converge);
/// - with >= kUslMinDeviceCounts distinct counts, fit_usl() too, and the USL is kept only when
///   its leave-one-count-out error is lower than Amdahl's: for each distinct count, fit both
///   laws on the points at the other counts and take the absolute percentage error of the
///   points left out; compare the means (a fold where a law does not converge disqualifies it).
/// Leaving a whole count out measures what the model is used for, predicting counts not run.
/// Throws std::invalid_argument for no points, or for a point with p < 1 or a throughput that is
/// not positive.
GroupFit fit_group_scaling(const std::string& accelerator, const std::string& stack,
                           std::span<const ScalingPoint> points);

}  // namespace scaletune::autotune
