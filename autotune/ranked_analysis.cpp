#include "autotune/ranked_analysis.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "autotune/detail/format.hpp"
#include "autotune/drivers.hpp"
#include "autotune/plots.hpp"
#include "autotune/ranking.hpp"
#include "autotune/ranking_report.hpp"
#include "autotune/report_plots.hpp"
#include "autotune/ttt_report.hpp"

namespace scaletune::autotune {
namespace {

std::vector<const ConfigMetrics*> ok_of(std::span<const ConfigMetrics> metrics) {
  std::vector<const ConfigMetrics*> ok;
  for (const ConfigMetrics& m : metrics)
    if (m.status == results::Status::ok) ok.push_back(&m);
  return ok;
}

/// Why cost cannot be a criterion: "" when every ok configuration has a finite cost.
std::string cost_left_out(std::span<const ConfigMetrics> metrics, const MetricsOptions& options) {
  if (!options.prices) return "no price table (--prices FILE.toml)";
  std::set<std::string> unpriced;
  for (const ConfigMetrics* m : ok_of(metrics))
    if (!std::isfinite(m->cost)) unpriced.insert(m->accelerator);
  if (unpriced.empty()) return "";
  std::string names;
  for (const std::string& name : unpriced) names += (names.empty() ? "" : ", ") + name;
  return options.prices->path + " gives no finite price for " + names;
}

/// The criteria with the weights of --weights; "cost" there without a cost to rank is refused
/// with the reason.
std::vector<RankingCriterion> criteria_for(const RankedAnalysisOptions& options,
                                           const std::string& left_out) {
  std::vector<RankingCriterion> criteria = default_criteria(left_out.empty());
  if (!left_out.empty() && !options.weights.empty()) {
    auto with_cost = default_criteria(true);
    set_weights(with_cost, options.weights);  // a typo is reported as such first
    if (with_cost.back().weight > 0)
      throw std::invalid_argument("--weights " + options.weights +
                                  ": cost cannot be ranked: " + left_out);
  }
  if (!options.weights.empty()) set_weights(criteria, options.weights);
  return criteria;
}

/// The time-to-train section; bad MLPerf attributes are named with the file.
TttSection checked_ttt_section(const results::ResultSet& results) {
  try {
    return ttt_section(results.configs);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(results.path + ": " + e.what());
  }
}

/// Renders the plots; returns their links (file names relative to the report).
PlotLinks draw(const std::vector<Plot>& plots, const RankedAnalysisOptions& options,
               RankedAnalysis& out) {
  const PlotOutcome drawn = render_plots(plots, *options.plot_dir, options.plot_prefix);
  out.plots = drawn.files;
  if (!drawn.notice.empty()) out.console += drawn.notice + "\n";
  PlotLinks links;
  for (const auto& file : drawn.files) {
    const std::string name = file.filename().string();
    const std::string stem = file.stem().string().substr(options.plot_prefix.size());
    if (stem == "throughput") links.throughput = name;
    if (stem == "efficiency") links.efficiency = name;
    if (stem == "pareto") links.pareto = name;
    if (stem == "clusters") links.clusters = name;
  }
  if (!drawn.notice.empty()) links.notice = drawn.notice;
  return links;
}

std::string console_lines(std::span<const ConfigMetrics> metrics, const Ranking& r) {
  const ConfigMetrics& best = metrics[r.order.front()];
  std::string lines = "best by TOPSIS: " + best.id + " (" +
                      detail::counted(static_cast<std::size_t>(best.ranks), "device") + ", score " +
                      detail::fixed(r.scores[r.order.front()], 3) + ")\n";
  const std::string cluster = top_cluster_line(r);
  if (!cluster.empty()) lines += cluster + "\n";
  return lines + "Pareto front (time to train vs device-minutes): " +
         detail::counted(r.pareto.size(), "configuration") + "\n";
}

}  // namespace

RankedAnalysis ranked_analysis(const results::ResultSet& results,
                               std::span<const ConfigMetrics> metrics,
                               std::span<const SeriesFits> fits,
                               const RankedAnalysisOptions& options) {
  RankedAnalysis out;
  if (ok_of(metrics).empty()) {
    out.console = "ranking: no configuration finished ok\n";
    return out;
  }
  const std::string left_out = cost_left_out(metrics, options.metrics);
  const Ranking ranking = rank_configurations(metrics, criteria_for(options, left_out));
  const TttSection ttt = checked_ttt_section(results);  // every check before anything is drawn
  const Drivers drivers = explain_metrics(results, metrics);
  RankingContext context{.metrics = metrics,
                         .train_samples = options.metrics.train_samples,
                         .currency = options.metrics.prices ? options.metrics.prices->currency : "",
                         .cost_left_out = options.metrics.prices ? left_out : "",
                         .plots = {}};
  out.console = console_lines(metrics, ranking);
  if (options.metrics.prices && !left_out.empty())
    out.console += "cost not ranked: " + left_out + "\n";
  if (!ttt.check_line.empty()) out.console += ttt.check_line + "\n";
  if (options.plot_dir) context.plots = draw(report_plots(metrics, fits, ranking), options, out);
  out.markdown = ranking_sections(context, ranking, drivers) + ttt.markdown;
  return out;
}

}  // namespace scaletune::autotune
