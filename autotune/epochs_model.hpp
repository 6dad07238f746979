#pragma once
// Epochs to the target accuracy as a function of the global batch: the statistical cost of
// large batches, apart from the hardware's speed.

#include <cstddef>
#include <span>

#include "autotune/training_run.hpp"

namespace scaletune::autotune {

/// The critical-batch-size model of McCandlish, Kaplan, Amodei et al., "An Empirical Model of
/// Large-Batch Training" (2018, arXiv:1812.06162, Sec. 2): the training examples needed to
/// reach a target grow with the batch B as E/E_min = 1 + B/B_noise, so with a fixed epoch size
/// epochs(B) = E_min·(1 + B/B_noise) = a + b·B, a = E_min, b = E_min/B_noise.
struct EpochsFit {
  double epochs_min = 0;   ///< E_min, epochs at a vanishing batch, > 0
  double batch_noise = 0;  ///< B_noise, samples; +infinity when epochs do not grow with B
  double rmse = 0;         ///< root mean square of predicted − measured epochs, epochs
  double mape = 0;         ///< mean of |predicted − measured| / measured, fraction
  int points = 0;          ///< runs fitted
};

/// The number of distinct global batches among `runs` (fit_epochs() needs at least 2).
std::size_t distinct_global_batches(std::span<const TrainingRun> runs);

/// Fits epochs(B) = a + b·B by least squares on epochs over all `runs` (every accelerator and
/// stack: the epochs a batch needs do not depend on the hardware), with b >= 0: when the
/// unconstrained slope is negative the constrained optimum of this convex problem is b = 0,
/// a = mean epochs (B_noise = +infinity). Throws std::invalid_argument when the runs hold fewer
/// than 2 distinct global batches, when a run's batch or epochs is not positive (naming the
/// run), or when the fitted E_min = a is not positive.
EpochsFit fit_epochs(std::span<const TrainingRun> runs);

/// E_min·(1 + B/B_noise): the epochs of `global_batch` (samples) under `fit`.
double predict_epochs(const EpochsFit& fit, double global_batch);

}  // namespace scaletune::autotune
