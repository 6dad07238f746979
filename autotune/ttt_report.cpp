#include "autotune/ttt_report.hpp"

#include <algorithm>
#include <cmath>

#include "autotune/detail/format.hpp"
#include "autotune/detail/text_table.hpp"
#include "autotune/recommend.hpp"
#include "autotune/ttt_check.hpp"

namespace scaletune::autotune {
namespace {

using detail::fixed;
using detail::grouped;
using detail::percent;
using detail::significant;

constexpr std::size_t kListedGroups = 12;

std::string law_text(const ScalingFit& fit) {
  std::string text = fit.model;
  for (const auto& [name, value] : fit.params)
    text += ", " + name + " = " + (name == "X1" ? grouped(value, 1) : significant(value, 3));
  return text;
}

std::string epochs_text(const EpochsFit& e) {
  return "epochs(B) = " + fixed(e.epochs_min, 2) + " (1 + B / " + grouped(e.batch_noise) +
         "), the critical-batch model of McCandlish et al. 2018 (\"An Empirical Model of "
         "Large-Batch Training\"), fitted on all " +
         std::to_string(e.points) + " runs: RMSE " + fixed(e.rmse, 2) + " epochs, MAPE " +
         percent(e.mape) + "%.\n";
}

/// The groups with the most runs, most first.
std::vector<const GroupFit*> largest_groups(const TttModel& model) {
  std::vector<const GroupFit*> groups;
  for (const GroupFit& g : model.groups) groups.push_back(&g);
  std::ranges::stable_sort(
      groups, [](const GroupFit* a, const GroupFit* b) { return a->points > b->points; });
  if (groups.size() > kListedGroups) groups.resize(kListedGroups);
  return groups;
}

/// The global batch of the group's runs at its largest device count (the largest of several).
double batch_at_most_devices(std::span<const TrainingRun> runs, const GroupFit& g) {
  double devices = 0, batch = 0;
  for (const TrainingRun& r : runs)
    if (r.accelerator == g.accelerator && r.stack == g.stack &&
        (r.devices > devices || (r.devices == devices && r.global_batch > batch))) {
      devices = r.devices;
      batch = r.global_batch;
    }
  return batch;
}

double most_devices(std::span<const TrainingRun> runs, const GroupFit& g) {
  double devices = 0;
  for (const TrainingRun& r : runs)
    if (r.accelerator == g.accelerator && r.stack == g.stack)
      devices = std::max(devices, r.devices);
  return devices;
}

std::string groups_table(const TttModel& model, std::span<const TrainingRun> runs) {
  detail::TextTable t{
      {"accelerator", "stack", "runs", "device counts", "law", "MAPE", "efficiency 0.7 at",
       "2 x most devices", "global batch", "predicted time to train", "device-minutes"},
      {"", "", "", "", "", "%", "devices", "devices", "samples", "min", "device-min"},
      {}};
  for (const GroupFit* g : largest_groups(model)) {
    const double devices = 2 * most_devices(runs, *g);
    const double batch = batch_at_most_devices(runs, *g);
    const auto p = predict_ttt(model, g->accelerator, g->stack, devices, batch);
    const auto knee = ranks_at_efficiency(g->throughput, kDefaultEfficiencyFloor);
    t.rows.push_back(
        {g->accelerator, g->stack, std::to_string(g->points), std::to_string(g->distinct_devices),
         law_text(g->throughput), percent(g->throughput.mape), knee ? grouped(*knee) : "never",
         grouped(devices), grouped(batch), p ? significant(p->time_to_train_min, 3) : "-",
         p ? significant(p->time_to_train_min * devices, 4) : "-"});
  }
  return detail::to_markdown(t);
}

/// The test runs' measured and predicted times, without and with the round factor.
std::string check_table(const LatestRoundCheck& c) {
  detail::TextTable t{{"id", "measured", "predicted without", "error without",
                       "predicted with factor", "error with factor"},
                      {"", "min", "min", "%", "min", "%"},
                      {}};
  for (std::size_t k = 0; k < c.without_factor.rows.size(); ++k) {
    const HoldoutRow& without = c.without_factor.rows[k];
    const HoldoutRow& with = c.with_factor.rows[k];
    t.rows.push_back({without.id, significant(without.measured_min, 4),
                      significant(without.predicted_min, 4), percent(without.ape),
                      significant(with.predicted_min, 4), percent(with.ape)});
  }
  return detail::to_markdown(t);
}

std::string factors_table(const RoundFactors& f) {
  detail::TextTable t{
      {"round", "runs in shared configurations", "software level", "factor to " + f.target_round},
      {"", "", "x " + f.anchor_round, "x"},
      {}};
  for (const RoundFactor& r : f.rounds)
    t.rows.push_back(
        {r.round, std::to_string(r.shared_runs), fixed(r.level, 4), fixed(r.to_target, 4)});
  return detail::to_markdown(t);
}

std::string factors_text(const RoundFactors& f) {
  if (f.anchor_round.empty())
    return "Round factor: no configuration (accelerator, stack, device count) was submitted in "
           "more than one earlier round, so every factor is 1.\n";
  const bool unlinked =
      std::ranges::any_of(f.rounds, [](const RoundFactor& r) { return std::isnan(r.level); });
  return "Round factor: newer software makes the same accelerator, stack and device count run "
         "faster in later rounds, though not in every round. Software levels from the " +
         std::to_string(f.configurations) +
         " configurations (accelerator, stack, device count) submitted in more than one earlier "
         "round: least squares on ln throughput with one intercept per configuration and one "
         "level per round (" +
         f.anchor_round + " = 1); " + f.target_round + " is forecast as " + f.anchor_round +
         "'s level times the geometric mean of the round-to-round speed-ups, " + fixed(f.step, 4) +
         " per round. Each earlier run's throughput is multiplied by its " +
         "round's factor before the fit" +
         (unlinked ? " (level \"-\": a round sharing no configuration with " + f.anchor_round +
                         "'s rounds, brought forward by the speed-up per round alone)"
                   : std::string()) +
         ".\n\n" + factors_table(f);
}

std::string errors_text(const HoldoutResult& h) {
  return "median error " + percent(h.median_ape) + "%, worst " + percent(h.worst_ape) + "%";
}

/// Fit on every round before the latest, predict the latest.
TttSection with_check(std::span<const TrainingRun> runs, TttSection section) {
  const auto c = check_latest_round(runs);
  if (!c) return section;
  const std::string errors =
      errors_text(c->with_factor) + " with the round factor; " + errors_text(c->without_factor) +
      " without (" + std::to_string(c->with_factor.rows.size()) + " of " +
      std::to_string(c->test_runs) + " rows; " + std::to_string(c->with_factor.unpredictable) +
      " with an accelerator not in earlier rounds)";
  section.check_line =
      "time-to-train model: " + c->round + " predicted from earlier rounds: " + errors;
  section.markdown += "\n### Check: " + c->round + " predicted from earlier rounds\n\nFitted on " +
                      std::to_string(c->train_runs) +
                      " runs of the earlier rounds only: " + errors + ".\n\n" +
                      factors_text(c->factors) + "\n" + check_table(*c);
  return section;
}

}  // namespace

TttSection ttt_section(std::span<const results::ConfigResult> configs) {
  const std::vector<TrainingRun> runs = training_runs(configs);
  if (runs.empty() || distinct_global_batches(runs) < 2) return {};
  const TttModel model = fit_ttt_model(runs);
  TttSection section;
  section.markdown =
      "\n## Time-to-train model\n\nTime to train = epochs(global batch) x " +
      grouped(model.samples_per_epoch) +
      " samples / X(devices) / 60 (min), which keeps the statistical cost of a large batch apart "
      "from how the hardware scales. " +
      epochs_text(model.epochs) +
      "X(p): the throughput law of each accelerator and software stack (Amdahl, or the USL where "
      "it predicts left-out device counts better; one device count: perfect scaling), fitted to "
      "relative errors. The largest groups; where scaling stops paying: the device count at "
      "which the law's efficiency X(p) / (p X1) falls to 0.7 (\"never\" for perfect scaling); "
      "and what each predicts at twice its largest device count with that count's global batch "
      "(a configuration not in the data):\n\n" +
      groups_table(model, runs);
  return with_check(runs, std::move(section));
}

}  // namespace scaletune::autotune
