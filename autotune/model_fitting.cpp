#include "autotune/model_fitting.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "autotune/collective_curve.hpp"
#include "autotune/detail/format.hpp"
#include "autotune/op_model.hpp"
#include "autotune/performance_model.hpp"
#include "autotune/rank_count_model.hpp"
#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {
namespace {

OpPoint point_of(const results::OpTiming& row) {
  OpPoint p;
  p.op.op = row.op;
  p.op.dtype = row.dtype;
  p.op.shape = trace::parse_shape_text(row.shape);
  p.op.flops = row.flops;
  p.op.bytes = row.bytes;
  if (row.op.starts_with("embedding_bag"))
    p.op.reuse_histogram.assign(row.reuse.begin(), row.reuse.end());
  p.time_s = row.time_s;
  return p;
}

void fit_ops(const std::vector<results::ResultSet>& inputs, FitResult& out) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<OpPoint>> groups;
  std::map<Key, int> unusable;  // rows of a time that is not finite and > 0
  for (const results::ResultSet& set : inputs)
    for (const results::OpTiming& row : set.ops) {
      const Key key{row.op, row.dtype, device_kind_of(row.device)};
      if (std::isfinite(row.time_s) && row.time_s > 0.0)
        groups[key].push_back(point_of(row));
      else
        ++unusable[key];
    }
  for (const auto& [key, count] : unusable) groups[key];  // reported even with no usable row
  for (const auto& [key, points] : groups) {
    const auto& [op, dtype, kind] = key;
    FitLine line{op + " " + dtype + " " + kind, static_cast<int>(points.size()), "", {}, ""};
    try {
      const OpModel model = fit_op_model(points, kind);
      line.model = op_model_form_name(model.form);
      line.error = model.cv_mape;
      line.note = std::string("next best ") + op_model_form_name(*model.runner_up) + " " +
                  detail::percent(model.other_cv_mape) + "%";
      if (const std::optional<double> spread = copy_spread(points))
        line.note += "; copies ±" + detail::percent(*spread) + "%";
      out.models.ops.push_back(record_of(model));
    } catch (const std::invalid_argument& e) {
      line.note = e.what();
    }
    if (const auto it = unusable.find(key); it != unusable.end())
      line.note += (line.note.empty() ? "" : "; ") +
                   detail::counted(static_cast<std::size_t>(it->second), "row") +
                   " of a time not finite and > 0 left out";
    out.report.push_back(line);
  }
}

bool usable(const results::CollectiveResult& r) {
  return !r.in_place && r.wrong <= 0 && r.bytes >= 1 && r.time_us > 0.0 && r.ranks >= 1;
}

/// Rows of distinct sizes (the first of each), by size.
std::vector<CollectiveRow> by_size(std::vector<CollectiveRow> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const CollectiveRow& a, const CollectiveRow& b) {
    return a.bytes < b.bytes;
  });
  rows.erase(std::unique(
                 rows.begin(), rows.end(),
                 [](const CollectiveRow& a, const CollectiveRow& b) { return a.bytes == b.bytes; }),
             rows.end());
  return rows;
}

