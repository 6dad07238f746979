#include "autotune/ttt_check.hpp"

#include <algorithm>
#include <vector>

#include "autotune/epochs_model.hpp"

namespace scaletune::autotune {

std::optional<LatestRoundCheck> check_latest_round(std::span<const TrainingRun> runs,
                                                   double samples_per_epoch) {
  std::string latest;
  for (const TrainingRun& r : runs) latest = std::max(latest, r.round);
  std::vector<TrainingRun> train, test;
  for (const TrainingRun& r : runs) (r.round == latest ? test : train).push_back(r);
  if (train.empty() || distinct_global_batches(train) < 2) return std::nullopt;
  LatestRoundCheck check{.round = latest,
                         .train_runs = train.size(),
                         .test_runs = test.size(),
                         .factors = fit_round_factors(train, latest),
                         .without_factor = evaluate_holdout(train, test, samples_per_epoch),
                         .with_factor = {}};
  check.with_factor =
      evaluate_holdout(at_target_software(train, check.factors), test, samples_per_epoch);
  return check;
}

}  // namespace scaletune::autotune
