#include "autotune/rbf_residual.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace scaletune::autotune {
namespace {

/// exp(-gamma / d * |z - c|^2) for standardised z and a center c, both of size d.
double kernel(std::span<const double> z, std::span<const double> c, double gamma) {
  double distance = 0.0;
  for (std::size_t j = 0; j < z.size(); ++j) distance += (z[j] - c[j]) * (z[j] - c[j]);
  return std::exp(-gamma / static_cast<double>(z.size()) * distance);
}

/// The distinct rows of x, each with the mean of its residuals: a shape timed on several ranks
/// is one center, so its copies neither weigh it against the ridge nor cost predictions time.
void merge_copies(std::vector<std::vector<double>>& x, std::vector<double>& r) {
  std::map<std::vector<double>, std::pair<double, int>> rows;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto& [sum, count] = rows[x[i]];
    sum += r[i];
    ++count;
  }
  x.clear();
  r.clear();
  for (const auto& [row, sum_count] : rows) {
    x.push_back(row);
    r.push_back(sum_count.first / sum_count.second);
  }
}

void standardise(const std::vector<std::vector<double>>& x, RbfResidual& out) {
  const std::size_t d = x.front().size();
  const auto n = static_cast<double>(x.size());
  out.offset.assign(d, 0.0);
  out.scale.assign(d, 0.0);
  for (const std::vector<double>& row : x)
    for (std::size_t j = 0; j < d; ++j) out.offset[j] += row[j] / n;
  for (const std::vector<double>& row : x)
    for (std::size_t j = 0; j < d; ++j)
      out.scale[j] += (row[j] - out.offset[j]) * (row[j] - out.offset[j]) / n;
  for (double& s : out.scale) s = s > 1e-18 ? std::sqrt(s) : 1.0;
  out.centers.clear();
  for (const std::vector<double>& row : x)
    for (std::size_t j = 0; j < d; ++j)
      out.centers.push_back((row[j] - out.offset[j]) / out.scale[j]);
}

}  // namespace

double RbfResidual::value(std::span<const double> x) const {
  if (alpha.empty()) return 0.0;
  const std::size_t d = offset.size();
  if (x.size() != d)
    throw std::invalid_argument("RbfResidual::value: " + std::to_string(x.size()) +
                                " inputs, expected " + std::to_string(d));
  std::vector<double> z(d);
  for (std::size_t j = 0; j < d; ++j) z[j] = (x[j] - offset[j]) / scale[j];
  double r = 0.0;
  for (std::size_t i = 0; i < alpha.size(); ++i)
    r += alpha[i] * kernel(z, std::span<const double>(centers).subspan(i * d, d), gamma);
  return r;
}

RbfResidual fit_rbf_residual(std::vector<std::vector<double>> x, std::vector<double> r,
                             double gamma, double ridge) {
  if (x.empty() || x.size() != r.size())
    throw std::invalid_argument("fit_rbf_residual: " + std::to_string(x.size()) + " points and " +
                                std::to_string(r.size()) + " residuals; expected as many, >= 1");
  for (const std::vector<double>& row : x)
    if (row.size() != x.front().size())
      throw std::invalid_argument("fit_rbf_residual: points of " + std::to_string(row.size()) +
                                  " and " + std::to_string(x.front().size()) + " inputs");
  merge_copies(x, r);
  RbfResidual out;
  out.gamma = gamma;
  standardise(x, out);
  const std::size_t d = out.offset.size();
  const auto n = static_cast<Eigen::Index>(x.size());
  const std::span<const double> c(out.centers);
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j <= i; ++j)
      k(i, j) = k(j, i) = kernel(c.subspan(static_cast<std::size_t>(i) * d, d),
                                 c.subspan(static_cast<std::size_t>(j) * d, d), gamma);
  k.diagonal().array() += ridge;
  const Eigen::VectorXd alpha =
      k.ldlt().solve(Eigen::Map<const Eigen::VectorXd>(r.data(), static_cast<Eigen::Index>(n)));
  out.alpha.assign(alpha.data(), alpha.data() + n);
  return out;
}

}  // namespace scaletune::autotune