std::string sources_of(const std::vector<CollectiveRow>& rows) {
  std::set<std::string> files;
  for (const CollectiveRow& r : rows) files.insert(r.source.substr(0, r.source.rfind(':')));
  std::string out;
  for (const std::string& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

results::CollectiveModelRecord curve_record(const CollectiveCurve& c,
                                            const std::vector<CollectiveRow>& rows, double error) {
  results::CollectiveModelRecord r;
  r.op = c.op;
  r.form = "curve";
  r.ranks = c.ranks;
  r.nodes = c.nodes;
  r.parameters = {c.bus_factor, c.floor_us, c.peak_gbps, c.slope, c.mid_log2, c.fit_rms_log};
  r.log2_sizes = c.log2_sizes;
  r.residuals = c.residuals;
  r.points = static_cast<int>(rows.size());
  r.held_out_mape = error;
  r.min_bytes = static_cast<double>(rows.front().bytes);
  r.max_bytes = static_cast<double>(rows.back().bytes);
  r.min_ranks = r.max_ranks = c.ranks;
  r.sources = sources_of(rows);
  return r;
}

/// A curve's group of rows: op, rank count, nodes (unknown, 0, counted as 1).
using CurveKey = std::tuple<std::string, int, int>;

/// Whether `row` is scaletune's own measurement (else an imported log's).
bool own_row(const CollectiveRow& row) {
  return row.source.starts_with("scaletune");
}

/// Fits the curve of `key` on `all`; where both scaletune's own rows and imported logs' rows
/// are there, on the own ones only (the devices profiled), the note saying so.
void fit_curve(const CurveKey& key, std::vector<CollectiveRow> all, FitResult& out) {
  const auto& [op, ranks, nodes] = key;
  const auto imported = std::ranges::stable_partition(all, own_row);  // own rows first
  const std::size_t left_out = imported.size() < all.size() ? imported.size() : 0;
  if (left_out > 0) all.erase(imported.begin(), imported.end());
  const std::vector<CollectiveRow> rows = by_size(all);
  FitLine line{op + " on " + std::to_string(ranks) + " ranks" +
                   (nodes > 1 ? " of " + std::to_string(nodes) + " nodes" : ""),
               static_cast<int>(rows.size()),
               "",
               {},
               ""};
  try {
    std::vector<CollectiveRow> even, odd;
    for (std::size_t i = 0; i < rows.size(); ++i) (i % 2 == 0 ? even : odd).push_back(rows[i]);
    const double error =
        rows.size() >= 8 ? mean_absolute_percentage_error(fit_collective_curve(even), odd) : 0.0;
    if (rows.size() < 8) line.note = "fewer than 8 sizes: no held-out error";
    if (left_out > 0)
      line.note += std::string(line.note.empty() ? "" : "; ") + "the imported logs' " +
                   detail::counted(left_out, "row") +
                   " left out (own measurements and imported logs are not mixed)";
    const CollectiveCurve curve = fit_collective_curve(rows);
    out.models.collectives.push_back(curve_record(curve, rows, error));
    line.model = "curve";
    if (rows.size() >= 8) line.error = error;
  } catch (const std::invalid_argument& e) {
    line.note = e.what();
  }
  out.report.push_back(line);
}

/// Leave-one-rank-count-out MAPE of the model across rank counts (0 with fewer than 3 counts).
double rank_count_error(const std::vector<CollectiveRow>& rows, const std::set<int>& counts) {
  if (counts.size() < 3) return 0.0;
  double error = 0.0;
  std::size_t n = 0;
  for (int left : counts) {
    std::vector<CollectiveRow> fit, held;
    for (const CollectiveRow& r : rows) (r.ranks == left ? held : fit).push_back(r);
    const RankCountModel m = fit_rank_count_model(fit);
    for (const CollectiveRow& r : held) {
      error += std::abs(m.time_us(r.ranks, static_cast<double>(r.bytes), r.nodes) - r.time_us) /
               r.time_us;
      ++n;
    }
  }
  return error / static_cast<double>(n);
}

/// How many of `rows` the model gives no positive time.
std::size_t rows_without_time(const RankCountModel& m, const std::vector<CollectiveRow>& rows) {
  return static_cast<std::size_t>(std::ranges::count_if(rows, [&](const CollectiveRow& r) {
    return !(m.time_us(r.ranks, static_cast<double>(r.bytes), r.nodes) > 0.0);
  }));
}

/// Rows on 2 or more ranks of one family of sources, and their rank counts.
struct Family {
  std::vector<CollectiveRow> rows;
  std::set<int> counts;
};

/// scaletune's own measurements (source "scaletune:...", on the devices it ran on) and
/// imported logs (other clusters' devices) are never fitted together: the family with more
/// rank counts is kept (ties: the imported logs), and `left_out` says what was not used.
Family one_family(const std::vector<CollectiveRow>& rows, std::string& left_out) {
  Family own, imported;
  for (const CollectiveRow& r : rows) {
    if (r.ranks < 2) continue;
    Family& f = own_row(r) ? own : imported;
    f.rows.push_back(r);
    f.counts.insert(r.ranks);
  }
  const bool keep_own = own.counts.size() > imported.counts.size();
  const Family& dropped = keep_own ? imported : own;
  if (!dropped.rows.empty())
    left_out = std::string(keep_own ? "the imported logs'" : "scaletune's own") + " rows on " +
               std::to_string(dropped.counts.size()) +
               (dropped.counts.size() == 1 ? " rank count" : " rank counts") +
               " left out (own measurements and imported logs are not mixed)";
  return keep_own ? own : imported;
}

void fit_rank_counts(const std::string& op, const std::vector<CollectiveRow>& rows,
                     FitResult& out) {
  std::string left_out;
  const Family family = one_family(rows, left_out);
  const std::set<int>& counts = family.counts;
  const std::vector<CollectiveRow>& multi = family.rows;
  if (counts.size() < 2 || !results::has_bus_factor(op)) return;
  FitLine line{op + " across ranks", static_cast<int>(multi.size()), "", {}, left_out};
  try {
    const RankCountModel m = fit_rank_count_model(multi);
    results::CollectiveModelRecord r;
    r.op = op;
    r.form = "rank_count";
    r.parameters = {m.alpha0,
                    m.alpha1,
                    m.beta0,
                    m.beta1,
                    m.alpha_inter,
                    m.beta_inter,
                    static_cast<double>(m.ranks_per_node),
                    static_cast<double>(m.max_nodes)};
    r.points = static_cast<int>(multi.size());
    r.held_out_mape = rank_count_error(multi, counts);
    r.min_ranks = m.min_ranks;
    r.max_ranks = m.max_ranks;
    r.sources = sources_of(multi);
    out.models.collectives.push_back(r);
    line.model = "rank_count";
    if (counts.size() >= 3) line.error = r.held_out_mape;
    std::vector<std::string> notes;
    if (m.spans_nodes())
      notes.push_back("intra- and inter-node terms (" + std::to_string(m.ranks_per_node) +
                      " ranks per node, up to " + std::to_string(m.max_nodes) + " nodes)");
    if (counts.size() < 3) notes.push_back("2 rank counts: no held-out error");
    if (const std::size_t timeless = rows_without_time(m, multi); timeless > 0)
      notes.push_back("gives no positive time for " + detail::counted(timeless, "row") + " of " +
                      std::to_string(multi.size()) +
                      " it was fitted on (logs of different clusters? fit each cluster's logs "
                      "apart); predictions that need such a time are refused");
    if (!left_out.empty()) notes.push_back(left_out);
    line.note.clear();
    for (const std::string& n : notes) line.note += (line.note.empty() ? "" : "; ") + n;
  } catch (const std::invalid_argument& e) {
    line.note = e.what();
  }
  out.report.push_back(line);
}

void fit_collectives(const std::vector<results::ResultSet>& inputs, FitResult& out) {
  std::map<std::string, std::vector<CollectiveRow>> by_op;
  std::map<CurveKey, std::vector<CollectiveRow>> by_layout;
  for (const results::ResultSet& set : inputs)
    for (const results::CollectiveResult& r : set.collectives)
      if (usable(r)) {
        by_op[r.op].push_back(r);
        by_layout[{r.op, r.ranks, nodes_of(r)}].push_back(r);
      }
  for (auto& [key, rows] : by_layout)
    if (std::get<1>(key) >= 2) fit_curve(key, std::move(rows), out);
  for (const auto& [op, rows] : by_op) fit_rank_counts(op, rows, out);
}

}  // namespace

std::string device_kind_of(const std::string& device) {
  return device.starts_with("cuda") ? "cuda" : "host";
}

FitResult fit_models(const std::vector<results::ResultSet>& inputs) {
  FitResult out;
  std::size_t rows = 0;
  for (const results::ResultSet& set : inputs) {
    out.models.inputs.push_back(set.path);
    rows += set.ops.size() + set.collectives.size();
  }
  if (rows == 0)
    throw std::invalid_argument(
        "the inputs hold no /ops and no /collectives rows: fit reads profiles (scaletune "
        "profile), collective benchmark runs and imported logs (scaletune import)");
  fit_ops(inputs, out);
  fit_collectives(inputs, out);
  if (out.models.ops.empty() && out.models.collectives.empty())
    throw std::invalid_argument(
        "no model could be fitted: no op kind has 4 timed shapes and no collective 4 usable "
        "sizes on one rank count >= 2 (rows of unknown rank count, 0, are not used: import them "
        "with --ranks N)");
  return out;
}

}  // namespace scaletune::autotune
