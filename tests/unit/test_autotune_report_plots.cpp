// The report's plots built from metrics, fits and the ranking: the measured points and fitted
// curves of a series (the curve evaluated by predict() at its ends), the Pareto plot's front (the
// ranking's front), one cluster series per cluster, and the plot-file prefix.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autotune/ranking.hpp"
#include "autotune/report_plots.hpp"
#include "autotune/series_fits.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;

namespace {

/// Amdahl throughput 100·p / (1 + 0.1 (p − 1)), 1e5 samples to train.
at::ConfigMetrics config(const std::string& series, int ranks) {
  at::ConfigMetrics m;
  m.id = series + "-r" + std::to_string(ranks);
  m.series = "resnet50, " + series;
  m.ranks = ranks;
  m.status = rs::Status::ok;
  m.throughput = 100.0 * ranks / (1 + 0.1 * (ranks - 1));
  m.throughput_per_rank = m.throughput / ranks;
  m.scaling_efficiency = m.throughput_per_rank / 100.0;
  m.time_to_train_min = 1e5 / m.throughput / 60;
  m.device_minutes = ranks * m.time_to_train_min;
  m.accelerator = "host-core";
  return m;
}

const at::Plot& named(const std::vector<at::Plot>& plots, const std::string& name) {
  for (const auto& p : plots)
    if (p.name == name) return p;
  throw std::out_of_range(name);
}

}  // namespace

TEST(ReportPlots, SeriesCurvesFrontAndClusters) {
  std::vector<at::ConfigMetrics> metrics;
  for (int p : {1, 2, 4, 8}) metrics.push_back(config("a", p));
  metrics.push_back(config("b", 2));
  metrics.back().status = rs::Status::oom;  // not plotted
  const auto fits = at::fit_series(metrics);
  const at::Ranking ranking = at::rank_configurations(metrics, at::default_criteria(false));
  const std::vector<at::Plot> plots = at::report_plots(metrics, fits, ranking);
  ASSERT_EQ(plots.size(), 4u);

  const at::Plot& throughput = named(plots, "throughput");
  EXPECT_TRUE(throughput.log_x && throughput.log_y);
  ASSERT_EQ(throughput.curves.size(), 2u);  // series a: points and its fit; b has none ok
  ASSERT_EQ(throughput.curves[0].points.size(), 4u);
  EXPECT_EQ(throughput.curves[0].points[3], std::make_pair(8.0, metrics[3].throughput));
  const auto& curve = throughput.curves[1].points;
  EXPECT_EQ(throughput.curves[1].style, at::Curve::Style::line);
  EXPECT_DOUBLE_EQ(curve.front().first, 1.0);
  EXPECT_DOUBLE_EQ(curve.back().first, 8.0);
  EXPECT_NEAR(curve.back().second, metrics[3].throughput, 1e-6 * metrics[3].throughput);

  const at::Plot& efficiency = named(plots, "efficiency");
  EXPECT_NEAR(efficiency.curves[1].points.back().second, metrics[3].scaling_efficiency, 1e-6);

  const at::Plot& pareto = named(plots, "pareto");
  ASSERT_EQ(pareto.curves.size(), 2u);
  EXPECT_EQ(pareto.curves[0].points.size(), 4u);
  ASSERT_EQ(pareto.curves[1].points.size(), ranking.pareto.size());
  for (std::size_t k = 0; k < ranking.pareto.size(); ++k)
    EXPECT_EQ(pareto.curves[1].points[k],
              std::make_pair(metrics[ranking.pareto[k]].device_minutes,
                             metrics[ranking.pareto[k]].time_to_train_min));

  const at::Plot& clusters = named(plots, "clusters");
  EXPECT_EQ(clusters.curves.size(), static_cast<std::size_t>(ranking.clustering.k));
}

TEST(ReportPlots, PrefixFromTheReportName) {
  EXPECT_EQ(at::plot_prefix("out/MLPerf.report.md"), "mlperf-report-");
  EXPECT_EQ(at::plot_prefix("r.md"), "r-");
  EXPECT_EQ(at::plot_prefix("dir/a b+c.md"), "a-b-c-");
}
