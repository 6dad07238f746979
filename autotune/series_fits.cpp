#include "autotune/series_fits.hpp"

#include <algorithm>

namespace scaletune::autotune {

namespace {

/// The ok configurations' (ranks, throughput) of each series, series in first-seen order; one
/// point per configuration, so several splits give several points at one rank count.
std::vector<std::pair<std::string, std::vector<ScalingPoint>>> points_by_series(
    std::span<const ConfigMetrics> metrics) {
  std::vector<std::pair<std::string, std::vector<ScalingPoint>>> groups;
  for (const ConfigMetrics& m : metrics) {
    if (m.status != results::Status::ok) continue;
    auto it = std::ranges::find(groups, m.series, &decltype(groups)::value_type::first);
    if (it == groups.end()) it = groups.insert(groups.end(), {m.series, {}});
    it->second.push_back({static_cast<double>(m.ranks), m.throughput});
  }
  return groups;
}

}  // namespace

std::vector<SeriesFits> fit_series(std::span<const ConfigMetrics> metrics) {
  std::vector<SeriesFits> all;
  for (const auto& [series, points] : points_by_series(metrics)) {
    const double p_max = std::ranges::max(points, {}, &ScalingPoint::ranks).ranks;
    all.push_back({series,
                   static_cast<int>(p_max),
                   {fit_amdahl(points, Residual::relative), fit_usl(points, Residual::relative)}});
  }
  return all;
}

}  // namespace scaletune::autotune
