#pragma once
// A smooth correction of a fitted op model: Gaussian-kernel ridge regression of the model's log
// residuals over the standardised inputs (kernel ridge regression, C. Saunders, A. Gammerman and
// V. Vovk, "Ridge Regression Learning Algorithm in Dual Variables", ICML 1998; the posterior
// mean of a Gaussian process with that kernel, Rasmussen and Williams, "Gaussian Processes for
// Machine Learning", 2006, eq. 2.25). A power law follows the trend of an op's time over its
// shape; the residual follows what the trend misses between profiled shapes (a per-sample GEMM
// of 2x2 planes running at a fifth of the peak), and falls to 0 away from them, so a shape far
// from every profiled one is predicted by the power law alone.

#include <span>
#include <vector>

namespace scaletune::autotune {

/// r(x) = sum_i alpha_i exp(-gamma / d * |z(x) - c_i|^2), z(x) = (x - offset) / scale, over d
/// inputs (log shape fields, log FLOPs, log bytes, ...: an op model's inputs without its
/// constant 1). Empty (no centers) is r = 0.
struct RbfResidual {
  std::vector<double> offset;   ///< [d] mean of each input over the fitted points
  std::vector<double> scale;    ///< [d] standard deviation of each input (1 where constant)
  std::vector<double> centers;  ///< [n * d] standardised inputs of the fitted points, row-major
  std::vector<double> alpha;    ///< [n] dual weights
  double gamma = 0.0;           ///< kernel width, per input dimension

  /// r(x) for inputs `x` of size d; 0 when empty. Throws std::invalid_argument when x does not
  /// have d values.
  double value(std::span<const double> x) const;
};

/// The kernel width and ridge of fit_rbf_residual. Chosen on a host profile (2-core AMD EPYC,
/// 1,648 timings) by 5-fold cross-validation over held-out shapes, in a study of these fits:
/// widths 0.5-2 and ridges 0.03-0.3 gave a mean held-out MAPE over the op kinds of 20.7-21.7%,
/// against 26.3% for the power law alone; this pair was the lowest.
inline constexpr double kRbfGamma = 0.5;
inline constexpr double kRbfRidge = 0.1;

/// Fits the residual to the points `x` (each of size d) and their residuals `r` (same count):
/// alpha = (K + ridge I)^-1 r with K the kernel matrix of the standardised distinct points,
/// each with the mean residual of its copies (Eigen's LDLT). Throws std::invalid_argument when
/// x is empty or its rows differ in size from the first or r differs in count.
RbfResidual fit_rbf_residual(std::vector<std::vector<double>> x, std::vector<double> r,
                             double gamma = kRbfGamma, double ridge = kRbfRidge);

}  // namespace scaletune::autotune
