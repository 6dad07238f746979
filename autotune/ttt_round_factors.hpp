#pragma once
// The software speed-up from one MLPerf round to the next: the same accelerator, stack and device
// count tends to run faster in a later round (newer containers, framework and library releases),
// so a throughput law fitted on several rounds at once predicts the next round too slow. These
// factors bring earlier rounds' throughputs to the software of the round being predicted, from
// the earlier rounds alone.

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autotune/training_run.hpp"

namespace scaletune::autotune {

/// One earlier round's software level and its factor to the target round.
struct RoundFactor {
  std::string round;    ///< "v2.1"
  int shared_runs = 0;  ///< its runs in configurations also submitted in another round (fitted)
  /// exp(β_r): throughput at equal configuration relative to the anchor round (RoundFactors),
  /// ratio; NaN when the round shares no configuration with the anchor's rounds.
  double level = std::numeric_limits<double>::quiet_NaN();
  double to_target = 1.0;  ///< multiplier bringing this round's throughputs to the target's, ratio
};

/// Software levels per round and the forecast for the target round.
///
/// Levels: two-way fixed-effects least squares (Eigen, column-pivoting QR) on ln throughput over
/// the runs of every configuration (accelerator, stack, device count) submitted in more than one
/// earlier round: ln X = α_configuration + β_round, β_anchor = 0. Only rounds linked to the anchor
/// through shared configurations have a level (the others would not be identified).
///
/// Forecast: software releases build on the previous round's, so the level is modelled as a
/// random walk with drift and forecast by the drift method (Hyndman & Athanasopoulos,
/// "Forecasting: Principles and Practice", 3rd ed., Sec. 5.2): the last level plus the mean
/// step, step = exp((β_anchor − β_first) / (k_anchor − k_first)), the geometric mean of the
/// round-to-round speed-ups between the first and the anchor round (k: the round's position
/// among the rounds in the data and the target). A round's factor to the target is
/// step^(k_target − k_anchor) / level; a round without a level gets step^(k_target − k_round).
/// Why this forecast: in a rolling-origin backtest on the MLPerf ResNet-50 data (v2.0, v2.1,
/// v3.0 and v3.1 each predicted from the rounds before it) the mean of the four median errors was
/// 8.1% with it, 8.5% with a least-squares line through the levels instead, 9.2% with no factor
/// (tests/unit/test_autotune_ttt_round_factors.cpp prints the first and the last).
struct RoundFactors {
  std::string target_round;  ///< the round predicted, "v3.1"
  /// The latest earlier round in a shared configuration; "" when no configuration was submitted
  /// in more than one earlier round (then every factor is 1).
  std::string anchor_round;
  double step = 1.0;                ///< speed-up per round, ratio (1: none)
  int configurations = 0;           ///< configurations fitted (submitted in more than one round)
  std::vector<RoundFactor> rounds;  ///< every earlier round, in order
};

/// Fits the factors on `earlier` (runs of rounds before `target_round`; the target round's runs
/// are never read). Rounds are ordered as text, "v1.0" < "v1.1" < ... < "v3.1", which is their
/// order in time while versions stay below v10; consecutive rounds count as equally far apart
/// (MLPerf Training rounds are about six months apart). Throws std::invalid_argument when
/// `earlier` is empty, when a run's round is `target_round` or later, or when a throughput is not
/// positive (naming the run).
RoundFactors fit_round_factors(std::span<const TrainingRun> earlier, std::string_view target_round);

/// `runs` with each throughput multiplied by its round's to_target (time to train and epochs
/// unchanged): the earlier rounds on the target round's software. Throws std::invalid_argument
/// naming the run when its round is not among factors.rounds.
std::vector<TrainingRun> at_target_software(std::span<const TrainingRun> runs,
                                            const RoundFactors& factors);

}  // namespace scaletune::autotune
