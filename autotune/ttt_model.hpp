#pragma once
// Time-to-train model for MLPerf Training results: time-to-train = epochs(global batch) x time
// per epoch(devices), so that the statistical cost of a large batch (epochs_model.hpp) is kept
// apart from how the hardware scales (group_scaling.hpp).

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/epochs_model.hpp"
#include "autotune/group_scaling.hpp"
#include "autotune/metrics.hpp"
#include "autotune/training_run.hpp"

namespace scaletune::autotune {

/// The fitted model: one epochs law for all runs, one throughput law per (accelerator, stack)
/// and one per accelerator over all its stacks.
struct TttModel {
  double samples_per_epoch = kDefaultTrainSamples;  ///< samples, > 0
  EpochsFit epochs;
  std::vector<GroupFit> groups;        ///< per accelerator and stack, sorted by both
  std::vector<GroupFit> accelerators;  ///< per accelerator, all stacks (stack empty), sorted
};

/// Fits fit_epochs() on all `runs` and fit_group_scaling() on the (devices, throughput) of each
/// accelerator and stack and of each accelerator. `samples_per_epoch` defaults to ImageNet-1k's
/// 1,281,167 training images (the MLPerf ResNet-50 epoch). Throws std::invalid_argument as
/// fit_epochs() and fit_group_scaling() do, and when samples_per_epoch is not positive.
TttModel fit_ttt_model(std::span<const TrainingRun> runs,
                       double samples_per_epoch = kDefaultTrainSamples);

/// A predicted time to train.
struct TttPrediction {
  double time_to_train_min = 0;  ///< epochs x samples_per_epoch / throughput / 60, minutes
  double epochs = 0;             ///< predict_epochs() at the global batch
  double throughput = 0;         ///< the basis's X(devices), samples/s
  /// The throughput law used and why (GroupFit::selection): "H100-SXM-80GB/mxnet (runs 17,
  /// device counts 8): amdahl: leave-one-count-out MAPE usl 30.9%, amdahl 24.2%"; for a stack
  /// not seen with that accelerator "H100-PCIE-80GB (all stacks) (runs 5, device counts 3): ...";
  /// "L4/mxnet (runs 1, device counts 1): 1 device count: perfect scaling (amdahl, s = 0)".
  std::string basis;
};

/// The time to train of `accelerator` (canonical) with `stack` on `devices` accelerators at
/// `global_batch` samples: epochs(B) x samples_per_epoch / X(p) / 60. X comes from the
/// (accelerator, stack) group, else from the accelerator over all stacks; empty when the
/// accelerator was never seen. Throws std::invalid_argument when devices < 1 or global_batch is
/// not positive.
std::optional<TttPrediction> predict_ttt(const TttModel& model, std::string_view accelerator,
                                         std::string_view stack, double devices,
                                         double global_batch);

/// One predicted run of a holdout set.
struct HoldoutRow {
  std::string id;
  double measured_min = 0;   ///< the run's MLPerf score, minutes
  double predicted_min = 0;  ///< predict_ttt(), minutes
  double ape = 0;            ///< |predicted − measured| / measured, fraction
  std::string basis;         ///< TttPrediction::basis
};

/// Prediction errors of a model on runs it was not fitted on.
struct HoldoutResult {
  std::vector<HoldoutRow> rows;  ///< the predictable test runs, in order
  int unpredictable = 0;         ///< test runs whose accelerator is not in the training runs
  double median_ape = 0;  ///< median of rows' ape (mean of the middle two when even); NaN if none
  double worst_ape = 0;   ///< largest ape; NaN when no row was predictable
};

/// Fits fit_ttt_model() on `train` and predicts each run of `test` at its accelerator, stack,
/// devices and global batch against its time_to_train_min. Throws as fit_ttt_model() does.
HoldoutResult evaluate_holdout(std::span<const TrainingRun> train,
                               std::span<const TrainingRun> test,
                               double samples_per_epoch = kDefaultTrainSamples);

}  // namespace scaletune::autotune
