#pragma once
// Ranking configurations the way one ranks systems for a buyer: by efficiency as well as speed.
// Every ok configuration is scored by TOPSIS over its metrics, clustered by k-means on those
// metrics, the clusters ranked by their members' median score, and the Pareto front of time
// to train against device-minutes marked.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "autotune/clustering.hpp"
#include "autotune/metrics.hpp"

namespace scaletune::autotune {

/// One metric a ranking scores: a TOPSIS criterion (Criterion) on a ConfigMetrics field.
struct RankingCriterion {
  std::string name;       ///< "throughput", "throughput_per_device", "time_to_train",
                          ///< "device_minutes", "scaling_efficiency", "cost" (for --weights)
  std::string label;      ///< as reports show it: "time to train", "device-minutes", ...
  std::string unit;       ///< "samples/s", "min", "device-min", "", the price table's currency
  double weight = 1.0;    ///< relative weight, >= 0 (0: clustered and shown, not scored)
  bool benefit = true;    ///< larger is better
  bool log_scale = true;  ///< clustered on log10 (metrics spanning orders of magnitude)
  double ConfigMetrics::*field = nullptr;
};

/// The default criteria. Scored with equal weights: time to train (cost: how fast),
/// device-minutes (cost: how many resources a training takes), scaling efficiency (benefit, on
/// a linear scale when clustering: how well the devices are used) and, when `with_cost`, cost.
/// Throughput and throughput per device are listed with weight 0 (they are clustered and shown,
/// not scored): time to train = epochs x samples / throughput and device-minutes = epochs x
/// samples / throughput per device (the MLPerf definition of throughput), so scoring them too
/// would count speed and resource use twice. `--weights` scores them.
std::vector<RankingCriterion> default_criteria(bool with_cost);

/// Sets the weights named in `spec`, "time_to_train=2,cost=0.5" (names of `criteria`, weights
/// finite and >= 0, not all zero, each name once). Throws std::invalid_argument naming the entry
/// and the valid names for anything else.
void set_weights(std::vector<RankingCriterion>& criteria, std::string_view spec);

/// A cluster of configurations and what describes it.
struct ClusterSummary {
  int label = 0;                     ///< Clustering::labels value
  std::vector<std::size_t> members;  ///< indices into the metrics, in metrics order
  int min_devices = 0, max_devices = 0;
  std::vector<std::string> accelerators;  ///< distinct ConfigMetrics::accelerator, by count
  /// Per criterion (ranking order): (min, max) over the members.
  std::vector<std::pair<double, double>> ranges;
  /// The median of the members' TOPSIS scores (Ranking::scores; the mean of the middle two for an
  /// even count). The clusters are ranked by the same scores as the configurations, so the two
  /// rankings agree; TOPSIS on a few cluster representatives alone would depend on which
  /// clusters exist (rank reversal) and let a skewed cluster's far-off members decide.
  double score = 0;
};

/// A ranked configuration set.
struct Ranking {
  std::vector<RankingCriterion> criteria;
  std::vector<std::size_t> order;  ///< ok configurations (indices into the metrics), best first
  std::vector<double> scores;      ///< [metrics]: TOPSIS closeness; NaN for configurations not ok
  /// k-means on the criteria (log10 where RankingCriterion::log_scale, then standardised);
  /// k == 0 when there are fewer than 3 ok configurations or fewer than 2 distinct ones.
  Clustering clustering;
  std::vector<std::size_t> clustered;    ///< the rows of clustering: indices into the metrics
  std::vector<ClusterSummary> clusters;  ///< best TOPSIS score first
  /// Pareto front of time to train against device-minutes, both minimised: indices into the
  /// metrics by increasing time to train.
  std::vector<std::size_t> pareto;
};

/// Ranks the ok configurations of `metrics` under `criteria` (TOPSIS, Hwang & Yoon 1981, see
/// topsis_scores; k-means with the silhouette choice of k in 2..8, cluster_kmeans). A criterion
/// whose value is not finite for some ok configuration (cost without a price) is refused.
/// Throws std::invalid_argument when no configuration is ok or a criterion has no field.
Ranking rank_configurations(std::span<const ConfigMetrics> metrics,
                            std::vector<RankingCriterion> criteria);

}  // namespace scaletune::autotune
