#include "autotune/ttt_round_factors.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace scaletune::autotune {
namespace {

using Configuration = std::tuple<std::string, std::string, double>;  // accelerator, stack, p
using Shared = std::map<Configuration, std::vector<const TrainingRun*>>;

void check_runs(std::span<const TrainingRun> earlier, std::string_view target_round) {
  if (earlier.empty())
    throw std::invalid_argument("round factors: no runs of rounds before " +
                                std::string(target_round) + " (expected at least one)");
  for (const TrainingRun& run : earlier) {
    if (!(run.round < target_round))
      throw std::invalid_argument("round factors: run '" + run.id + "' is of round " + run.round +
                                  " (expected a round before the target " +
                                  std::string(target_round) + ")");
    if (!(run.throughput > 0.0))
      throw std::invalid_argument("round factors: run '" + run.id + "' has throughput " +
                                  std::to_string(run.throughput) + " (expected > 0 samples/s)");
  }
}

std::set<std::string> rounds_of(const std::vector<const TrainingRun*>& runs) {
  std::set<std::string> rounds;
  for (const TrainingRun* run : runs) rounds.insert(run->round);
  return rounds;
}

/// The runs of each configuration submitted in more than one round.
Shared shared_configurations(std::span<const TrainingRun> earlier) {
  Shared shared;
  for (const TrainingRun& run : earlier)
    shared[{run.accelerator, run.stack, run.devices}].push_back(&run);
  std::erase_if(shared, [](const auto& entry) { return rounds_of(entry.second).size() < 2; });
  return shared;
}

/// `shared` restricted to the configurations whose rounds link up with `anchor`'s (the rounds
/// whose levels relative to the anchor are identified).
Shared linked_to(const Shared& shared, const std::string& anchor) {
  std::set<std::string> linked = {anchor};
  for (std::size_t before = 0; before != linked.size();) {
    before = linked.size();
    for (const auto& [configuration, runs] : shared) {
      const std::set<std::string> rounds = rounds_of(runs);
      if (std::ranges::any_of(rounds, [&](const auto& r) { return linked.contains(r); }))
        linked.insert(rounds.begin(), rounds.end());
    }
  }
  Shared kept;
  for (const auto& [configuration, runs] : shared)
    if (linked.contains(runs.front()->round)) kept.emplace(configuration, runs);
  return kept;
}

/// The column of each round's β but the anchor's, after the configurations' α columns.
std::map<std::string, Eigen::Index> level_columns(const Shared& linked, const std::string& anchor) {
  std::map<std::string, Eigen::Index> columns;
  for (const auto& [configuration, runs] : linked)
    for (const std::string& round : rounds_of(runs))
      if (round != anchor) columns.emplace(round, 0);
  auto next = static_cast<Eigen::Index>(linked.size());
  for (auto& [round, column] : columns) column = next++;
  return columns;
}

/// β per round (β_anchor = 0) by least squares on ln X = α_configuration + β_round.
std::map<std::string, double> fit_levels(const Shared& linked, const std::string& anchor) {
  const std::map<std::string, Eigen::Index> columns = level_columns(linked, anchor);
  Eigen::Index rows = 0;
  for (const auto& [configuration, runs] : linked) rows += static_cast<Eigen::Index>(runs.size());
  Eigen::MatrixXd design =
      Eigen::MatrixXd::Zero(rows, static_cast<Eigen::Index>(linked.size() + columns.size()));
  Eigen::VectorXd log_throughput(rows);
  Eigen::Index row = 0, configuration_column = 0;
  for (const auto& [configuration, runs] : linked) {
    for (const TrainingRun* run : runs) {
      design(row, configuration_column) = 1.0;
      if (run->round != anchor) design(row, columns.at(run->round)) = 1.0;
      log_throughput(row++) = std::log(run->throughput);
    }
    ++configuration_column;
  }
  const Eigen::VectorXd solution = design.colPivHouseholderQr().solve(log_throughput);
  std::map<std::string, double> levels = {{anchor, 0.0}};
  for (const auto& [round, column] : columns) levels[round] = solution(column);
  return levels;
}

std::map<std::string, int> round_positions(std::span<const TrainingRun> earlier,
                                           std::string_view target_round) {
  std::set<std::string> rounds = {std::string(target_round)};
  for (const TrainingRun& run : earlier) rounds.insert(run.round);
  std::map<std::string, int> positions;
  for (const std::string& round : rounds)
    positions.emplace(round, static_cast<int>(positions.size()));
  return positions;
}

std::map<std::string, int> shared_run_counts(const Shared& shared) {
  std::map<std::string, int> counts;
  for (const auto& [configuration, runs] : shared)
    for (const TrainingRun* run : runs) ++counts[run->round];
  return counts;
}

std::string latest_shared_round(const Shared& shared) {
  std::string latest;
  for (const auto& [configuration, runs] : shared)
    latest = std::max(latest, *rounds_of(runs).rbegin());
  return latest;
}

/// The levels of the rounds linked to the latest round in a shared configuration (the anchor).
struct LevelFit {
  std::string anchor;                      ///< "" when no configuration is shared
  std::map<std::string, double> levels;    ///< β (ln level) per linked round, anchor 0
  std::map<std::string, int> shared_runs;  ///< runs fitted per round
  int configurations = 0;                  ///< configurations fitted
};

LevelFit fit_linked_levels(std::span<const TrainingRun> earlier) {
  const Shared shared = shared_configurations(earlier);
  LevelFit fit;
  fit.anchor = latest_shared_round(shared);
  if (fit.anchor.empty()) return fit;
  const Shared linked = linked_to(shared, fit.anchor);
  fit.levels = fit_levels(linked, fit.anchor);
  fit.shared_runs = shared_run_counts(linked);
  fit.configurations = static_cast<int>(linked.size());
  return fit;
}

/// exp of the mean step of β from the first linked round to the anchor; 1 without levels.
double step_per_round(const LevelFit& fit, const std::map<std::string, int>& position) {
  if (fit.levels.empty()) return 1.0;
  const auto& [first, first_level] = *fit.levels.begin();
  return std::exp(-first_level / (position.at(fit.anchor) - position.at(first)));
}

/// The factor of `round` (position k) to the target (position target), as RoundFactors says.
RoundFactor factor_of(const std::string& round, int k, int target, int anchor, double step,
                      const LevelFit& fit) {
  RoundFactor factor{.round = round};
  if (const auto runs = fit.shared_runs.find(round); runs != fit.shared_runs.end())
    factor.shared_runs = runs->second;
  if (const auto level = fit.levels.find(round); level != fit.levels.end()) {
    factor.level = std::exp(level->second);
    factor.to_target = std::pow(step, target - anchor) / factor.level;
  } else {
    factor.to_target = std::pow(step, target - k);
  }
  return factor;
}

}  // namespace

