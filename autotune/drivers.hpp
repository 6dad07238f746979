#pragma once
// Which features of a configuration drive its metrics: permutation importance of a random
// forest (feature_importance.hpp) for per-device throughput and time to train.

#include <span>
#include <string>
#include <vector>

#include "autotune/feature_importance.hpp"
#include "autotune/metrics.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// The features of `configs` (one value each, in order). An MLPerf submission's: accelerator
/// (accelerator_model), devices (ranks), nodes, host_processor, software_stack, global_batch;
/// a configuration of ours: devices, global_batch, batch_split, precision and every setting
/// attribute (is_setting_attribute), numbers as numbers and text as categories. Features
/// constant over `configs` are left out; a feature missing from some configuration reads NaN
/// (numbers) or "" (text). Mixing MLPerf submissions and our configurations gives the features
/// of ours.
std::vector<Feature> config_features(std::span<const results::ConfigResult* const> configs);

/// Importance of the features for one metric.
struct MetricDrivers {
  std::string metric;  ///< "log10 throughput per device", "log10 time to train"
  ImportanceResult importance;
};

/// What drives the metrics of the ok configurations of `results`.
struct Drivers {
  std::vector<MetricDrivers> metrics;  ///< empty when `skipped` says why
  std::string skipped;  ///< e.g. "6 ok configurations; feature importance needs at least 10"
};

/// Permutation importance (permutation_importance with `options`) of config_features() of the
/// ok configurations for log10 of throughput per device and log10 of time to train (logs, so
/// each configuration counts by its relative error). `metrics` from compute_metrics(results).
/// Skipped, with the reason, when there are fewer than 2 x folds ok configurations, no feature
/// varies, or a feature has a missing number.
Drivers explain_metrics(const results::ResultSet& results, std::span<const ConfigMetrics> metrics,
                        const ImportanceOptions& options = {});

}  // namespace scaletune::autotune
