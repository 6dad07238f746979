#pragma once
// The plots of the autotune report, built from the metrics, the scaling fits and the ranking.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "autotune/metrics.hpp"
#include "autotune/plots.hpp"
#include "autotune/ranking.hpp"
#include "autotune/series_fits.hpp"

namespace scaletune::autotune {

/// Plots of the report, by name:
/// - "throughput": throughput (samples/s) against devices, log-log, the ok configurations of the
///   `max_series` series with the most ok configurations (points) and each one's fitted curve
///   (its fit of lowest RMSE, from the fewest to the most devices measured);
/// - "efficiency": scaling efficiency against devices for the same series, and the fitted
///   curve's X(p)·p0 / (p·X0), X0 the measured throughput of the series baseline at p0 (as the
///   measured efficiencies are);
/// - "pareto": time to train (min) against device-minutes of every ok configuration, log-log,
///   and the Pareto front as a line;
/// - "clusters" (when the ranking has clusters): throughput per device against devices, one
///   series of points per cluster, labelled by its TOPSIS rank.
std::vector<Plot> report_plots(std::span<const ConfigMetrics> metrics,
                               std::span<const SeriesFits> fits, const Ranking& ranking,
                               std::size_t max_series = 8);

/// A plot-file prefix from a report path: the file's stem in lower case with characters outside
/// [a-z0-9_-] replaced by '-', then '-': "out/MLPerf.report.md" -> "mlperf-report-".
std::string plot_prefix(const std::string& report_path);

}  // namespace scaletune::autotune
