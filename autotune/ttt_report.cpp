#include "autotune/ttt_report.hpp"

#include <algorithm>
#include <set>

#include "autotune/detail/format.hpp"
#include "autotune/detail/text_table.hpp"
#include "autotune/recommend.hpp"

namespace scaletune::autotune {
namespace {

using detail::fixed;
using detail::grouped;
using detail::percent;
using detail::significant;

constexpr std::size_t kListedGroups = 12;

std::set<double> distinct_batches(std::span<const TrainingRun> runs) {
  std::set<double> batches;
  for (const TrainingRun& r : runs) batches.insert(r.global_batch);
  return batches;
}

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

std::string check_table(const HoldoutResult& h) {
  detail::TextTable t{{"id", "measured", "predicted", "error"}, {"", "min", "min", "%"}, {}};
  for (const HoldoutRow& r : h.rows)
    t.rows.push_back(
        {r.id, significant(r.measured_min, 4), significant(r.predicted_min, 4), percent(r.ape)});
  return detail::to_markdown(t);
}

/// Fit on every round before the latest, predict the latest.
TttSection with_check(std::span<const TrainingRun> runs, TttSection section) {
  std::string latest;
  for (const TrainingRun& r : runs) latest = std::max(latest, r.round);
  std::vector<TrainingRun> train, test;
  for (const TrainingRun& r : runs) (r.round == latest ? test : train).push_back(r);
  if (train.empty() || distinct_batches(train).size() < 2) return section;
  const HoldoutResult h = evaluate_holdout(train, test);
  const std::string summary = latest + " predicted from earlier rounds: median error " +
                              percent(h.median_ape) + "%, worst " + percent(h.worst_ape) + "% (" +
                              std::to_string(h.rows.size()) + " of " + std::to_string(test.size()) +
                              " rows; " + std::to_string(h.unpredictable) +
                              " with an accelerator not in earlier rounds)";
  section.check_line = "time-to-train model: " + summary;
  section.markdown += "\n### Check: " + latest + " predicted from earlier rounds\n\nFitted on " +
                      std::to_string(train.size()) +
                      " runs of the earlier rounds only: " + summary + ".\n\n" + check_table(h);
  return section;
}

}  // namespace

TttSection ttt_section(std::span<const results::ConfigResult> configs) {
  const std::vector<TrainingRun> runs = training_runs(configs);
  if (runs.empty() || distinct_batches(runs).size() < 2) return {};
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
