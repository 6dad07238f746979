#include "autotune/training_run.hpp"

#include <cmath>
#include <stdexcept>

#include "autotune/detail/format.hpp"
#include "autotune/mlperf_import.hpp"

namespace scaletune::autotune {
namespace {

[[noreturn]] void fail(const results::ConfigResult& config, const std::string& what) {
  throw std::invalid_argument("configuration '" + config.id + "': " + what);
}

double positive_number(const results::ConfigResult& config, const std::string& key) {
  const auto it = config.number_attrs.find(key);
  if (it == config.number_attrs.end())
    fail(config, "no number attribute '" + key +
                     "' (expected a finite positive number; a text attribute of that name does "
                     "not count)");
  if (!(it->second > 0.0) || !std::isfinite(it->second))
    fail(config, "number attribute '" + key + "' is " + detail::significant(it->second, 6) +
                     " (expected a finite positive number)");
  return it->second;
}

std::string text(const results::ConfigResult& config, const std::string& key) {
  const auto it = config.text_attrs.find(key);
  if (it == config.text_attrs.end() || it->second.empty())
    fail(config, "missing text attribute '" + key + "' (expected a non-empty text)");
  return it->second;
}

double positive_field(const results::ConfigResult& config, const std::string& key, double value) {
  if (!(value > 0.0))
    fail(config, "'" + key + "' is " + std::to_string(value) + " (expected a positive number)");
  return value;
}

TrainingRun training_run(const results::ConfigResult& config) {
  return {.id = config.id,
          .accelerator = text(config, "accelerator_model"),
          .stack = text(config, "software_stack"),
          .round = text(config, "round"),
          .devices = positive_field(config, "ranks", config.ranks),
          .global_batch = positive_field(config, "global_batch", config.global_batch),
          .epochs = positive_number(config, "epochs"),
          .time_to_train_min = positive_number(config, "time_to_train_minutes"),
          .throughput = positive_field(config, "throughput", config.throughput)};
}

}  // namespace

std::vector<TrainingRun> training_runs(std::span<const results::ConfigResult> configs) {
  std::vector<TrainingRun> runs;
  for (const results::ConfigResult& config : configs)
    if (is_mlperf_config(config) && config.status == results::Status::ok)
      runs.push_back(training_run(config));
  return runs;
}

}  // namespace scaletune::autotune
