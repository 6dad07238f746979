#pragma once
// The "Time-to-train model" section of the autotune report, for imported MLPerf results.

#include <span>
#include <string>

#include "autotune/ttt_model.hpp"
#include "harness/results/result_types.hpp"

namespace scaletune::autotune {

/// The section and the one-line check that `scaletune autotune` prints.
struct TttSection {
  std::string markdown;  ///< "" when there are no MLPerf submissions to model
  /// "time-to-train model: v3.1 predicted from earlier rounds: median error 9.4%, worst 21.7%
  /// with the round factor; median error 10.6%, worst 20.7% without (29 of 32 rows; 3 with an
  /// accelerator not in earlier rounds)" (check_latest_round(): the errors of with_factor first,
  /// then those of without_factor; percentages with one decimal, "-" when no row was
  /// predictable); "" without a check (one round only).
  std::string check_line;
};

/// The time-to-train model of the MLPerf submissions among `configs` (training_runs()): the
/// epochs law, each accelerator and stack's throughput law (ttt_model.hpp), the honest check
/// (check_latest_round(): fit on every round but the latest, predict the latest, without and with
/// the software speed-up per round; the round factors, median and worst absolute percentage
/// errors, the rows), and predictions at twice each group's largest device count at that count's
/// global batch, a configuration not in the data. Empty markdown when there are no such runs or
/// fewer than 2 distinct global batches. Throws as training_runs() does.
TttSection ttt_section(std::span<const results::ConfigResult> configs);

}  // namespace scaletune::autotune
