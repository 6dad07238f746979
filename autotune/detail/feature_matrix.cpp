#include "autotune/detail/feature_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace scaletune::autotune::detail {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("permutation_importance: " + what);
}

std::string at(const Feature& feature, std::size_t i) {
  return "feature '" + feature.name + "' value " + std::to_string(i) + " (" +
         std::to_string(feature.values[i]) + ")";
}

void check_feature(const Feature& feature, std::size_t samples) {
  if (feature.values.size() != samples)
    fail("feature '" + feature.name + "' has " + std::to_string(feature.values.size()) +
         " values, expected " + std::to_string(samples) + " (one per target value)");
  for (std::size_t i = 0; i < samples; ++i) {
    const double v = feature.values[i];
    if (!std::isfinite(v)) fail(at(feature, i) + " is not finite, expected a finite number");
    if (feature.categorical && (v < 0.0 || v != std::floor(v)))
      fail(at(feature, i) + " is not a category code, expected a whole number >= 0");
  }
}

std::size_t width_of(const Feature& feature) {
  if (!feature.categorical || feature.values.empty()) return 1;
  return static_cast<std::size_t>(*std::max_element(feature.values.begin(), feature.values.end())) +
         1;
}

void encode_into(const Feature& feature, const ColumnBlock& block,
                 std::vector<std::vector<double>>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double v = feature.values[i];
    if (feature.categorical)
      rows[i][block.first + static_cast<std::size_t>(v)] = 1.0;
    else
      rows[i][block.first] = v;
  }
}

}  // namespace

FeatureMatrix encode_features(std::span<const Feature> features, std::size_t samples) {
  if (features.empty()) fail("no features, expected at least one");
  FeatureMatrix m;
  std::size_t columns = 0;
  for (const Feature& f : features) {
    check_feature(f, samples);
    m.blocks.push_back({columns, width_of(f)});
    columns += m.blocks.back().width;
  }
  m.rows.assign(samples, std::vector<double>(columns, 0.0));
  for (std::size_t j = 0; j < features.size(); ++j) encode_into(features[j], m.blocks[j], m.rows);
  return m;
}

}  // namespace scaletune::autotune::detail
