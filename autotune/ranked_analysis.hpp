#pragma once
// The ranking half of `scaletune autotune`: rank, cluster, explain and (for MLPerf results)
// model time to train, then the report sections, the plots and the console lines.

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "autotune/metrics.hpp"
#include "autotune/series_fits.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// Settings of ranked_analysis().
struct RankedAnalysisOptions {
  std::string weights;     ///< "--weights" spec (set_weights); empty: equal weights
  MetricsOptions metrics;  ///< as given to compute_metrics()
  /// Where plots go (the report's folder) and their file prefix (plot_prefix()); no plots when
  /// empty.
  std::optional<std::filesystem::path> plot_dir;
  std::string plot_prefix;
};

/// What ranked_analysis() produced.
struct RankedAnalysis {
  std::string markdown;  ///< report sections (ranking_sections(), time-to-train model)
  std::string console;   ///< lines for the terminal: the best by TOPSIS, the top cluster, the
                         ///< Pareto front's size, the time-to-train check, the plot notice
  std::vector<std::filesystem::path> plots;  ///< SVG files written
};

/// Ranks the ok configurations of `metrics` (compute_metrics(results, options.metrics)), clusters
/// them, finds what drives their metrics, and for imported MLPerf results fits the time-to-train
/// model; renders the plots when options.plot_dir is set (a missing gnuplot only adds a notice).
/// Cost is a criterion when every ok configuration has one; otherwise the report says which
/// accelerators have no price. Nothing to rank (no ok configuration): empty markdown and a
/// console line saying so. Throws std::invalid_argument for bad weights.
RankedAnalysis ranked_analysis(const results::ResultSet& results,
                               std::span<const ConfigMetrics> metrics,
                               std::span<const SeriesFits> fits,
                               const RankedAnalysisOptions& options);

}  // namespace scaletune::autotune
