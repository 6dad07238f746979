#include "autotune/collective_curve.hpp"

#include <dlib/optimization.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "harness/results/bus_bandwidth.hpp"

namespace scaletune::autotune {
namespace {

/// The fitted parameters: ln floor_us, ln peak_gbps, ln slope, mid_log2 (logarithms keep the
/// first three positive).
using Parameters = dlib::matrix<double, 4, 1>;
/// One sample: log2 of the size, ln of the measured time.
using Sample = std::pair<double, double>;

CollectiveCurve curve_of(const Parameters& p, const std::string& op, int ranks, double factor) {
  return {.op = op,
          .ranks = ranks,
          .bus_factor = factor,
          .floor_us = std::exp(p(0)),
          .peak_gbps = std::exp(p(1)),
          .slope = std::exp(p(2)),
          .mid_log2 = p(3),
          .fit_rms_log = 0.0,
          .log2_sizes = {},
          .residuals = {}};
}

std::string what(const CollectiveRow& row) {
  return row.op + " on " + std::to_string(row.ranks) + " ranks" +
         (nodes_of(row) > 1 ? " of " + std::to_string(row.nodes) + " nodes" : "");
}

void check_rows(std::span<const CollectiveRow> rows) {
  if (rows.empty()) throw std::invalid_argument("fit_collective_curve: no rows");
  std::set<std::int64_t> sizes;
  for (const CollectiveRow& row : rows) {
    if (row.op != rows.front().op || row.ranks != rows.front().ranks ||
        nodes_of(row) != nodes_of(rows.front()))
      throw std::invalid_argument("fit_collective_curve: rows of " + what(rows.front()) +
                                  " and of " + what(row) +
                                  "; fit one op at one rank count on one node count");
    if (row.bytes < 1 || !(row.time_us > 0.0))
      throw std::invalid_argument("fit_collective_curve: " + what(row) + ": a row of " +
                                  std::to_string(row.bytes) + " bytes in " +
                                  std::to_string(row.time_us) +
                                  " us; expected sizes >= 1 byte and times > 0");
    sizes.insert(row.bytes);
  }
  if (sizes.size() < 4)
    throw std::invalid_argument("fit_collective_curve: " + what(rows.front()) + " has " +
                                std::to_string(sizes.size()) +
                                " distinct sizes; the curve needs at least 4");
}

/// A start the iteration converges from: the smallest time as floor, the largest bus bandwidth
/// as peak, the size where the bandwidth first reaches half of it as midpoint.
Parameters initial(std::span<const CollectiveRow> rows, double factor) {
  double floor = rows.front().time_us, peak = 0.0;
  for (const CollectiveRow& row : rows) {
    floor = std::min(floor, row.time_us);
    peak = std::max(peak, row.bytes * factor / row.time_us / 1e3);
  }
  double mid = std::log2(static_cast<double>(rows.back().bytes));
  for (const CollectiveRow& row : rows)
    if (row.bytes * factor / row.time_us / 1e3 >= peak / 2)
      mid = std::min(mid, std::log2(static_cast<double>(row.bytes)));
  Parameters p;
  p = std::log(floor), std::log(peak), std::log(1.0), mid;
  return p;
}

double predicted_log_time(double log2_bytes, const Parameters& p, double factor) {
  return std::log(curve_of(p, "", 0, factor).smooth_time_us(std::exp2(log2_bytes)));
}

}  // namespace

double CollectiveCurve::smooth_time_us(double bytes) const {
  const double busbw = peak_gbps / (1.0 + std::exp(-slope * (std::log2(bytes) - mid_log2)));
  return floor_us + bytes * bus_factor / busbw / 1e3;
}

bool CollectiveCurve::extrapolates(double bytes) const {
  if (log2_sizes.empty()) return false;
  const double x = std::log2(bytes);
  return x < log2_sizes.front() || x > log2_sizes.back();
}

double CollectiveCurve::time_us(double bytes) const {
  if (log2_sizes.empty()) return smooth_time_us(bytes);
  const double x = std::log2(bytes);
  if (x < log2_sizes.front())
    return std::min(smooth_time_us(bytes), smooth_time_us(std::exp2(log2_sizes.front()))) *
           std::exp(residuals.front());
  const auto upper = std::ranges::upper_bound(log2_sizes, x);
  double residual = 0.0;
  if (upper == log2_sizes.begin()) {
    residual = residuals.front();
  } else if (upper == log2_sizes.end()) {
    residual = residuals.back();
  } else {
    const auto i = static_cast<std::size_t>(upper - log2_sizes.begin());
    const double w = (x - log2_sizes[i - 1]) / (log2_sizes[i] - log2_sizes[i - 1]);
    residual = (1.0 - w) * residuals[i - 1] + w * residuals[i];
  }
  return smooth_time_us(bytes) * std::exp(residual);
}

CollectiveCurve fit_collective_curve(std::span<const CollectiveRow> rows) {
  check_rows(rows);
  const CollectiveRow& first = rows.front();
  const double factor =
      results::has_bus_factor(first.op) ? results::bus_factor(first.op, first.ranks) : 1.0;
  std::vector<Sample> samples;
  for (const CollectiveRow& row : rows)
    samples.emplace_back(std::log2(static_cast<double>(row.bytes)), std::log(row.time_us));
  const auto residual = [factor](const Sample& s, const Parameters& p) {
    return predicted_log_time(s.first, p, factor) - s.second;
  };
  Parameters p = initial(rows, factor);
  dlib::solve_least_squares_lm(dlib::objective_delta_stop_strategy(1e-12, 500), residual,
                               dlib::derivative(residual), samples, p);
  CollectiveCurve curve = curve_of(p, first.op, first.ranks, factor);
  curve.nodes = nodes_of(first);
  std::ranges::stable_sort(samples, {}, &Sample::first);
  double sum = 0.0;
  for (const Sample& s : samples) {
    const double r = residual(s, p);
    sum += r * r;
    if (!curve.log2_sizes.empty() && curve.log2_sizes.back() == s.first) continue;
    curve.log2_sizes.push_back(s.first);
    curve.residuals.push_back(-r);  // ln(measured / smooth)
  }
  curve.fit_rms_log = std::sqrt(sum / static_cast<double>(samples.size()));
  return curve;
}

double mean_absolute_percentage_error(const CollectiveCurve& curve,
                                      std::span<const CollectiveRow> rows) {
  if (rows.empty()) throw std::invalid_argument("mean_absolute_percentage_error: no rows");
  double sum = 0.0;
  for (const CollectiveRow& row : rows)
    sum += std::abs(curve.time_us(static_cast<double>(row.bytes)) - row.time_us) / row.time_us;
  return sum / static_cast<double>(rows.size());
}

}  // namespace scaletune::autotune
