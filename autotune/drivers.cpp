#include "autotune/drivers.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "autotune/mlperf_import.hpp"

namespace scaletune::autotune {
namespace {

using ConfigPtrs = std::span<const results::ConfigResult* const>;

double number_attr(const results::ConfigResult& c, const std::string& key) {
  const auto it = c.number_attrs.find(key);
  return it == c.number_attrs.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
}

std::string text_attr(const results::ConfigResult& c, const std::string& key) {
  const auto it = c.text_attrs.find(key);
  return it == c.text_attrs.end() ? std::string() : it->second;
}

Feature numbers(std::string name, ConfigPtrs configs,
                const std::function<double(const results::ConfigResult&)>& value) {
  Feature f{.name = std::move(name), .categorical = false, .values = {}};
  for (const auto* c : configs) f.values.push_back(value(*c));
  return f;
}

Feature categories(std::string name, ConfigPtrs configs,
                   const std::function<std::string(const results::ConfigResult&)>& value) {
  std::vector<std::string> labels;
  for (const auto* c : configs) labels.push_back(value(*c));
  return categorical_feature(std::move(name), labels);
}

std::vector<Feature> mlperf_features(ConfigPtrs configs) {
  const auto text = [](const char* key) {
    return [key](const results::ConfigResult& c) { return text_attr(c, key); };
  };
  return {categories("accelerator", configs, text("accelerator_model")),
          numbers("devices", configs, [](const auto& c) { return double(c.ranks); }),
          numbers("nodes", configs, [](const auto& c) { return number_attr(c, "nodes"); }),
          categories("host_processor", configs, text("host_processor")),
          categories("software_stack", configs, text("software_stack")),
          numbers("global_batch", configs, [](const auto& c) { return double(c.global_batch); })};
}

std::vector<Feature> sweep_features(ConfigPtrs configs) {
  std::vector<Feature> f = {
      numbers("devices", configs, [](const auto& c) { return double(c.ranks); }),
      numbers("global_batch", configs, [](const auto& c) { return double(c.global_batch); }),
      categories("batch_split", configs, [](const auto& c) { return c.batch_split; }),
      categories("precision", configs, [](const auto& c) { return c.precision; })};
  std::map<std::string, bool> keys;  // name -> is a number
  for (const auto* c : configs) {
    for (const auto& [key, value] : c->number_attrs)
      if (is_setting_attribute(key)) keys.emplace(key, true);
    for (const auto& [key, value] : c->text_attrs)
      if (is_setting_attribute(key)) keys.emplace(key, false);
  }
  for (const auto& [key, is_number] : keys)
    f.push_back(is_number
                    ? numbers(key, configs, [&](const auto& c) { return number_attr(c, key); })
                    : categories(key, configs, [&](const auto& c) { return text_attr(c, key); }));
  return f;
}

bool varies(const Feature& f) {
  return std::ranges::any_of(f.values, [&](double v) {
    return !(v == f.values.front() || (std::isnan(v) && std::isnan(f.values.front())));
  });
}

}  // namespace

std::vector<Feature> config_features(ConfigPtrs configs) {
  const bool mlperf = !configs.empty() && std::ranges::all_of(configs, [](const auto* c) {
    return is_mlperf_config(*c);
  });
  std::vector<Feature> all = mlperf ? mlperf_features(configs) : sweep_features(configs);
  std::erase_if(all, [](const Feature& f) { return !varies(f); });
  return all;
}

Drivers explain_metrics(const results::ResultSet& results, std::span<const ConfigMetrics> metrics,
                        const ImportanceOptions& options) {
  std::map<std::string, const results::ConfigResult*> by_id;
  for (const auto& c : results.configs) by_id[c.id] = &c;
  std::vector<const results::ConfigResult*> configs;
  std::vector<double> per_device, time_to_train;
  for (const ConfigMetrics& m : metrics) {
    if (m.status != results::Status::ok) continue;
    configs.push_back(by_id.at(m.id));
    per_device.push_back(std::log10(m.throughput_per_rank));
    time_to_train.push_back(std::log10(m.time_to_train_min));
  }
  const std::size_t needed = 2 * static_cast<std::size_t>(options.folds);
  if (configs.size() < needed)
    return {{},
            std::to_string(configs.size()) +
                " ok configurations; feature importance needs at least " + std::to_string(needed)};
  const std::vector<Feature> features = config_features(configs);
  if (features.empty()) return {{}, "no feature varies between the ok configurations"};
  for (const Feature& f : features)
    if (std::ranges::any_of(f.values, [](double v) { return std::isnan(v); }))
      return {{}, "feature " + f.name + " is missing from some configurations"};
  return {{{"log10 throughput per device", permutation_importance(features, per_device, options)},
           {"log10 time to train", permutation_importance(features, time_to_train, options)}},
          {}};
}

}  // namespace scaletune::autotune
