#pragma once
// The honest check of the time-to-train model on MLPerf rounds: fit on every round but the
// latest, predict the latest, without and with the software speed-up per round
// (ttt_round_factors.hpp).

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "autotune/training_run.hpp"
#include "autotune/ttt_model.hpp"
#include "autotune/ttt_round_factors.hpp"

namespace scaletune::autotune {

/// The latest round predicted from the earlier ones.
struct LatestRoundCheck {
  std::string round;             ///< the latest round (largest as text), "v3.1"
  std::size_t train_runs = 0;    ///< runs of the earlier rounds, the only runs fitted
  std::size_t test_runs = 0;     ///< runs of the latest round
  RoundFactors factors;          ///< fit_round_factors() on the earlier rounds
  HoldoutResult without_factor;  ///< evaluate_holdout() on the earlier rounds as measured
  /// evaluate_holdout() on the earlier rounds at the latest round's software
  /// (at_target_software()); the same test runs, in the same order, as without_factor.
  HoldoutResult with_factor;
};

/// Splits `runs` into the latest round and the earlier ones and predicts the latest, without and
/// with the round factors; the latest round's runs are used only as the runs to predict. Empty
/// when there is one round only or the earlier rounds hold fewer than 2 distinct global batches
/// (no epochs law). `samples_per_epoch` as in fit_ttt_model(). Throws as fit_ttt_model() and
/// fit_round_factors() do.
std::optional<LatestRoundCheck> check_latest_round(std::span<const TrainingRun> runs,
                                                   double samples_per_epoch = kDefaultTrainSamples);

}  // namespace scaletune::autotune
