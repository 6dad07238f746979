#include "autotune/rank_count_model.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <set>
#include <stdexcept>

#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {
namespace {

/// The model's four terms for one (ranks, bytes), in the order of its coefficients.
Eigen::RowVector4d terms(const std::string& op, int ranks, double bytes) {
  const double bus_bytes = bytes * results::bus_factor(op, ranks);
  return {1.0, static_cast<double>(ranks - 1), bus_bytes, bus_bytes / ranks};
}

void check_rows(std::span<const CollectiveRow> rows) {
  if (rows.empty()) throw std::invalid_argument("fit_rank_count_model: no rows");
  const std::string& op = rows.front().op;
  if (!results::has_bus_factor(op))
    throw std::invalid_argument("fit_rank_count_model: " + op +
                                " has no nccl-tests bus factor; expected all_reduce, "
                                "all_gather, reduce_scatter, alltoall, broadcast, reduce or "
                                "sendrecv");
  std::set<int> counts;
  for (const CollectiveRow& row : rows) {
    if (row.op != op)
      throw std::invalid_argument("fit_rank_count_model: rows of " + op + " and of " + row.op +
                                  "; fit one op");
    if (row.ranks < 2 || row.bytes < 1 || !(row.time_us > 0.0))
      throw std::invalid_argument(
          "fit_rank_count_model: " + op + ": a row of " + std::to_string(row.bytes) + " bytes on " +
          std::to_string(row.ranks) + " ranks in " + std::to_string(row.time_us) +
          " us; expected >= 2 ranks, >= 1 byte, a time > 0");
    counts.insert(row.ranks);
  }
  if (counts.size() < 2)
    throw std::invalid_argument("fit_rank_count_model: " + op + " was measured on " +
                                std::to_string(counts.size()) +
                                " rank count; the model needs at least 2");
}

}  // namespace

double RankCountModel::time_us(int ranks, double bytes) const {
  return (terms(op, ranks, bytes) * Eigen::Vector4d(alpha0, alpha1, beta0, beta1))(0);
}

RankCountModel fit_rank_count_model(std::span<const CollectiveRow> rows) {
  check_rows(rows);
  const std::string& op = rows.front().op;
  Eigen::MatrixX4d a(static_cast<Eigen::Index>(rows.size()), 4);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    a.row(static_cast<Eigen::Index>(i)) =
        terms(op, rows[i].ranks, static_cast<double>(rows[i].bytes)) / rows[i].time_us;
  const Eigen::Vector4d x = a.colPivHouseholderQr().solve(b);
  const auto [low, high] = std::ranges::minmax_element(rows, {}, &CollectiveRow::ranks);
  return {.op = op,
          .alpha0 = x(0),
          .alpha1 = x(1),
          .beta0 = x(2),
          .beta1 = x(3),
          .min_ranks = low->ranks,
          .max_ranks = high->ranks};
}

}  // namespace scaletune::autotune