RoundFactors fit_round_factors(std::span<const TrainingRun> earlier,
                               std::string_view target_round) {
  check_runs(earlier, target_round);
  const std::map<std::string, int> position = round_positions(earlier, target_round);
  const LevelFit fit = fit_linked_levels(earlier);
  RoundFactors factors{.target_round = std::string(target_round),
                       .anchor_round = fit.anchor,
                       .step = step_per_round(fit, position),
                       .configurations = fit.configurations,
                       .rounds = {}};
  const int target = position.at(factors.target_round);
  const int anchor = fit.anchor.empty() ? target : position.at(fit.anchor);
  for (const auto& [round, k] : position)
    if (round != factors.target_round)
      factors.rounds.push_back(factor_of(round, k, target, anchor, factors.step, fit));
  return factors;
}

std::vector<TrainingRun> at_target_software(std::span<const TrainingRun> runs,
                                            const RoundFactors& factors) {
  std::vector<TrainingRun> scaled(runs.begin(), runs.end());
  for (TrainingRun& run : scaled) {
    const auto factor = std::ranges::find(factors.rounds, run.round, &RoundFactor::round);
    if (factor == factors.rounds.end())
      throw std::invalid_argument("round factors: run '" + run.id + "' is of round " + run.round +
                                  ", which has no factor to " + factors.target_round +
                                  " (expected one of the rounds fitted)");
    run.throughput *= factor->to_target;
  }
  return scaled;
}

}  // namespace scaletune::autotune
