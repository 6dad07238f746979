#include "autotune/scaling_model.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include <unsupported/Eigen/LevenbergMarquardt>

namespace scaletune::autotune {

namespace {

// Both laws are the general form X(p) = X1·p / (1 + σ·(p−1) + κ·p·(p−1)) with natural
// parameters q = (X1, σ, κ); Amdahl is σ = s, κ = 0. The solver works on unconstrained
// coordinates θ, one per free parameter, mapped onto q by a transform that keeps q in range.
using Natural = Eigen::Vector3d;

enum class Transform { exp, sin_squared, square };

struct FreeParam {
  const char* name;
  int index;  ///< into Natural
  Transform transform;
  double start;  ///< initial natural value; X1's start comes from the data
};

struct ModelSpec {
  std::string_view name;
  std::vector<FreeParam> free;  ///< the first is X1
  std::size_t min_rank_counts;
};

const ModelSpec kAmdahlSpec{
    kAmdahl, {{"X1", 0, Transform::exp, 0.0}, {"s", 1, Transform::sin_squared, 0.05}}, 2};
const ModelSpec kUslSpec{kUsl,
                         {{"X1", 0, Transform::exp, 0.0},
                          {"sigma", 1, Transform::square, 0.05},
                          {"kappa", 2, Transform::square, 0.001}},
                         3};

const ModelSpec& spec_of(std::string_view model) {
  if (model == kAmdahl) return kAmdahlSpec;
  if (model == kUsl) return kUslSpec;
  throw std::invalid_argument("unknown scaling model '" + std::string(model) +
                              "'; expected amdahl or usl");
}

double to_natural(Transform t, double theta) {
  switch (t) {
    case Transform::exp:
      return std::exp(theta);
    case Transform::sin_squared:
      return std::sin(theta) * std::sin(theta);
    case Transform::square:
      return theta * theta;
  }
  return theta;
}

/// d natural / d theta.
double slope(Transform t, double theta) {
  switch (t) {
    case Transform::exp:
      return std::exp(theta);
    case Transform::sin_squared:
      return std::sin(2.0 * theta);
    case Transform::square:
      return 2.0 * theta;
  }
  return 1.0;
}

double to_theta(Transform t, double natural) {
  switch (t) {
    case Transform::exp:
      return std::log(natural);
    case Transform::sin_squared:
      return std::asin(std::sqrt(natural));
    case Transform::square:
      return std::sqrt(natural);
  }
  return natural;
}

Natural natural_of(const ModelSpec& spec, const Eigen::VectorXd& theta) {
  Natural q = Natural::Zero();
  for (std::size_t k = 0; k < spec.free.size(); ++k)
    q[spec.free[k].index] = to_natural(spec.free[k].transform, theta[static_cast<Eigen::Index>(k)]);
  return q;
}

double law(const Natural& q, double p) {
  return q[0] * p / (1.0 + q[1] * (p - 1.0) + q[2] * p * (p - 1.0));
}

/// dX/dq at p.
Natural law_gradient(const Natural& q, double p) {
  const double denominator = 1.0 + q[1] * (p - 1.0) + q[2] * p * (p - 1.0);
  const double x = q[0] * p / denominator;
  return {x / q[0], -x * (p - 1.0) / denominator, -x * p * (p - 1.0) / denominator};
}

/// Residuals law(p_j) − X_j (divided by X_j when relative) and their Jacobian in θ, for Eigen's
/// Levenberg-Marquardt.
struct Residuals : Eigen::DenseFunctor<double> {
  Residuals(const ModelSpec& spec, std::span<const ScalingPoint> points, Residual residual)
      : Eigen::DenseFunctor<double>(static_cast<int>(spec.free.size()),
                                    static_cast<int>(points.size())),
        m_spec(spec),
        m_points(points),
        m_relative(residual == Residual::relative) {}

  /// The divisor of point j's residual.
  double scale(std::size_t j) const { return m_relative ? m_points[j].throughput : 1.0; }

