#include "autotune/metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include "autotune/accelerators.hpp"
#include "autotune/detail/format.hpp"
#include "autotune/mlperf_import.hpp"

namespace scaletune::autotune {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::size_t kMaxListedBatches = 8;
/// Extra attributes that are not settings but follow from the rank count and the split: the
/// count itself, a plan's placement (which names ranks), its memory estimate, a transformer
/// plan's accumulation rounds and the ZeRO stage an automatic sharding chose, and the steps fp16
/// loss scaling skipped (an outcome). They do not separate series.
constexpr std::array<std::string_view, 6> kNotSettings = {"ranks",  "plan",       "memory_estimate",
                                                          "rounds", "zero_stage", "skipped_steps"};

/// Every setting but the rank count and the batch split (ConfigMetrics::series); an MLPerf
/// submission's accelerator model and software stack.
std::string series_of(const results::ConfigResult& c) {
  if (is_mlperf_config(c)) {
    const auto text = [&](const char* key) {
      const auto it = c.text_attrs.find(key);
      return it == c.text_attrs.end() ? std::string("unknown") : it->second;
    };
    return c.workload + ", " + text("accelerator_model") + ", " + text("software_stack");
  }
  std::string s =
      c.workload + ", global batch " + std::to_string(c.global_batch) + ", " + c.precision;
  for (const auto& [key, value] : c.number_attrs)
    if (is_setting_attribute(key)) s += ", " + key + "=" + detail::significant(value, 6);
  for (const auto& [key, value] : c.text_attrs)
    if (is_setting_attribute(key)) s += ", " + key + "=" + value;
  return s;
}

/// "64" when every rank has 64 samples, "96+64+32" when uneven, "32..96" past 8 ranks.
std::string per_rank_batch_text(const std::vector<int>& batch) {
  if (batch.empty()) return "-";
  const auto [lo, hi] = std::ranges::minmax(batch);
  if (lo == hi) return std::to_string(lo);
  if (batch.size() > kMaxListedBatches) return std::to_string(lo) + ".." + std::to_string(hi);
  std::string text;
  for (int b : batch) {
    if (!text.empty()) text += '+';
    text += std::to_string(b);
  }
  return text;
}

/// Ok configurations need ranks >= 1 and a positive throughput; throws naming file and id.
void check_ok_numbers(const results::ConfigResult& c, const std::string& file_path) {
  if (c.ranks >= 1 && c.throughput > 0.0) return;
  throw std::invalid_argument(file_path + ": /configs/" + c.id + " has status ok but ranks " +
                              std::to_string(c.ranks) + " and throughput " +
                              std::to_string(c.throughput) +
                              " samples/s; expected ranks >= 1 and a positive throughput");
}

/// An MLPerf submission's score (min); throws naming file and id when it is missing or not > 0.
double mlperf_score(const results::ConfigResult& c, const std::string& file_path) {
  const auto it = c.number_attrs.find("time_to_train_minutes");
  if (it != c.number_attrs.end() && it->second > 0.0 && std::isfinite(it->second))
    return it->second;
  throw std::invalid_argument(file_path + ": /configs/" + c.id +
                              " is an MLPerf submission without a finite positive number "
                              "attribute time_to_train_minutes (minutes, its score)");
}

/// The cost of `device_minutes` on `uses` (each use's devices at its price), NaN when a
/// device has no price or there are no prices.
double cost_of(double device_minutes, int ranks, std::span<const AcceleratorUse> uses,
               const std::optional<PriceTable>& prices) {
  if (!prices || uses.empty()) return kNaN;
  double price_sum = 0;  // per hour, all devices
  for (const AcceleratorUse& u : uses) {
    std::optional<double> price;
    for (const std::string& name : u.names)
      if (!price) price = price_per_device_hour(*prices, name);
    if (!price) return kNaN;
    price_sum += *price * u.devices;
  }
  return device_minutes / ranks / 60.0 * price_sum;
}

/// Time to train, device-minutes and cost of the ok configuration `c` (ConfigMetrics).
void add_training_cost(ConfigMetrics& m, const results::ConfigResult& c,
                       const std::vector<AcceleratorUse>& uses, const std::string& file_path,
                       const MetricsOptions& options) {
  m.time_to_train_measured = is_mlperf_config(c);
  m.time_to_train_min = m.time_to_train_measured ? mlperf_score(c, file_path)
                                                 : options.train_samples / c.throughput / 60.0;
  m.device_minutes = c.ranks * m.time_to_train_min;
  m.cost = cost_of(m.device_minutes, c.ranks, uses, options.prices);
}

ConfigMetrics own_metrics(const results::ConfigResult& c, const results::ResultSet& results,
                          const MetricsOptions& options) {
  const std::string& file_path = results.path;
  const std::vector<AcceleratorUse> uses = accelerators_of(c, results.system);
  ConfigMetrics m{.id = c.id,
                  .series = series_of(c),
                  .ranks = c.ranks,
                  .global_batch = c.global_batch,
                  .batch_split = c.batch_split,
                  .per_rank_batch = per_rank_batch_text(c.per_rank_batch),
                  .status = c.status,
                  .error = c.error,
                  .throughput = kNaN,
                  .throughput_per_rank = kNaN,
                  .step_time_median_s = kNaN,
                  .step_time_p95_s = kNaN,
                  .scaling_efficiency = kNaN,
                  .baseline_id = {},
                  .shares = {kNaN, kNaN, kNaN, kNaN},
                  .accelerator = accelerator_label(uses),
                  .time_to_train_min = kNaN,
                  .time_to_train_measured = false,
                  .device_minutes = kNaN,
                  .cost = kNaN};
  if (c.status != results::Status::ok) return m;
  check_ok_numbers(c, file_path);
  add_training_cost(m, c, uses, file_path, options);
  m.throughput = c.throughput;
  m.throughput_per_rank = c.throughput / c.ranks;
  m.step_time_median_s = c.step_time_median;
  m.step_time_p95_s = c.step_time_p95;
  m.shares = phase_shares(c, file_path);
  return m;
}

/// Index of each series' baseline (ok, fewest ranks whatever the batch split, the highest
/// throughput among those, first in order on a tie), by series.
std::map<std::string, std::size_t> baselines(const std::vector<ConfigMetrics>& all) {
  std::map<std::string, std::size_t> base;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].status != results::Status::ok) continue;
    auto [it, added] = base.try_emplace(all[i].series, i);
    const ConfigMetrics& b = all[it->second];
    const bool better =
        all[i].ranks < b.ranks || (all[i].ranks == b.ranks && all[i].throughput > b.throughput);
    if (!added && better) it->second = i;
  }
  return base;
}

}  // namespace

