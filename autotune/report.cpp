#include "autotune/report.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string_view>
#include <tuple>
#include <vector>

#include <toml++/toml.h>

#include "autotune/detail/format.hpp"
#include "autotune/detail/markdown_text.hpp"
#include "autotune/detail/text_table.hpp"
#include "autotune/launches.hpp"
#include "autotune/mlperf_import.hpp"

namespace scaletune::autotune {

namespace {

using detail::counted;
using detail::fixed;
using detail::grouped;
using detail::percent;
using detail::significant;

constexpr double kMsPerS = 1e3;

std::string or_dash(const std::string& text) {
  return text.empty() ? "-" : text;
}

/// [job] name of the stored job file; the result file's name when there is none.
std::string job_name(const results::ResultSet& rs) {
  try {
    const toml::table job = toml::parse(rs.provenance.job_toml);
    if (auto name = job["job"]["name"].value<std::string>()) return *name;
  } catch (const toml::parse_error&) {
    // An unreadable job file only costs the title its job name.
  }
  return std::filesystem::path(rs.path).filename().string();
}

std::string provenance_line(const results::ResultSet& rs) {
  const results::Provenance& p = rs.provenance;
  const results::SystemInfo* sys = rs.system ? &*rs.system : nullptr;
  return detail::markdown_code(rs.path) + ": " +
         detail::markdown_text("scaletune " + or_dash(p.scaletune_version) + ", git " +
                               or_dash(p.git_sha) + ", created " + or_dash(p.created_utc) +
                               ", world size " + (sys ? std::to_string(sys->world_size) : "-") +
                               ", BLAS " + (sys ? or_dash(sys->blas) : "-") + ".");
}

using Rows = std::vector<const ConfigMetrics*>;

/// `metrics` in table order: by series (in order of first appearance), then ranks, then global
/// batch, then id.
Rows table_order(std::span<const ConfigMetrics> metrics) {
  std::vector<std::string> series;
  for (const ConfigMetrics& m : metrics)
    if (std::ranges::find(series, m.series) == series.end()) series.push_back(m.series);
  const auto key = [&series](const ConfigMetrics* m) {
    return std::tuple(std::ranges::find(series, m->series) - series.begin(), m->ranks,
                      m->global_batch, std::string_view(m->id));
  };
  Rows rows;
  for (const ConfigMetrics& m : metrics) rows.push_back(&m);
  std::ranges::sort(
      rows, [&key](const ConfigMetrics* a, const ConfigMetrics* b) { return key(a) < key(b); });
  return rows;
}

detail::TextTable config_table(const Rows& rows) {
  detail::TextTable t{
      {"id", "ranks", "global batch", "batch split", "per-rank batch", "status", "throughput",
       "step median", "step p95", "efficiency", "compute", "comm", "wait", "other"},
      {"", "", "samples", "", "samples", "", "samples/s", "ms", "ms", "", "%", "%", "%", "%"},
      {}};
  for (const ConfigMetrics* row : rows) {
    const ConfigMetrics& m = *row;
    t.rows.push_back({m.id, std::to_string(m.ranks), std::to_string(m.global_batch), m.batch_split,
                      m.per_rank_batch, results::to_string(m.status), grouped(m.throughput, 1),
                      fixed(m.step_time_median_s * kMsPerS, 3),
                      fixed(m.step_time_p95_s * kMsPerS, 3), fixed(m.scaling_efficiency, 3),
                      percent(m.shares.compute), percent(m.shares.communication),
                      percent(m.shares.wait), percent(m.shares.other)});
  }
  return t;
}

/// "<id> (<n> ranks): <status>: <error>" for each configuration that is not ok, a line each; as
/// Markdown list items (markdown_text) when `markdown`.
std::string unfinished_lines(const Rows& rows, bool markdown) {
  std::string lines;
  for (const ConfigMetrics* m : rows) {
    if (m->status == results::Status::ok) continue;
    const std::string line = m->id + " (" + counted(static_cast<std::size_t>(m->ranks), "rank") +
                             "): " + results::to_string(m->status) + ": " + or_dash(m->error);
    lines += (markdown ? "- " + detail::markdown_text(line) : line) + "\n";
  }
  return lines;
}

/// "<path>: <n> configurations[, <k> collective benchmark configurations][, <m> /collectives
/// rows][, <o> /ops rows (an op profile)][, <i> incomplete configurations skipped]".
std::string contents_line(const results::ResultSet& results, std::size_t training_configs) {
  const auto benchmarks = static_cast<std::size_t>(
      std::ranges::count_if(results.configs, std::not_fn(is_training_config)));
  std::string line = results.path + ": " + counted(training_configs, "configuration");
  if (benchmarks > 0) line += ", " + counted(benchmarks, "collective benchmark configuration");
  if (!results.collectives.empty())
    line += ", " + counted(results.collectives.size(), "/collectives row");
  if (!results.ops.empty())
    line += ", " + counted(results.ops.size(), "/ops row") + " (an op profile: scaletune fit)";
  if (!results.incomplete.empty())
    line += ", " + counted(results.incomplete.size(), "incomplete configuration") + " skipped";
  return line + "\n";
}

/// "collective benchmark <id> (<n> ranks): <status>[: <error>]" for each configuration of the
/// collective benchmark, in file order.
std::string collective_benchmark_lines(const results::ResultSet& results) {
  std::string lines;
  for (const results::ConfigResult& c : results.configs)
    if (!is_training_config(c))
      lines += "collective benchmark " + c.id + " (" +
               counted(static_cast<std::size_t>(c.ranks), "rank") +
               "): " + results::to_string(c.status) + (c.error.empty() ? "" : ": " + c.error) +
               "\n";
  return lines;
}

std::string params_text(const ScalingFit& fit) {
  std::string text;
  for (const auto& [name, value] : fit.params)
    text += (text.empty() ? "" : ", ") + name + " = " +
            (name == "X1" ? grouped(value, 1) + " samples/s" : significant(value, 4));
  if (fit.model == kUsl) {
    const auto peak = usl_peak_ranks(fit);
    text += peak ? ", peak at p* = " + grouped(*peak, 1) : ", no peak (kappa = 0)";
  }
  return text;
}

std::string fits_section(std::span<const SeriesFits> fits) {
  detail::TextTable t{
      {"series", "model", "parameters", "RMSE", "MAPE", "points", "p = 2 p_max", "predicted"},
      {"", "", "", "samples/s", "%", "", "ranks", "samples/s"},
      {}};
  std::string no_fit;
  for (const SeriesFits& s : fits)
    for (const FitAttempt& a : s.attempts) {
      if (!a.fit) {
        no_fit += "- " +
                  detail::markdown_text(a.model + ", " + s.series + ": no fit (" + a.reason + ")") +
                  "\n";
        continue;
      }
      const int p = 2 * s.max_ranks;
      t.rows.push_back({s.series, a.model, params_text(*a.fit), grouped(a.fit->rmse, 1),
                        percent(a.fit->mape), std::to_string(a.fit->points), std::to_string(p),
                        grouped(predict(*a.fit, p), 1)});
    }
  return (t.rows.empty() ? std::string() : detail::to_markdown(t)) +
         (no_fit.empty() ? "" : "\n" + no_fit);
}

std::string objective_text(const Recommendation& r) {
  switch (r.objective) {
    case Objective::throughput:
      return "throughput (the highest throughput)";
    case Objective::efficiency:
      return "efficiency (the highest throughput per rank)";
    case Objective::efficiency_floor:
      break;
  }
  return "efficiency_floor (the highest throughput with scaling efficiency >= " +
         fixed(r.efficiency_floor, 2) + ")";
}

/// How imported MLPerf submissions' throughput is defined, when there are any.
std::string mlperf_throughput_note(const results::ResultSet& results) {
  return std::ranges::any_of(results.configs, is_mlperf_config)
             ? " (MLPerf submissions: epochs x 1,281,167 images / run time including "
               "evaluation; they have no step times or phases, shown as 0 and -, and their "
               "series is the accelerator model and software stack)"
             : "";
}

/// "Recommended: `<id>`. <sentence>", or "No recommendation: <sentence>." without an id.
std::string recommendation_paragraph(const Recommendation& r) {
  return r.id ? "Recommended: " + detail::markdown_code(*r.id) + ". " +
                    detail::markdown_text(r.sentence)
              : "No recommendation: " + detail::markdown_text(r.sentence) + ".";
}

}  // namespace

std::string markdown_report(const results::ResultSet& results,
                            std::span<const ConfigMetrics> metrics,
                            std::span<const SeriesFits> fits,
                            const Recommendation& recommendation) {
  const Rows rows = table_order(metrics);
  const std::string unfinished = unfinished_lines(rows, true);
  const std::string launches = launches_sentence(results);
  return "# scaletune report: " + detail::markdown_text(job_name(results)) + "\n\n" +
         provenance_line(results) +
         (launches.empty() ? "" : "\n\n" + detail::markdown_text(launches)) +
         "\n\n## Configurations\n\n" + detail::to_markdown(config_table(rows)) +
         "\nThroughput = global batch / median step time" + mlperf_throughput_note(results) +
         ". Scaling efficiency E(p) = "
         "X(p)·p0 / (p·X(p0)) against the ok configuration of the same series (workload, global "
         "batch, precision and other settings) with the fewest ranks, whatever its batch split. "
         "Compute, comm, wait: mean over iterations of the mean over ranks of the "
         "phase class's time, divided by that iteration's step time; other: the rest.\n"
         "\n## Configurations that did not finish\n\n" +
         (unfinished.empty() ? "None: every configuration finished ok.\n" : unfinished) +
         "\n## Scaling fits\n\n" +
         (fits.empty() ? "No series has an ok configuration.\n" : fits_section(fits)) +
         "\n## Recommendation\n\nObjective: " + objective_text(recommendation) + ".\n\n" +
         recommendation_paragraph(recommendation) + "\n";
}

std::string inspect_table(const results::ResultSet& results,
                          std::span<const ConfigMetrics> metrics) {
  const Rows rows = table_order(metrics);
  const std::string unfinished = unfinished_lines(rows, false);
  const std::string benchmarks = collective_benchmark_lines(results);
  const std::string launches = launches_sentence(results);
  return contents_line(results, metrics.size()) + (launches.empty() ? "" : launches + "\n") +
         (rows.empty() ? "" : "\n" + detail::to_plain(config_table(rows))) +
         (unfinished.empty() ? "" : "\n" + unfinished) +
         (benchmarks.empty() ? "" : "\n" + benchmarks);
}

std::string recommendation_text(const Recommendation& recommendation) {
  const std::string outcome = recommendation.id
                                  ? *recommendation.id + "\nwhy: " + recommendation.sentence
                                  : "none\nno recommendation: " + recommendation.sentence;
  return "objective: " + objective_text(recommendation) + "\nrecommended: " + outcome + "\n";
}

}  // namespace scaletune::autotune
