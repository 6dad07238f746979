#pragma once
// Scaling laws fitted to throughput against rank count: Amdahl's law and Gunther's Universal
// Scalability Law (USL), by least squares with Eigen's Levenberg-Marquardt (MINPACK lmder).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scaletune::autotune {

/// One measurement: throughput at a rank count.
struct ScalingPoint {
  double ranks = 0;       ///< p >= 1
  double throughput = 0;  ///< X(p) > 0, samples/s
};

/// Amdahl's law (Amdahl 1967, in throughput form): X(p) = X1·p / (1 + s·(p−1)),
/// X1 > 0 the throughput of one rank (samples/s), s in [0, 1] the serial fraction.
inline constexpr std::string_view kAmdahl = "amdahl";
/// Universal Scalability Law (N. J. Gunther, "Guerrilla Capacity Planning", 2007):
/// X(p) = X1·p / (1 + σ·(p−1) + κ·p·(p−1)), X1 > 0, contention σ >= 0, coherency κ >= 0.
inline constexpr std::string_view kUsl = "usl";

/// A fitted scaling law.
struct ScalingFit {
  std::string model;  ///< kAmdahl or kUsl
  /// amdahl: {"X1" (samples/s), "s"}; usl: {"X1" (samples/s), "sigma", "kappa"}.
  std::vector<std::pair<std::string, double>> params;
  double rmse = 0;  ///< root mean square of predicted − measured throughput, samples/s
  double mape = 0;  ///< mean of |predicted − measured| / measured, fraction
  int points = 0;   ///< measurements fitted

  /// The parameter called `name`; throws std::out_of_range naming it when absent.
  double param(std::string_view name) const;
};

/// The outcome of fitting one model: a fit, or the reason there is none.
struct FitAttempt {
  std::string model;              ///< kAmdahl or kUsl
  std::optional<ScalingFit> fit;  ///< empty when the model could not be fitted
  std::string reason;             ///< why `fit` is empty; empty when there is a fit
};

/// What the least squares of fit_amdahl() and fit_usl() minimise.
enum class Residual {
  absolute,  ///< predicted − measured throughput, samples/s: the largest throughputs weigh most
  /// (predicted − measured) / measured: each point by its relative error, for data spanning
  /// orders of magnitude (MLPerf submissions from 1 to 4,000 accelerators), where absolute
  /// residuals let the few largest systems decide the fit.
  relative,
};

/// Fits Amdahl's law by least squares on throughput (residuals as `residual` says). Needs >= 2
/// distinct rank counts. Start: X1 = mean throughput at the smallest p divided by p, s = 0.05.
/// Several points may share a rank count (configurations that differ only in batch split).
/// Parameters stay in range by reparametrisation: X1 = e^a, s = sin²(b), with a, b free.
/// A serial fraction (or σ, κ) whose term stays below 1e-12 of the denominator at the largest
/// measured p is reported as exactly 0. Convergence: Eigen status other than improper input,
/// too many evaluations (limit 2000) or user stop; otherwise no fit, with the status as reason.
/// Throws std::invalid_argument when a point has p < 1 or a throughput that is not positive.
FitAttempt fit_amdahl(std::span<const ScalingPoint> points, Residual residual = Residual::absolute);

/// Fits the USL like fit_amdahl, needing >= 3 distinct rank counts. Start: X1 as for Amdahl,
/// σ = 0.05, κ = 0.001. Reparametrised as X1 = e^a, σ = u², κ = v².
FitAttempt fit_usl(std::span<const ScalingPoint> points, Residual residual = Residual::absolute);

/// A fit of `model` with `params` (as ScalingFit::params) and its RMSE and MAPE on `points`
/// (non-empty). Throws as predict() does for an unknown model or a missing parameter.
ScalingFit scaling_fit(std::string_view model, std::vector<std::pair<std::string, double>> params,
                       std::span<const ScalingPoint> points);

/// The fitted throughput at `ranks` (p, may be fractional), samples/s.
/// Throws std::invalid_argument for an unknown model and std::out_of_range for a missing
/// parameter.
double predict(const ScalingFit& fit, double ranks);

/// The rank count p at which the fitted law's scaling efficiency X(p) / (p·X1) falls to
/// `efficiency` (in (0, 1)): the root p >= 1 of 1 + σ(p−1) + κp(p−1) = 1/efficiency (Amdahl:
/// σ = s, κ = 0). Empty when it never falls that low (σ = κ = 0). Throws std::invalid_argument
/// for an efficiency outside (0, 1), and as predict() for an unknown model.
std::optional<double> ranks_at_efficiency(const ScalingFit& fit, double efficiency);

/// USL peak p* = sqrt((1 − σ)/κ) (Gunther 2007), the rank count of the highest throughput;
/// empty unless `fit` is a USL fit with κ > 0 and σ < 1.
std::optional<double> usl_peak_ranks(const ScalingFit& fit);

}  // namespace scaletune::autotune
