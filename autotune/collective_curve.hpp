#pragma once
// Time of one collective at one rank count against its message size, as the three regions of Lin
// et al., "Towards Universal Performance Modeling for ML Training on Multi-GPU Platforms" (TPDS
// 2025): a latency floor for small messages, a sigmoid rise of the bus bandwidth against log2 of
// the size, and a peak bandwidth for large messages.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"

namespace scaletune::autotune {

/// busbw(b) = peak_gbps / (1 + exp(-slope (log2 b - mid_log2))) GB/s, and
/// smooth_time_us(b) = floor_us + b x bus_factor / busbw(b) / 1e3 (nccl-tests' bus bandwidth:
/// the algorithm bandwidth b / t times the op's bus factor on `ranks` ranks). The floor is what a
/// message of no bytes takes; the peak is what the largest messages approach. NCCL switches
/// protocol and algorithm at some sizes, which bends the measured curve away from the smooth
/// one by up to about 10%: time_us multiplies the smooth time by exp of the fit's residual
/// ln(measured / smooth), interpolated linearly in log2 of the size between the fitted sizes and
/// held at the end values outside them.
struct CollectiveCurve {
  std::string op;            ///< as the rows name it ("all_reduce", ...)
  int ranks = 0;             ///< rank count of the rows
  int nodes = 1;             ///< nodes the rows' ranks ran on (rows of unknown nodes: 1)
  double bus_factor = 1.0;   ///< results::bus_factor(op, ranks), 1 for ops without one
  double floor_us = 0.0;     ///< > 0
  double peak_gbps = 0.0;    ///< > 0
  double slope = 1.0;        ///< > 0, per doubling of the size
  double mid_log2 = 0.0;     ///< log2 of the size at half the peak
  double fit_rms_log = 0.0;  ///< root mean square of ln(smooth / measured time) of the fit
  /// The fitted sizes' log2 (increasing) and residuals ln(measured / smooth time) there.
  std::vector<double> log2_sizes, residuals;

  /// The sigmoid curve's time for `bytes` (>= 1), microseconds.
  double smooth_time_us(double bytes) const;
  /// Predicted time of one collective of `bytes` (>= 1): the smooth time corrected by the
  /// interpolated residual, microseconds; below the smallest fitted size at most the time there
  /// (a smaller message never takes longer: a curve fitted on large sizes only has no floor to
  /// speak of, and its sigmoid would grow without bound towards small sizes).
  double time_us(double bytes) const;
  /// Whether `bytes` lies outside the fitted sizes (false without them).
  bool extrapolates(double bytes) const;
};

/// Fits the curve to `rows` (one op at one rank count; at least 4 rows of distinct sizes >= 1
/// byte, time_us > 0; a size given twice keeps its first row's residual) by Levenberg-Marquardt
/// (dlib::solve_least_squares_lm) on the logarithm of the time, so every size weighs the same.
/// Throws std::invalid_argument naming the op and rank count when the rows mix ops, rank counts
/// or node counts (0, unknown, counts as 1), are too few, or have a size below 1 byte.
CollectiveCurve fit_collective_curve(std::span<const CollectiveRow> rows);

/// Mean absolute percentage error of `curve` on `rows`: mean of |predicted - measured| /
/// measured times, a fraction (0.05 = 5%). Throws std::invalid_argument when rows is empty.
double mean_absolute_percentage_error(const CollectiveCurve& curve,
                                      std::span<const CollectiveRow> rows);

}  // namespace scaletune::autotune
