#include "autotune/rank_count_model.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <set>
#include <stdexcept>
#include <vector>

#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {
namespace {

/// Coefficients in term order: alpha0, alpha1, alpha_inter, beta0, beta1, beta_inter.
using Terms = Eigen::Matrix<double, 1, 6>;

/// The model's terms for one collective of `bytes` on `ranks` ranks over `nodes` nodes.
Terms terms(const std::string& op, int ranks, double bytes, int nodes) {
  const double bus_bytes = bytes * results::bus_factor(op, ranks);
  if (nodes <= 1) return {1.0, ranks - 1.0, 0.0, bus_bytes, bus_bytes / ranks, 0.0};
  const int per_node = (ranks + nodes - 1) / nodes;
  return {1.0, per_node - 1.0, nodes - 1.0, 0.0, 0.0, bus_bytes};
}

void check_rows(std::span<const CollectiveRow> rows) {
  if (rows.empty())
    throw std::invalid_argument("the model across rank counts needs rows; got none");
  const std::string& op = rows.front().op;
  if (!results::has_bus_factor(op))
    throw std::invalid_argument(op +
                                " has no nccl-tests bus factor; expected all_reduce, "
                                "all_gather, reduce_scatter, alltoall, broadcast, reduce or "
                                "sendrecv");
  std::set<int> counts;
  for (const CollectiveRow& row : rows) {
    if (row.op != op)
      throw std::invalid_argument("rows of " + op + " and of " + row.op + "; fit one op");
    if (row.ranks < 2 || row.bytes < 1 || !(row.time_us > 0.0) || row.nodes > row.ranks)
      throw std::invalid_argument(
          op + ": a row of " + std::to_string(row.bytes) + " bytes on " +
          std::to_string(row.ranks) + " ranks over " + std::to_string(row.nodes) + " nodes in " +
          std::to_string(row.time_us) +
          " us; expected >= 2 ranks on at most as many nodes, >= 1 byte, a time > 0");
    counts.insert(row.ranks);
  }
  if (counts.size() < 2)
    throw std::invalid_argument(op + " was measured on one rank count (" +
                                std::to_string(*counts.begin()) +
                                " ranks); the model across rank counts needs at least 2");
}

/// Ranks per node of the rows that span nodes (0 when none does). Throws std::invalid_argument
/// when they differ.
int multi_node_layout(std::span<const CollectiveRow> rows) {
  int per_node = 0;
  for (const CollectiveRow& row : rows) {
    if (nodes_of(row) == 1) continue;
    const int g = (row.ranks + row.nodes - 1) / row.nodes;
    if (per_node != 0 && g != per_node)
      throw std::invalid_argument(
          row.op + ": rows across nodes with " + std::to_string(per_node) + " and " +
          std::to_string(g) +
          " ranks per node; fit logs of one node layout (import each layout's logs into a file of "
          "its own and fit them apart)");
    per_node = g;
  }
  return per_node;
}

}  // namespace

double RankCountModel::time_us(int ranks, double bytes, int nodes) const {
  const Terms t = terms(op, ranks, bytes, spans_nodes() ? nodes : 1);
  return t.dot(Terms(alpha0, alpha1, alpha_inter, beta0, beta1, beta_inter));
}

RankCountModel fit_rank_count_model(std::span<const CollectiveRow> rows) {
  check_rows(rows);
  const std::string& op = rows.front().op;
  const int per_node = multi_node_layout(rows);
  Eigen::MatrixXd a(static_cast<Eigen::Index>(rows.size()), 6);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size()));
  for (std::size_t i = 0; i < rows.size(); ++i)
    a.row(static_cast<Eigen::Index>(i)) =
        terms(op, rows[i].ranks, static_cast<double>(rows[i].bytes), nodes_of(rows[i])) /
        rows[i].time_us;
  // Without rows across nodes the inter-node columns are zero: fitting the other four keeps
  // the solution that of the one-level model.
  const std::vector<Eigen::Index> columns = per_node > 0
                                                ? std::vector<Eigen::Index>{0, 1, 2, 3, 4, 5}
                                                : std::vector<Eigen::Index>{0, 1, 3, 4};
  const Eigen::MatrixXd fitted = a(Eigen::all, columns);
  const Eigen::VectorXd solved = fitted.colPivHouseholderQr().solve(b);
  Eigen::Matrix<double, 6, 1> x = Eigen::Matrix<double, 6, 1>::Zero();
  x(columns) = solved;
  const auto [low, high] = std::ranges::minmax_element(rows, {}, &CollectiveRow::ranks);
  const auto most = std::ranges::max_element(rows, {}, nodes_of);
  return {.op = op,
          .alpha0 = x(0),
          .alpha1 = x(1),
          .beta0 = x(3),
          .beta1 = x(4),
          .min_ranks = low->ranks,
          .max_ranks = high->ranks,
          .alpha_inter = x(2),
          .beta_inter = x(5),
          .ranks_per_node = per_node,
          .max_nodes = nodes_of(*most)};
}

}  // namespace scaletune::autotune
