#pragma once
// Per-configuration metrics (DESIGN.md "Words").

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/phase_shares.hpp"
#include "autotune/prices.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// Scaling efficiency E(p) = X(p)·p0 / (p·X(p0)), where X is throughput (samples/s) at p ranks
/// and p0 the baseline rank count. 1 is linear scaling. Throws std::invalid_argument when a rank
/// count or the baseline throughput is not positive.
double scaling_efficiency(double throughput_p, int ranks_p, double throughput_p0, int ranks_p0);

/// Metrics of one configuration. Numbers are NaN where they do not exist: every number of a
/// configuration whose status is not ok, and the phase shares of one without phase data.
struct ConfigMetrics {
  std::string id;
  /// The configuration's series. An imported MLPerf submission's: its accelerator model and
  /// software stack ("mlperf:resnet50, A100-SXM-80GB, mxnet"), since submissions choose their
  /// own global batch. One of our sweeps': one workload at one global batch, every setting but the
  /// rank count and the batch split (workload, global batch, precision, the other number and text
  /// attributes), e.g. "resnet50, global batch 256, fp32, width=1". The split only says how
  /// the same global batch is divided among the ranks, so an even and a weighted split of one
  /// global batch belong to one series.
  std::string series;
  int ranks = 0;
  int global_batch = 0;        ///< samples per step
  std::string batch_split;     ///< as stored: "even", "proportional", a weight list, ...
  std::string per_rank_batch;  ///< "64" when even, "96+64+32" when uneven, samples
  results::Status status = results::Status::ok;
  std::string error;               ///< empty when ok
  double throughput = 0;           ///< samples/s (global batch / median step time)
  double throughput_per_rank = 0;  ///< samples/s per rank
  double step_time_median_s = 0;
  double step_time_p95_s = 0;
  /// E(p) against the series baseline p0, whatever either one's batch split; 1 for the
  /// baseline itself.
  double scaling_efficiency = 0;
  std::string baseline_id;  ///< the series baseline; empty when not ok
  PhaseShares shares;       ///< see phase_shares()
  /// accelerator_label() of the configuration's devices: "H100-SXM-80GB", "host-core".
  std::string accelerator;
  /// Minutes to train: an MLPerf submission's score (time_to_train_minutes, measured to the
  /// target accuracy); for a sweep of ours, which times steps and not convergence,
  /// MetricsOptions::train_samples / throughput / 60.
  double time_to_train_min = 0;
  bool time_to_train_measured = false;  ///< true for an MLPerf score, false for the estimate
  double device_minutes = 0;            ///< ranks x time_to_train_min, device-minutes
  /// device_minutes / 60 x the price per device-hour of each device (MetricsOptions::prices),
  /// in the price table's currency; NaN without prices or without a price for some device.
  double cost = 0;
};

/// True when the configuration attribute `key` is a setting that separates series; false for
/// those that follow from the rank count and the split (a plan's placement, its memory
/// estimate, accumulation rounds, an automatic ZeRO stage).
bool is_setting_attribute(std::string_view key);

/// Samples a time to train stands for in a sweep of ours: one epoch of ImageNet-1k's training
/// set (1,281,167 images, Russakovsky et al. 2015), as MLPerf ResNet-50 counts its epochs.
inline constexpr double kDefaultTrainSamples = 1281167;

/// What compute_metrics() needs beyond the result file.
struct MetricsOptions {
  double train_samples = kDefaultTrainSamples;  ///< > 0; see ConfigMetrics::time_to_train_min
  std::optional<PriceTable> prices;             ///< for ConfigMetrics::cost
};

/// Workload of the collective benchmark's configurations (one per rank count): they time
/// collectives, not training steps, and their measurements are the /collectives rows.
inline constexpr std::string_view kCollectivesWorkload = "collectives";

/// True for a configuration of a training workload (resnet50, dlrm, transformer, ...), false
/// for one of the collective benchmark (kCollectivesWorkload).
bool is_training_config(const results::ConfigResult& config);

/// Metrics of every training configuration of `results` (is_training_config), in file order;
/// the collective benchmark's configurations are left out: they have no training throughput
/// to rank or fit. The baseline of a series is its ok configuration with the fewest ranks,
/// whatever its batch split; of several with that rank count (other splits, or a sweep of one
/// rank count) the one of highest throughput (the first in file order on a tie), so no
/// configuration exceeds efficiency 1 at the baseline's rank count.
/// Throws std::invalid_argument naming the file and configuration when an ok configuration has
/// ranks < 1, a throughput that is not positive, or inconsistent phase data (phase_shares()), or
/// an MLPerf submission has no positive time_to_train_minutes; and when options.train_samples is
/// not positive.
std::vector<ConfigMetrics> compute_metrics(const results::ResultSet& results,
                                           const MetricsOptions& options = {});

}  // namespace scaletune::autotune