double scaling_efficiency(double throughput_p, int ranks_p, double throughput_p0, int ranks_p0) {
  if (ranks_p < 1 || ranks_p0 < 1 || !(throughput_p0 > 0.0))
    throw std::invalid_argument(
        "scaling efficiency needs rank counts >= 1 and a positive baseline");
  return throughput_p * ranks_p0 / (ranks_p * throughput_p0);
}

bool is_setting_attribute(std::string_view key) {
  return std::ranges::find(kNotSettings, key) == kNotSettings.end();
}

bool is_training_config(const results::ConfigResult& config) {
  return config.workload != kCollectivesWorkload;
}

std::vector<ConfigMetrics> compute_metrics(const results::ResultSet& results,
                                           const MetricsOptions& options) {
  if (!(options.train_samples > 0.0))
    throw std::invalid_argument("the samples to train must be > 0, got " +
                                detail::significant(options.train_samples, 6));
  std::vector<ConfigMetrics> all;
  for (const results::ConfigResult& c : results.configs)
    if (is_training_config(c)) all.push_back(own_metrics(c, results, options));
  const auto base = baselines(all);
  for (ConfigMetrics& m : all) {
    if (m.status != results::Status::ok) continue;
    const ConfigMetrics& b = all[base.at(m.series)];
    m.baseline_id = b.id;
    m.scaling_efficiency = scaling_efficiency(m.throughput, m.ranks, b.throughput, b.ranks);
  }
  return all;
}

}  // namespace scaletune::autotune
