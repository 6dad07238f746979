#include "autotune/ttt_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace scaletune::autotune {
namespace {

using GroupKey = std::pair<std::string, std::string>;  // accelerator, stack ("" for all)

std::vector<GroupFit> fit_groups(std::span<const TrainingRun> runs, bool by_stack) {
  std::map<GroupKey, std::vector<ScalingPoint>> points;
  for (const TrainingRun& run : runs)
    points[{run.accelerator, by_stack ? run.stack : std::string()}].push_back(
        {run.devices, run.throughput});
  std::vector<GroupFit> groups;
  for (const auto& [key, group_points] : points)
    groups.push_back(fit_group_scaling(key.first, key.second, group_points));
  return groups;
}

const GroupFit* find_group(const std::vector<GroupFit>& groups, std::string_view accelerator,
                           std::string_view stack) {
  const auto it = std::ranges::find_if(groups, [&](const GroupFit& group) {
    return group.accelerator == accelerator && group.stack == stack;
  });
  return it == groups.end() ? nullptr : &*it;
}

std::string basis_of(const GroupFit& group) {
  const std::string name =
      group.accelerator + (group.stack.empty() ? " (all stacks)" : "/" + group.stack);
  return name + " (runs " + std::to_string(group.points) + ", device counts " +
         std::to_string(group.distinct_devices) + "): " + group.selection;
}

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

}  // namespace

TttModel fit_ttt_model(std::span<const TrainingRun> runs, double samples_per_epoch) {
  if (!(samples_per_epoch > 0.0))
    throw std::invalid_argument("time-to-train model: samples per epoch " +
                                std::to_string(samples_per_epoch) + " (expected > 0)");
  return {.samples_per_epoch = samples_per_epoch,
          .epochs = fit_epochs(runs),
          .groups = fit_groups(runs, true),
          .accelerators = fit_groups(runs, false)};
}

std::optional<TttPrediction> predict_ttt(const TttModel& model, std::string_view accelerator,
                                         std::string_view stack, double devices,
                                         double global_batch) {
  if (!(devices >= 1.0) || !(global_batch > 0.0))
    throw std::invalid_argument("time-to-train prediction: devices " + std::to_string(devices) +
                                ", global batch " + std::to_string(global_batch) +
                                " (expected devices >= 1 and a positive batch)");
  const GroupFit* group = find_group(model.groups, accelerator, stack);
  if (group == nullptr) group = find_group(model.accelerators, accelerator, "");
  if (group == nullptr) return std::nullopt;
  TttPrediction prediction{.time_to_train_min = 0,
                           .epochs = predict_epochs(model.epochs, global_batch),
                           .throughput = predict(group->throughput, devices),
                           .basis = basis_of(*group)};
  prediction.time_to_train_min =
      prediction.epochs * model.samples_per_epoch / prediction.throughput / 60.0;
  return prediction;
}

HoldoutResult evaluate_holdout(std::span<const TrainingRun> train,
                               std::span<const TrainingRun> test, double samples_per_epoch) {
  const TttModel model = fit_ttt_model(train, samples_per_epoch);
  HoldoutResult result;
  std::vector<double> errors;
  for (const TrainingRun& run : test) {
    const auto prediction =
        predict_ttt(model, run.accelerator, run.stack, run.devices, run.global_batch);
    if (!prediction) {
      ++result.unpredictable;
      continue;
    }
    const double ape =
        std::fabs(prediction->time_to_train_min - run.time_to_train_min) / run.time_to_train_min;
    result.rows.push_back(
        {run.id, run.time_to_train_min, prediction->time_to_train_min, ape, prediction->basis});
    errors.push_back(ape);
  }
  if (errors.empty()) {
    result.median_ape = result.worst_ape = std::numeric_limits<double>::quiet_NaN();
  } else {
    result.worst_ape = std::ranges::max(errors);
    result.median_ape = median(std::move(errors));
  }
  return result;
}

}  // namespace scaletune::autotune
