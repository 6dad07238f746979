#pragma once
// Per-configuration metrics (DESIGN.md "Words").

#include <string>
#include <string_view>
#include <vector>

#include "autotune/phase_shares.hpp"
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
  /// The configuration's series: one workload at one global batch, every setting but the rank
  /// count and the batch split (workload, global batch, precision, the other number and text
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
/// ranks < 1, a throughput that is not positive, or inconsistent phase data (phase_shares()).
std::vector<ConfigMetrics> compute_metrics(const results::ResultSet& results);

}  // namespace scaletune::autotune
