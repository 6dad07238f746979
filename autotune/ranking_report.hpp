#pragma once
// The ranking sections of the autotune report: configurations ranked by TOPSIS, the clusters,
// the Pareto front of time to train against device-minutes, and what drives the metrics.

#include <span>
#include <string>

#include "autotune/drivers.hpp"
#include "autotune/metrics.hpp"
#include "autotune/ranking.hpp"

namespace scaletune::autotune {

/// Where the report's plots are, relative to the report (empty: not drawn).
struct PlotLinks {
  std::string throughput, efficiency, pareto, clusters;
  std::string notice;  ///< why plots are missing (render_plots()); "" when all were drawn
};

/// What the ranking sections need besides the ranking itself.
struct RankingContext {
  std::span<const ConfigMetrics> metrics;       ///< from compute_metrics()
  double train_samples = kDefaultTrainSamples;  ///< MetricsOptions::train_samples
  std::string currency;                         ///< the price table's; empty without prices
  std::string cost_left_out;  ///< why cost is not a criterion (a device without a price); or ""
  PlotLinks plots;
};

/// Markdown sections "Ranking" (criteria, weights, the best configurations by TOPSIS score with
/// their metrics and Pareto membership), "Clusters" (k, the silhouette of each k tried, each
/// cluster's device range, accelerators and metric ranges, ranked by their members'
/// median TOPSIS score), "Pareto front" and "What drives the metrics" (permutation importance,
/// score ± spread, cross-validated R²), with the plots linked where drawn. Shows at most `top`
/// ranked configurations.
std::string ranking_sections(const RankingContext& context, const Ranking& ranking,
                             const Drivers& drivers, std::size_t top = 15);

/// One line on the top cluster: "top cluster: 38 configurations on 8-64 devices (A100-SXM-80GB,
/// H100-SXM-80GB, ...), TOPSIS 0.71"; "" without clusters.
std::string top_cluster_line(const Ranking& ranking);

}  // namespace scaletune::autotune