  int operator()(const InputType& theta, ValueType& residual) const {
    const Natural q = natural_of(m_spec, theta);
    for (std::size_t j = 0; j < m_points.size(); ++j)
      residual[static_cast<Eigen::Index>(j)] =
          (law(q, m_points[j].ranks) - m_points[j].throughput) / scale(j);
    return 0;
  }

  int df(const InputType& theta, JacobianType& jacobian) const {
    const Natural q = natural_of(m_spec, theta);
    for (std::size_t j = 0; j < m_points.size(); ++j) {
      const Natural g = law_gradient(q, m_points[j].ranks);
      for (std::size_t k = 0; k < m_spec.free.size(); ++k) {
        const FreeParam& f = m_spec.free[k];
        const auto col = static_cast<Eigen::Index>(k);
        jacobian(static_cast<Eigen::Index>(j), col) =
            g[f.index] * slope(f.transform, theta[col]) / scale(j);
      }
    }
    return 0;
  }

  const ModelSpec& m_spec;
  std::span<const ScalingPoint> m_points;
  bool m_relative;
};

void check_points(std::span<const ScalingPoint> points) {
  for (const ScalingPoint& pt : points)
    if (!(pt.ranks >= 1.0) || !(pt.throughput > 0.0) || !std::isfinite(pt.throughput))
      throw std::invalid_argument("scaling point (ranks " + std::to_string(pt.ranks) +
                                  ", throughput " + std::to_string(pt.throughput) +
                                  " samples/s): expected ranks >= 1 and a positive throughput");
}

/// Mean throughput at the smallest rank count, divided by that count: the start for X1.
double x1_start(std::span<const ScalingPoint> points) {
  const double p_min = std::ranges::min(points, {}, &ScalingPoint::ranks).ranks;
  double sum = 0.0;
  int n = 0;
  for (const ScalingPoint& pt : points)
    if (pt.ranks == p_min) {
      sum += pt.throughput;
      ++n;
    }
  return sum / n / p_min;
}

Eigen::VectorXd theta_start(const ModelSpec& spec, std::span<const ScalingPoint> points) {
  Eigen::VectorXd theta(static_cast<Eigen::Index>(spec.free.size()));
  for (std::size_t k = 0; k < spec.free.size(); ++k) {
    const FreeParam& f = spec.free[k];
    const double start = f.index == 0 ? x1_start(points) : f.start;
    theta[static_cast<Eigen::Index>(k)] = to_theta(f.transform, start);
  }
  return theta;
}

bool converged(Eigen::LevenbergMarquardtSpace::Status status) {
  using enum Eigen::LevenbergMarquardtSpace::Status;
  return status != ImproperInputParameters && status != TooManyFunctionEvaluation &&
         status != UserAsked && status != NotStarted && status != Running;
}

/// σ (and s) and κ whose term in the denominator stays below 1e-12 at the largest measured p are
/// zero within rounding (θ → 0 only asymptotically): set them to exactly 0.
Natural snap_to_zero(Natural q, std::span<const ScalingPoint> points) {
  constexpr double kNegligible = 1e-12;
  const double p_max = std::ranges::max(points, {}, &ScalingPoint::ranks).ranks;
  if (q[1] * (p_max - 1.0) < kNegligible) q[1] = 0.0;
  if (q[2] * p_max * (p_max - 1.0) < kNegligible) q[2] = 0.0;
  return q;
}

ScalingFit summarise(const ModelSpec& spec, const Natural& q,
                     std::span<const ScalingPoint> points) {
  std::vector<std::pair<std::string, double>> params;
  for (const FreeParam& f : spec.free) params.emplace_back(f.name, q[f.index]);
  return scaling_fit(spec.name, std::move(params), points);
}

FitAttempt fit_model(const ModelSpec& spec, std::span<const ScalingPoint> points,
                     Residual residual) {
  check_points(points);
  FitAttempt attempt{.model = std::string(spec.name), .fit = {}, .reason = {}};
  std::set<double> rank_counts;
  for (const ScalingPoint& pt : points) rank_counts.insert(pt.ranks);
  if (rank_counts.size() < spec.min_rank_counts) {
    attempt.reason = "needs >= " + std::to_string(spec.min_rank_counts) +
                     " distinct rank counts, got " + std::to_string(rank_counts.size());
    return attempt;
  }
  Residuals residuals(spec, points, residual);
  Eigen::LevenbergMarquardt<Residuals> solver(residuals);
  solver.setXtol(1e-12);
  solver.setFtol(1e-12);
  solver.setMaxfev(2000);
  Eigen::VectorXd theta = theta_start(spec, points);
  const auto status = solver.minimize(theta);
  const Natural q = snap_to_zero(natural_of(spec, theta), points);
  if (!converged(status) || !q.allFinite()) {
    attempt.reason = "Levenberg-Marquardt did not converge (Eigen status " +
                     std::to_string(static_cast<int>(status)) + ")";
    return attempt;
  }
  attempt.fit = summarise(spec, q, points);
  return attempt;
}

}  // namespace

double ScalingFit::param(std::string_view name) const {
  for (const auto& [key, value] : params)
    if (key == name) return value;
  throw std::out_of_range(model + " fit has no parameter '" + std::string(name) + "'");
}

FitAttempt fit_amdahl(std::span<const ScalingPoint> points, Residual residual) {
  return fit_model(kAmdahlSpec, points, residual);
}

FitAttempt fit_usl(std::span<const ScalingPoint> points, Residual residual) {
  return fit_model(kUslSpec, points, residual);
}

ScalingFit scaling_fit(std::string_view model, std::vector<std::pair<std::string, double>> params,
                       std::span<const ScalingPoint> points) {
  ScalingFit fit{.model = std::string(model),
                 .params = std::move(params),
                 .rmse = 0,
                 .mape = 0,
                 .points = static_cast<int>(points.size())};
  for (const ScalingPoint& pt : points) {
    const double error = predict(fit, pt.ranks) - pt.throughput;
    fit.rmse += error * error;
    fit.mape += std::fabs(error) / pt.throughput;
  }
  fit.rmse = std::sqrt(fit.rmse / fit.points);
  fit.mape /= fit.points;
  return fit;
}

double predict(const ScalingFit& fit, double ranks) {
  Natural q = Natural::Zero();
  for (const FreeParam& f : spec_of(fit.model).free) q[f.index] = fit.param(f.name);
  return law(q, ranks);
}

std::optional<double> ranks_at_efficiency(const ScalingFit& fit, double efficiency) {
  if (!(efficiency > 0.0 && efficiency < 1.0))
    throw std::invalid_argument("efficiency " + std::to_string(efficiency) +
                                ": expected a value in (0, 1)");
  Natural q = Natural::Zero();
  for (const FreeParam& f : spec_of(fit.model).free) q[f.index] = fit.param(f.name);
  const double sigma = q[1], kappa = q[2], excess = 1.0 / efficiency - 1.0;
  // κp² + (σ − κ)p − (σ + excess) = 0, the root >= 1.
  if (kappa > 0.0) {
    const double b = sigma - kappa;
    return (-b + std::sqrt(b * b + 4.0 * kappa * (sigma + excess))) / (2.0 * kappa);
  }
  if (sigma > 0.0) return 1.0 + excess / sigma;
  return std::nullopt;
}

std::optional<double> usl_peak_ranks(const ScalingFit& fit) {
  if (fit.model != kUsl) return std::nullopt;
  const double sigma = fit.param("sigma");
  const double kappa = fit.param("kappa");
  if (!(kappa > 0.0) || !(sigma < 1.0)) return std::nullopt;
  return std::sqrt((1.0 - sigma) / kappa);
}

}  // namespace scaletune::autotune
