#include "autotune/ranking_report.hpp"

#include <algorithm>

#include "autotune/detail/format.hpp"
#include "autotune/detail/markdown_text.hpp"
#include "autotune/detail/text_table.hpp"

namespace scaletune::autotune {
namespace {

using detail::fixed;
using detail::grouped;
using detail::significant;

constexpr std::size_t kListedAccelerators = 3;

std::string image(const std::string& file, const std::string& alt) {
  return file.empty() ? "" : "\n![" + alt + "](" + file + ")\n";
}

/// A metric value in the ranking tables.
std::string value_text(const RankingCriterion& c, double v) {
  if (c.name == "scaling_efficiency") return fixed(v, 3);
  if (c.name == "cost") return fixed(v, 2);
  if (c.name == "time_to_train") return significant(v, 4);
  return grouped(v, v < 1000 ? 1 : 0);
}

std::string header_of(const RankingCriterion& c, const std::string& currency) {
  const std::string unit = c.name == "cost" ? currency : c.unit;
  return unit.empty() ? c.label : c.label + " (" + unit + ")";
}

std::string criteria_text(const RankingContext& ctx, const Ranking& r) {
  double total = 0;
  for (const auto& c : r.criteria) total += c.weight;
  std::string text;
  for (const auto& c : r.criteria)
    text += "- " + header_of(c, ctx.currency) + ": " + (c.benefit ? "larger" : "smaller") +
            " is better, " +
            (c.weight > 0 ? "weight " + fixed(c.weight / total, 3) : "not scored (weight 0)") +
            "\n";
  return text;
}

std::string time_to_train_note(const RankingContext& ctx) {
  const bool measured = std::ranges::any_of(ctx.metrics, [](const auto& m) {
    return m.status == results::Status::ok && m.time_to_train_measured;
  });
  const bool estimated = std::ranges::any_of(ctx.metrics, [](const auto& m) {
    return m.status == results::Status::ok && !m.time_to_train_measured;
  });
  std::string note;
  if (measured)
    note += "Time to train of MLPerf submissions is their score (to the target accuracy). ";
  if (estimated)
    note += "Time to train of measured sweeps is the time for " + grouped(ctx.train_samples) +
            " samples at the measured throughput (`--train-samples`), not a convergence run. ";
  return note + "Device-minutes = devices x time to train.\n";
}

std::string ranking_section(const RankingContext& ctx, const Ranking& r, std::size_t top) {
  std::vector<std::string> header = {"rank", "id", "accelerator", "devices"};
  for (const auto& c : r.criteria) header.push_back(header_of(c, ctx.currency));
  header.insert(header.end(), {"TOPSIS", "Pareto"});
  detail::TextTable t{header, std::vector<std::string>(header.size()), {}};
  for (std::size_t k = 0; k < std::min(top, r.order.size()); ++k) {
    const ConfigMetrics& m = ctx.metrics[r.order[k]];
    std::vector<std::string> row = {std::to_string(k + 1), m.id, m.accelerator,
                                    std::to_string(m.ranks)};
    for (const auto& c : r.criteria) row.push_back(value_text(c, m.*c.field));
    row.push_back(fixed(r.scores[r.order[k]], 3));
    row.push_back(std::ranges::find(r.pareto, r.order[k]) != r.pareto.end() ? "yes" : "");
    t.rows.push_back(std::move(row));
  }
  std::string more = r.order.size() > top
                         ? "\nThe best " + std::to_string(top) + " of " +
                               detail::counted(r.order.size(), "ok configuration") + ".\n"
                         : "";
  if (r.order.size() == 1)
    more =
        "\nOnly one ok configuration: there is nothing to rank it against (its TOPSIS score "
        "is 0.5 by definition).\n";
  return "\n## Ranking\n\nEvery ok configuration is scored by TOPSIS (Hwang & Yoon 1981): its "
         "closeness to the ideal over these criteria (weights normalised to sum 1; change them "
         "with `--weights NAME=W,...`):\n\n" +
         criteria_text(ctx, r) +
         (ctx.cost_left_out.empty() ? ""
                                    : "\nCost is not a criterion: " + ctx.cost_left_out + ".\n") +
         "\n" + time_to_train_note(ctx) + "\n" + detail::to_markdown(t) + more;
}

std::string accelerators_text(const ClusterSummary& c) {
  std::string text;
  for (std::size_t k = 0; k < std::min(kListedAccelerators, c.accelerators.size()); ++k)
    text += (k ? ", " : "") + c.accelerators[k];
  if (c.accelerators.size() > kListedAccelerators)
    text += " +" + std::to_string(c.accelerators.size() - kListedAccelerators) + " more";
  return text;
}

std::string range_text(const RankingCriterion& c, const std::pair<double, double>& range) {
  return value_text(c, range.first) + " - " + value_text(c, range.second);
}

std::string devices_text(const ClusterSummary& c) {
  return c.min_devices == c.max_devices
             ? std::to_string(c.min_devices)
             : std::to_string(c.min_devices) + "-" + std::to_string(c.max_devices);
}

std::string clusters_section(const RankingContext& ctx, const Ranking& r) {
  if (r.clusters.empty())
    return "\n## Clusters\n\nToo few distinct ok configurations to cluster (k-means needs 3).\n";
  std::string by_k;
  for (const auto& [k, s] : r.clustering.silhouette_by_k)
    by_k +=
        (by_k.empty() ? "" : ", ") + std::string("k = ") + std::to_string(k) + ": " + fixed(s, 3);
  std::vector<std::string> header = {"rank", "configurations", "devices", "accelerators"};
  for (const auto& c : r.criteria) header.push_back(header_of(c, ctx.currency));
  header.push_back("TOPSIS");
  detail::TextTable t{header, std::vector<std::string>(header.size()), {}};
  for (std::size_t k = 0; k < r.clusters.size(); ++k) {
    const ClusterSummary& c = r.clusters[k];
    std::vector<std::string> row = {std::to_string(k + 1), std::to_string(c.members.size()),
                                    devices_text(c), accelerators_text(c)};
    for (std::size_t j = 0; j < r.criteria.size(); ++j)
      row.push_back(range_text(r.criteria[j], c.ranges[j]));
    row.push_back(fixed(c.score, 3));
    t.rows.push_back(std::move(row));
  }
  return "\n## Clusters\n\nk-means (dlib) on the criteria (log10 of each except scaling "
         "efficiency, then each standardised to mean 0 and standard deviation 1). k = " +
         std::to_string(r.clustering.k) +
         " has the highest mean silhouette (Rousseeuw 1987) of those tried: " + by_k +
         ". Clusters are ranked by the median TOPSIS score of their members (the scores of the "
         "ranking above); the table gives each "
         "metric's range.\n\n" +
         detail::to_markdown(t) + "\n" + detail::markdown_text(top_cluster_line(r)) + "\n" +
         image(ctx.plots.clusters, "clusters");
}

std::string pareto_section(const RankingContext& ctx, const Ranking& r) {
  detail::TextTable t{{"id", "accelerator", "devices", "time to train", "device-minutes"},
                      {"", "", "", "min", "device-min"},
                      {}};
  for (std::size_t i : r.pareto) {
    const ConfigMetrics& m = ctx.metrics[i];
    t.rows.push_back({m.id, m.accelerator, std::to_string(m.ranks),
                      significant(m.time_to_train_min, 4), significant(m.device_minutes, 4)});
  }
  return "\n## Pareto front\n\nThe configurations no other one beats on both time to train and "
         "device-minutes (fastest first): each is the cheapest way to train that fast.\n\n" +
         detail::to_markdown(t) + image(ctx.plots.pareto, "Pareto front");
}

std::string importance_table(const MetricDrivers& d) {
  detail::TextTable t{{"feature", "importance", "spread"}, {"", "", ""}, {}};
  for (const auto& f : d.importance.features)
    t.rows.push_back({f.feature, fixed(f.score, 3), "± " + fixed(f.spread, 3)});
  return "\n### " + d.metric +
         "\n\nCross-validated R² of the forest: " + fixed(d.importance.r2_cv, 3) + " (" +
         std::to_string(d.importance.samples) + " configurations).\n\n" + detail::to_markdown(t);
}

std::string drivers_section(const Drivers& drivers) {
  std::string text =
      "\n## What drives the metrics\n\nPermutation importance (Breiman 2001) of a random forest "
      "regressor (dlib) under cross-validation: the increase of the held-out mean squared error "
      "when one feature's values are shuffled, as a fraction of the metric's variance (0: the "
      "forest does not use it); spread: its standard deviation over folds and repeats. "
      "Categorical features (accelerator, host processor, stack) are one-hot encoded and "
      "shuffled as a whole.\n";
  if (!drivers.skipped.empty()) return text + "\nNot computed: " + drivers.skipped + ".\n";
  for (const auto& d : drivers.metrics) text += importance_table(d);
  return text;
}

std::string scaling_plots_section(const PlotLinks& plots) {
  if (!plots.notice.empty()) return "\n## Plots\n\nNo plots: " + plots.notice + "\n";
  if (plots.throughput.empty() && plots.efficiency.empty()) return "";
  return "\n## Scaling plots\n\nMeasured configurations (points) and the fitted scaling law "
         "of lowest RMSE (lines) of the series with the most configurations.\n" +
         image(plots.throughput, "throughput against devices") +
         image(plots.efficiency, "scaling efficiency against devices");
}

}  // namespace

std::string top_cluster_line(const Ranking& ranking) {
  if (ranking.clusters.empty()) return "";
  const ClusterSummary& c = ranking.clusters.front();
  return "Top cluster: " + detail::counted(c.members.size(), "configuration") + " on " +
         devices_text(c) + (c.max_devices == 1 ? " device (" : " devices (") +
         accelerators_text(c) + "), TOPSIS " + fixed(c.score, 3) + ".";
}

std::string ranking_sections(const RankingContext& context, const Ranking& ranking,
                             const Drivers& drivers, std::size_t top) {
  return scaling_plots_section(context.plots) + ranking_section(context, ranking, top) +
         clusters_section(context, ranking) + pareto_section(context, ranking) +
         drivers_section(drivers);
}

}  // namespace scaletune::autotune
