#pragma once
// A collective's time across rank counts as well as sizes, for rank counts nobody measured: an
// alpha-beta model (Hockney's latency-bandwidth model, as extended per collective by Thakur,
// Rabenseifner and Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA
// 2005) whose latency grows with the steps of a ring, n - 1, and whose bandwidth term moves the
// op's bus-factor share of the bytes at a per-byte cost that may fall with n (NVLink/NVSwitch
// links add up as ranks join). When the rows span nodes, the model gets intra- and inter-node
// terms, a two-level form of the same model (ours, not from a paper): within a node the terms
// above; across N nodes of g ranks the ring takes g - 1 steps inside each node and N - 1
// between nodes, and moves the bus bytes at the bandwidth of the inter-node links, the slowest
// of a ring that leaves the node (as NCCL's rings and nccl-tests' busbw across nodes show).

#include <span>
#include <string>

#include "autotune/collective_log.hpp"

namespace scaletune::autotune {

/// Within one node of n ranks:
///   time_us(n, b) = alpha0 + alpha1 (n - 1) + bus_bytes x (beta0 + beta1 / n);
/// across N > 1 nodes of g = ceil(n / N) ranks (fitted only when some rows span nodes):
///   time_us(n, b, N) = alpha0 + alpha1 (g - 1) + alpha_inter (N - 1) + bus_bytes x beta_inter,
/// with bus_bytes = b x bus_factor(op, n), alpha in microseconds, beta in microseconds per byte.
struct RankCountModel {
  std::string op;
  double alpha0 = 0.0, alpha1 = 0.0;  ///< us, us per ring step within a node
  double beta0 = 0.0, beta1 = 0.0;    ///< us per bus byte within a node, and its 1 / n part
  int min_ranks = 0, max_ranks = 0;   ///< the rank counts it was fitted on
  double alpha_inter = 0.0;           ///< us per ring step between nodes
  double beta_inter = 0.0;            ///< us per bus byte over the inter-node links
  /// Ranks per node of the fitted rows that span nodes (the layout predictions take unless told
  /// otherwise); 0 when every fitted row ran within one node (no inter-node terms)
  int ranks_per_node = 0;
  int max_nodes = 1;  ///< the most nodes a fitted row spanned

  /// Predicted time of one collective of `bytes` on `ranks` ranks spread over `nodes` nodes
  /// (>= 1), microseconds. Without inter-node terms every layout is timed as one node.
  double time_us(int ranks, double bytes, int nodes = 1) const;
  /// Whether the model has inter-node terms (some fitted rows spanned nodes).
  bool spans_nodes() const { return max_nodes > 1; }
};

/// Fits the model to `rows` of one op (with a bus factor, results::has_bus_factor) measured on
/// at least 2 distinct rank counts, each >= 2, by linear least squares on the relative error
/// (each equation divided by its measured time). A row's `nodes` (0: unknown, taken as 1)
/// places it within one node or across nodes; the inter-node terms are fitted when some rows
/// span nodes, and all rows spanning nodes must have the same ranks per node. Throws
/// std::invalid_argument naming the op when the rows mix ops, the op has no bus factor, they span
/// fewer than 2 rank counts or (across nodes) different ranks per node.
RankCountModel fit_rank_count_model(std::span<const CollectiveRow> rows);

}  // namespace scaletune::autotune
