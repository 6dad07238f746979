#include "autotune/report_plots.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>

namespace scaletune::autotune {
namespace {

constexpr int kCurvePoints = 40;

/// The series with the most ok configurations (ties: first appearance), at most `n`.
std::vector<std::string> largest_series(std::span<const ConfigMetrics> metrics, std::size_t n) {
  std::vector<std::pair<int, std::string>> counts;  // (-count, series) in first-appearance order
  for (const ConfigMetrics& m : metrics) {
    if (m.status != results::Status::ok) continue;
    auto it = std::ranges::find(counts, m.series, &std::pair<int, std::string>::second);
    if (it == counts.end())
      counts.emplace_back(-1, m.series);
    else
      --it->first;
  }
  std::ranges::stable_sort(counts, {}, &std::pair<int, std::string>::first);
  std::vector<std::string> out;
  for (std::size_t k = 0; k < std::min(n, counts.size()); ++k) out.push_back(counts[k].second);
  return out;
}

/// The fit of lowest RMSE of `series`, or none.
const ScalingFit* best_fit(std::span<const SeriesFits> fits, const std::string& series) {
  const ScalingFit* best = nullptr;
  for (const SeriesFits& s : fits)
    if (s.series == series)
      for (const FitAttempt& a : s.attempts)
        if (a.fit && (!best || a.fit->rmse < best->rmse)) best = &*a.fit;
  return best;
}

/// `series` without its leading workload: "mlperf:resnet50, A100, mxnet" -> "A100, mxnet".
std::string series_label(const std::string& series) {
  const std::size_t comma = series.find(", ");
  return comma == std::string::npos ? series : series.substr(comma + 2);
}

struct SeriesCurves {
  Curve measured_throughput, fitted_throughput, measured_efficiency, fitted_efficiency;
};

/// The curves of `series`, group `group`: its points labelled, its fitted curve in the same
/// colour without a legend entry.
SeriesCurves curves_of(std::span<const ConfigMetrics> metrics, const std::string& series,
                       const ScalingFit* fit, int group) {
  const std::string label = series_label(series);
  SeriesCurves c{{label, {}, Curve::Style::points, group},
                 {"", {}, Curve::Style::line, group},
                 {label, {}, Curve::Style::points, group},
                 {"", {}, Curve::Style::line, group}};
  double lo = INFINITY, hi = 0;
  double baseline_per_device = 0;  // X(p0)/p0 of the series baseline: (X/p) / E of any member
  for (const ConfigMetrics& m : metrics)
    if (m.status == results::Status::ok && m.series == series) {
      c.measured_throughput.points.emplace_back(m.ranks, m.throughput);
      c.measured_efficiency.points.emplace_back(m.ranks, m.scaling_efficiency);
      lo = std::min(lo, double(m.ranks));
      hi = std::max(hi, double(m.ranks));
      baseline_per_device = m.throughput_per_rank / m.scaling_efficiency;
    }
  if (!fit || !(hi > lo)) return c;
  for (int k = 0; k < kCurvePoints; ++k) {
    const double p = lo * std::pow(hi / lo, double(k) / (kCurvePoints - 1));
    const double x = predict(*fit, p);
    c.fitted_throughput.points.emplace_back(p, x);
    c.fitted_efficiency.points.emplace_back(p, x / p / baseline_per_device);
  }
  return c;
}

std::vector<Plot> scaling_plots(std::span<const ConfigMetrics> metrics,
                                std::span<const SeriesFits> fits, std::size_t max_series) {
  Plot throughput{"throughput",
                  "Throughput against devices (lines: fitted laws)",
                  "devices",
                  "throughput (samples/s)",
                  true,
                  true,
                  {}};
  Plot efficiency{"efficiency",
                  "Scaling efficiency against devices (lines: fitted laws)",
                  "devices",
                  "scaling efficiency",
                  true,
                  false,
                  {}};
  int group = 0;
  for (const std::string& series : largest_series(metrics, max_series)) {
    SeriesCurves c = curves_of(metrics, series, best_fit(fits, series), group++);
    throughput.curves.push_back(std::move(c.measured_throughput));
    efficiency.curves.push_back(std::move(c.measured_efficiency));
    if (c.fitted_throughput.points.empty()) continue;
    throughput.curves.push_back(std::move(c.fitted_throughput));
    efficiency.curves.push_back(std::move(c.fitted_efficiency));
  }
  return {throughput, efficiency};
}

Plot pareto_plot(std::span<const ConfigMetrics> metrics, const Ranking& ranking) {
  Curve all{"configurations", {}, Curve::Style::points, -1};
  for (const ConfigMetrics& m : metrics)
    if (m.status == results::Status::ok)
      all.points.emplace_back(m.device_minutes, m.time_to_train_min);
  Curve front{"Pareto front", {}, Curve::Style::linespoints, -1};
  for (std::size_t i : ranking.pareto)
    front.points.emplace_back(metrics[i].device_minutes, metrics[i].time_to_train_min);
  return {"pareto",
          "Time to train against device-minutes",
          "device-minutes",
          "time to train (min)",
          true,
          true,
          {all, front}};
}

Plot clusters_plot(std::span<const ConfigMetrics> metrics, const Ranking& ranking) {
  Plot plot{"clusters", "Clusters (ranked by TOPSIS)",
            "devices",  "throughput per device (samples/s)",
            true,       false,
            {}};
  for (std::size_t k = 0; k < ranking.clusters.size(); ++k) {
    Curve c{"cluster " + std::to_string(k + 1), {}, Curve::Style::points, -1};
    for (std::size_t i : ranking.clusters[k].members)
      c.points.emplace_back(metrics[i].ranks, metrics[i].throughput_per_rank);
    plot.curves.push_back(std::move(c));
  }
  return plot;
}

}  // namespace

std::vector<Plot> report_plots(std::span<const ConfigMetrics> metrics,
                               std::span<const SeriesFits> fits, const Ranking& ranking,
                               std::size_t max_series) {
  std::vector<Plot> plots = scaling_plots(metrics, fits, max_series);
  plots.push_back(pareto_plot(metrics, ranking));
  if (!ranking.clusters.empty()) plots.push_back(clusters_plot(metrics, ranking));
  return plots;
}

std::string plot_prefix(const std::string& report_path) {
  std::string stem = std::filesystem::path(report_path).stem().string();
  for (char& ch : stem) {
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-') ch = '-';
  }
  return stem + "-";
}

}  // namespace scaletune::autotune
