#include "autotune/group_scaling.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace scaletune::autotune {
namespace {

using Fitter = FitAttempt (*)(std::span<const ScalingPoint>, Residual);

std::set<double> device_counts(std::span<const ScalingPoint> points) {
  std::set<double> counts;
  for (const ScalingPoint& pt : points) counts.insert(pt.ranks);
  return counts;
}

/// Amdahl with s = 0 and X1 the mean per-device throughput: X(p) = X1·p.
ScalingFit perfect_scaling(std::span<const ScalingPoint> points) {
  double x1 = 0.0;
  for (const ScalingPoint& pt : points) x1 += pt.throughput / pt.ranks / points.size();
  return scaling_fit(kAmdahl, {{"X1", x1}, {"s", 0.0}}, points);
}

/// Mean absolute percentage error on the points at each count when fitted on the others;
/// empty when some fold does not converge.
std::optional<double> leave_one_count_out_mape(Fitter fitter,
                                               std::span<const ScalingPoint> points) {
  double sum = 0.0;
  for (const double left_out : device_counts(points)) {
    std::vector<ScalingPoint> train;
    for (const ScalingPoint& pt : points)
      if (pt.ranks != left_out) train.push_back(pt);
    const FitAttempt attempt = fitter(train, Residual::relative);
    if (!attempt.fit) return std::nullopt;
    for (const ScalingPoint& pt : points)
      if (pt.ranks == left_out)
        sum += std::fabs(predict(*attempt.fit, pt.ranks) - pt.throughput) / pt.throughput;
  }
  return sum / static_cast<double>(points.size());
}

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * fraction);
  return text;
}

std::string loco_text(const std::optional<double>& mape) {
  return mape ? percent(*mape) : std::string("n/a (a fold did not converge)");
}

/// Amdahl, or the USL where its leave-one-count-out error is lower.
std::pair<ScalingFit, std::string> choose(const ScalingFit& amdahl,
                                          std::span<const ScalingPoint> points) {
  const FitAttempt usl = fit_usl(points, Residual::relative);
  if (!usl.fit) return {amdahl, "amdahl: usl did not converge (" + usl.reason + ")"};
  const std::optional<double> usl_loco = leave_one_count_out_mape(fit_usl, points);
  const std::optional<double> amdahl_loco = leave_one_count_out_mape(fit_amdahl, points);
  const std::string scores =
      "leave-one-count-out MAPE usl " + loco_text(usl_loco) + ", amdahl " + loco_text(amdahl_loco);
  if (usl_loco && (!amdahl_loco || *usl_loco < *amdahl_loco)) return {*usl.fit, "usl: " + scores};
  return {amdahl, "amdahl: " + scores};
}

}  // namespace

GroupFit fit_group_scaling(const std::string& accelerator, const std::string& stack,
                           std::span<const ScalingPoint> points) {
  if (points.empty())
    throw std::invalid_argument("throughput of " + accelerator + "/" + stack +
                                ": no runs to fit (expected at least one)");
  const FitAttempt amdahl = fit_amdahl(points, Residual::relative);  // also validates the points
  GroupFit group{.accelerator = accelerator,
                 .stack = stack,
                 .throughput = {},
                 .points = static_cast<int>(points.size()),
                 .distinct_devices = static_cast<int>(device_counts(points).size()),
                 .selection = {}};
  if (group.distinct_devices == 1) {
    group.throughput = perfect_scaling(points);
    group.selection = "1 device count: perfect scaling (amdahl, s = 0)";
  } else if (!amdahl.fit) {
    group.throughput = perfect_scaling(points);
    group.selection = "perfect scaling: amdahl did not converge (" + amdahl.reason + ")";
  } else if (group.distinct_devices < kUslMinDeviceCounts) {
    group.throughput = *amdahl.fit;
    group.selection = "amdahl: " + std::to_string(group.distinct_devices) +
                      " device counts (usl needs >= " + std::to_string(kUslMinDeviceCounts) + ")";
  } else {
    std::tie(group.throughput, group.selection) = choose(*amdahl.fit, points);
  }
  return group;
}

}  // namespace scaletune::autotune
