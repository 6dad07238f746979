#include "autotune/topsis.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace scaletune::autotune {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("topsis: " + what);
}

Eigen::MatrixXd to_matrix(const std::vector<std::vector<double>>& matrix, std::size_t n_criteria) {
  if (matrix.empty() || matrix.front().empty())
    fail("empty decision matrix, expected at least one alternative and one criterion");
  const std::size_t cols = matrix.front().size();
  if (n_criteria != cols)
    fail(std::to_string(n_criteria) + " criteria given for a matrix of " + std::to_string(cols) +
         " columns, expected one criterion per column");
  Eigen::MatrixXd x(static_cast<Eigen::Index>(matrix.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < matrix.size(); ++i) {
    if (matrix[i].size() != cols)
      fail("row " + std::to_string(i) + " has " + std::to_string(matrix[i].size()) +
           " values, expected " + std::to_string(cols) + " like row 0");
    for (std::size_t j = 0; j < cols; ++j) {
      if (!std::isfinite(matrix[i][j]))
        fail("value at row " + std::to_string(i) + ", column " + std::to_string(j) +
             " is not finite, expected a finite number");
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = matrix[i][j];
    }
  }
  return x;
}

Eigen::RowVectorXd normalised_weights(const std::vector<Criterion>& criteria) {
  Eigen::RowVectorXd w(static_cast<Eigen::Index>(criteria.size()));
  for (std::size_t j = 0; j < criteria.size(); ++j) {
    const double wj = criteria[j].weight;
    if (!std::isfinite(wj) || wj < 0.0)
      fail("weight of criterion " + std::to_string(j) + " is " + std::to_string(wj) +
           ", expected a finite number >= 0");
    w(static_cast<Eigen::Index>(j)) = wj;
  }
  if (!(w.sum() > 0.0)) fail("all weights are zero, expected at least one positive weight");
  return w / w.sum();
}

Eigen::RowVectorXd column_norms(const Eigen::MatrixXd& x) {
  Eigen::RowVectorXd norms = x.colwise().norm();
  for (Eigen::Index j = 0; j < norms.size(); ++j)
    if (norms(j) == 0.0)
      fail("column " + std::to_string(j) +
           " is all zeros, expected a criterion with at least one non-zero value");
  return norms;
}

}  // namespace

std::vector<double> topsis_scores(const std::vector<std::vector<double>>& matrix,
                                  const std::vector<Criterion>& criteria) {
  const Eigen::MatrixXd x = to_matrix(matrix, criteria.size());
  const Eigen::RowVectorXd w = normalised_weights(criteria);
  const Eigen::MatrixXd v = x.array().rowwise() * (w.array() / column_norms(x).array());

  Eigen::RowVectorXd best(v.cols()), worst(v.cols());
  for (Eigen::Index j = 0; j < v.cols(); ++j) {
    const bool benefit = criteria[static_cast<std::size_t>(j)].benefit;
    best(j) = benefit ? v.col(j).maxCoeff() : v.col(j).minCoeff();
    worst(j) = benefit ? v.col(j).minCoeff() : v.col(j).maxCoeff();
  }
  const Eigen::VectorXd s_best = (v.rowwise() - best).rowwise().norm();
  const Eigen::VectorXd s_worst = (v.rowwise() - worst).rowwise().norm();

  std::vector<double> closeness(static_cast<std::size_t>(v.rows()));
  for (Eigen::Index i = 0; i < v.rows(); ++i) {
    const double total = s_best(i) + s_worst(i);
    closeness[static_cast<std::size_t>(i)] = total > 0.0 ? s_worst(i) / total : 0.5;
  }
  return closeness;
}

std::vector<std::size_t> topsis_order(const std::vector<std::vector<double>>& matrix,
                                      const std::vector<Criterion>& criteria) {
  const std::vector<double> score = topsis_scores(matrix, criteria);
  std::vector<std::size_t> order(score.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t p, std::size_t q) { return score[p] > score[q]; });
  return order;
}

}  // namespace scaletune::autotune
