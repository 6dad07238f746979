#pragma once
// Statistics over repetitions (cf. google/benchmark src/statistics.cc).

#include <span>

namespace scaletune::core {

/// Median of `x` (mean of the two middle values for even sizes). Throws std::invalid_argument
/// on an empty input.
double median(std::span<const double> x);

/// The q-quantile, q in [0, 1], by linear interpolation between order statistics
/// (Hyndman & Fan type 7, numpy's default). Throws std::invalid_argument on an empty input
/// or q outside [0, 1].
double quantile(std::span<const double> x, double q);

}  // namespace scaletune::core
