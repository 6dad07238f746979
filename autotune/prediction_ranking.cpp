#include "autotune/prediction_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "autotune/detail/format.hpp"
#include "autotune/detail/text_table.hpp"

namespace scaletune::autotune {
namespace {

using detail::fixed;
using detail::grouped;

/// A geomean model error above which the section warns (the issue's accuracy target).
constexpr double kTrustedError = 0.10;

std::string milliseconds(double s) {
  return fixed(1e3 * s, 3);
}

std::string signed_percent(double fraction) {
  return (fraction >= 0 ? "+" : "") + fixed(100.0 * fraction, 1) + "%";
}

detail::TextTable error_table(std::span<const ModelError> errors) {
  detail::TextTable t{
      {"config", "ranks", "predicted", "measured", "error"}, {"", "", "ms", "ms", ""}, {}};
  for (const ModelError& e : errors)
    t.rows.push_back({e.id, std::to_string(e.ranks), milliseconds(e.predicted_s),
                      milliseconds(e.measured_s), signed_percent(e.error())});
  return t;
}

detail::TextTable joint_table(const PredictionRanking& r) {
  detail::TextTable t{{"#", "source", "config", "ranks", "throughput", "efficiency", "step time"},
                      {"", "", "", "", "samples/s", "", "ms"},
                      {}};
  for (std::size_t i = 0; i < r.order.size(); ++i) {
    const ConfigMetrics& m = *r.order[i];
    t.rows.push_back({std::to_string(i + 1), r.predicted.contains(m.id) ? "predicted" : "measured",
                      m.id, std::to_string(m.ranks), grouped(m.throughput, 1),
                      fixed(m.scaling_efficiency, 2), milliseconds(m.step_time_median_s)});
  }
  return t;
}

const std::vector<std::string>* basis_of(const PredictionRanking& r, const std::string& id) {
  for (const auto& [config, lines] : r.basis)
    if (config == id) return &lines;
  return nullptr;
}

/// "measure next" lines: each configuration, what it is predicted to give, and its basis.
std::vector<std::string> next_lines(const PredictionRanking& r) {
  std::vector<std::string> lines;
  for (const ConfigMetrics* m : measure_next(r)) {
    lines.push_back(m->id + ": predicted " + grouped(m->throughput, 1) + " samples/s on " +
                    std::to_string(m->ranks) + " ranks (scaling efficiency " +
                    fixed(m->scaling_efficiency, 2) + ")");
    if (const auto* basis = basis_of(r, m->id))
      for (const std::string& b : *basis) lines.push_back("  rests on: " + b);
  }
  return lines;
}

std::string error_summary(const PredictionRanking& r) {
  if (r.errors.empty())
    return "no configuration was both measured and predicted: the model's error is unknown "
           "here\n";
  const double error = geomean_abs_error(r.errors);
  return "geomean |error| over " + std::to_string(r.errors.size()) +
         " measured configurations: " + fixed(100.0 * error, 1) + "%\n" +
         (error > kTrustedError
              ? "the model misses the measured steps by more than " +
                    fixed(100.0 * kTrustedError, 0) +
                    "%: predicted throughputs and efficiencies (against measured baselines) are "
                    "no better than that; profile the job's shapes (scaletune profile --jobs) "
                    "and fit again\n"
              : "");
}

std::string lines_text(const std::vector<std::string>& lines, const std::string& indent) {
  std::string out;
  for (const std::string& line : lines) out += indent + line + "\n";
  return out;
}

}  // namespace

PredictionRanking rank_with_predictions(const results::ResultSet& results,
                                        const std::string& predictions_path,
                                        std::span<const results::PredictionRow> rows,
                                        Objective objective, const MetricsOptions& options) {
  std::map<std::string, const results::ConfigResult*> measured;
  for (const results::ConfigResult& c : results.configs) measured[c.id] = &c;
  PredictionRanking out;
  out.objective = objective;
  results::ResultSet joint = results;
  for (const results::PredictionRow& row : rows) {
    if (row.described.id.empty())
      throw std::invalid_argument(predictions_path + ": /predictions/configs/" + row.config +
                                  " is missing: the file is from an older scaletune predict; "
                                  "predict again with --out");
    const auto it = measured.find(row.config);
    if (it == measured.end()) {
      joint.configs.push_back(row.described);
      out.predicted.insert(row.config);
      out.basis.emplace_back(row.config, row.basis);
    } else if (it->second->status == results::Status::ok) {
      out.errors.push_back({row.config, row.ranks, row.step_time, it->second->step_time_median});
    } else {
      out.measured_failed.push_back(row.config + " (" + results::to_string(it->second->status) +
                                    ")");
    }
  }
  out.metrics = compute_metrics(joint, options);
  out.order = objective_order(out.metrics, objective);
  return out;
}

double geomean_abs_error(std::span<const ModelError> errors) {
  if (errors.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0;
  for (const ModelError& e : errors) log_sum += std::log(std::max(std::abs(e.error()), 1e-6));
  return std::exp(log_sum / static_cast<double>(errors.size()));
}

std::vector<const ConfigMetrics*> measure_next(const PredictionRanking& ranking,
                                               std::size_t count) {
  std::vector<const ConfigMetrics*> out;
  for (const ConfigMetrics* m : ranking.order)
    if (out.size() < count && ranking.predicted.contains(m->id)) out.push_back(m);
  return out;
}

PredictionSection prediction_section(const PredictionRanking& r) {
  const std::string objective = to_string(r.objective);
  const std::vector<std::string> next = next_lines(r);
  std::string failed;
  for (const std::string& f : r.measured_failed) failed += (failed.empty() ? "" : ", ") + f;
  if (!failed.empty())
    failed = "predicted, but measured without finishing ok (left out): " + failed + "\n";
  const std::string next_text =
      next.empty() ? "measure next: every predicted configuration was measured\n"
                   : "measure next (the predicted-best configurations nobody ran):\n" +
                         lines_text(next, "  ");
  PredictionSection s;
  s.console = "\nmodel error on the measured configurations:\n" +
              (r.errors.empty() ? "" : detail::to_plain(error_table(r.errors))) + error_summary(r) +
              failed + "\nmeasured and predicted, ranked together by " + objective + ":\n" +
              detail::to_plain(joint_table(r)) + next_text;
  s.markdown =
      "\n## With predictions\n\n### Model error on the measured configurations\n\n" +
      (r.errors.empty() ? "" : detail::to_markdown(error_table(r.errors)) + "\n") +
      error_summary(r) + failed + "\n### Measured and predicted, ranked by " + objective + "\n\n" +
      detail::to_markdown(joint_table(r)) + "\n### Measure next\n\n" +
      (next.empty() ? "Every predicted configuration was measured.\n" : lines_text(next, "- "));
  return s;
}

}  // namespace scaletune::autotune
