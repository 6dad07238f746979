#include "autotune/ranking.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "autotune/pareto.hpp"
#include "autotune/topsis.hpp"

namespace scaletune::autotune {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median(std::vector<double> values) {
  std::ranges::sort(values);
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

std::vector<std::size_t> ok_indices(std::span<const ConfigMetrics> metrics) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].status == results::Status::ok) ok.push_back(i);
  return ok;
}

std::string names_of(const std::vector<RankingCriterion>& criteria) {
  std::string names;
  for (const auto& c : criteria) names += (names.empty() ? "" : ", ") + c.name;
  return names;
}

/// [rows][criteria] values of the configurations `rows`; throws for a non-finite value.
std::vector<std::vector<double>> decision_matrix(std::span<const ConfigMetrics> metrics,
                                                 std::span<const std::size_t> rows,
                                                 const std::vector<RankingCriterion>& criteria) {
  std::vector<std::vector<double>> matrix;
  for (std::size_t i : rows) {
    std::vector<double> row;
    for (const auto& c : criteria) {
      if (c.field == nullptr) throw std::invalid_argument("criterion " + c.name + " has no field");
      const double value = metrics[i].*c.field;
      if (!std::isfinite(value))
        throw std::invalid_argument("criterion " + c.name + " has no value for " + metrics[i].id +
                                    "; leave it out of the ranking");
      row.push_back(value);
    }
    matrix.push_back(std::move(row));
  }
  return matrix;
}

std::vector<Criterion> topsis_criteria(const std::vector<RankingCriterion>& criteria) {
  std::vector<Criterion> out;
  for (const auto& c : criteria) out.push_back({c.weight, c.benefit});
  return out;
}

/// The decision matrix on the clustering scale: log10 where asked.
Eigen::MatrixXd clustering_input(const std::vector<std::vector<double>>& matrix,
                                 const std::vector<RankingCriterion>& criteria) {
  Eigen::MatrixXd x(static_cast<Eigen::Index>(matrix.size()),
                    static_cast<Eigen::Index>(criteria.size()));
  for (std::size_t i = 0; i < matrix.size(); ++i)
    for (std::size_t j = 0; j < criteria.size(); ++j)
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          criteria[j].log_scale ? std::log10(matrix[i][j]) : matrix[i][j];
  return x;
}

std::size_t distinct_rows(const std::vector<std::vector<double>>& matrix) {
  std::vector<std::vector<double>> rows = matrix;
  std::ranges::sort(rows);
  return static_cast<std::size_t>(
      std::ranges::distance(rows.begin(), std::ranges::unique(rows).begin()));
}

ClusterSummary describe(int label, std::span<const ConfigMetrics> metrics,
                        const std::vector<std::size_t>& members,
                        const std::vector<std::vector<double>>& rows) {
  ClusterSummary s;
  s.label = label;
  s.members = members;
  std::map<std::string, int> by_accelerator;
  s.min_devices = metrics[members.front()].ranks;
  s.max_devices = s.min_devices;
  for (std::size_t i : members) {
    s.min_devices = std::min(s.min_devices, metrics[i].ranks);
    s.max_devices = std::max(s.max_devices, metrics[i].ranks);
    ++by_accelerator[metrics[i].accelerator];
  }
  std::vector<std::pair<int, std::string>> counted;
  for (const auto& [name, n] : by_accelerator) counted.emplace_back(-n, name);
  std::ranges::sort(counted);
  for (const auto& [n, name] : counted) s.accelerators.push_back(name);
  for (std::size_t j = 0; j < rows.front().size(); ++j) {
    const auto [lo, hi] = std::ranges::minmax(rows, {}, [j](const auto& row) { return row[j]; });
    s.ranges.emplace_back(lo[j], hi[j]);
  }
  return s;
}

/// Cluster summaries of `r.clustering`, ranked by their members' median TOPSIS score.
std::vector<ClusterSummary> rank_clusters(std::span<const ConfigMetrics> metrics, const Ranking& r,
                                          const std::vector<std::vector<double>>& matrix) {
  std::vector<ClusterSummary> clusters;
  for (int label = 0; label < r.clustering.k; ++label) {
    std::vector<std::size_t> members;
    std::vector<std::vector<double>> rows;
    for (std::size_t row = 0; row < r.clustered.size(); ++row)
      if (r.clustering.labels[row] == label) {
        members.push_back(r.clustered[row]);
        rows.push_back(matrix[row]);
      }
    clusters.push_back(describe(label, metrics, members, rows));
  }
  for (ClusterSummary& c : clusters) {
    std::vector<double> scores;
    for (std::size_t i : c.members) scores.push_back(r.scores[i]);
    c.score = median(scores);
  }
  std::ranges::stable_sort(clusters,
                           [](const auto& a, const auto& b) { return a.score > b.score; });
  return clusters;
}

std::vector<std::size_t> front_of(std::span<const ConfigMetrics> metrics,
                                  const std::vector<std::size_t>& ok) {
  std::vector<double> time, device_minutes;
  for (std::size_t i : ok) {
    time.push_back(metrics[i].time_to_train_min);
    device_minutes.push_back(metrics[i].device_minutes);
  }
  std::vector<std::size_t> front;
  for (std::size_t k : pareto_front(time, device_minutes)) front.push_back(ok[k]);
  return front;
}

}  // namespace

std::vector<RankingCriterion> default_criteria(bool with_cost) {
  std::vector<RankingCriterion> c = {
      {"throughput", "throughput", "samples/s", 0.0, true, true, &ConfigMetrics::throughput},
      {"throughput_per_device", "throughput per device", "samples/s", 0.0, true, true,
       &ConfigMetrics::throughput_per_rank},
      {"time_to_train", "time to train", "min", 1.0, false, true,
       &ConfigMetrics::time_to_train_min},
      {"device_minutes", "device-minutes", "device-min", 1.0, false, true,
       &ConfigMetrics::device_minutes},
      {"scaling_efficiency", "scaling efficiency", "", 1.0, true, false,
       &ConfigMetrics::scaling_efficiency}};
  if (with_cost) c.push_back({"cost", "cost", "", 1.0, false, true, &ConfigMetrics::cost});
  return c;
}

void set_weights(std::vector<RankingCriterion>& criteria, std::string_view spec) {
  std::set<std::string_view> given;
  for (std::size_t begin = 0, end = 0; end != std::string_view::npos; begin = end + 1) {
    end = spec.find(',', begin);
    const std::string_view entry = spec.substr(begin, end - begin);
    const std::size_t eq = entry.find('=');
    const std::string_view name = entry.substr(0, eq);
    auto it = std::ranges::find(criteria, name, &RankingCriterion::name);
    double weight = -1;
    if (eq != std::string_view::npos) {
      const std::string_view text = entry.substr(eq + 1);
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), weight);
      if (ec != std::errc{} || ptr != text.data() + text.size()) weight = -1;
    }
    if (it == criteria.end() || !std::isfinite(weight) || weight < 0)
      throw std::invalid_argument("--weights entry '" + std::string(entry) +
                                  "': expected NAME=WEIGHT with a weight >= 0 and NAME one of " +
                                  names_of(criteria));
    if (!given.insert(name).second)
      throw std::invalid_argument("--weights " + std::string(spec) + ": " + std::string(name) +
                                  " is given twice");
    it->weight = weight;
  }
  if (std::ranges::all_of(criteria, [](const auto& c) { return c.weight == 0; }))
    throw std::invalid_argument("--weights " + std::string(spec) + ": every weight is 0");
}

Ranking rank_configurations(std::span<const ConfigMetrics> metrics,
                            std::vector<RankingCriterion> criteria) {
  Ranking r;
  r.criteria = std::move(criteria);
  r.scores.assign(metrics.size(), kNaN);
  const std::vector<std::size_t> ok = ok_indices(metrics);
  if (ok.empty()) throw std::invalid_argument("no configuration finished ok: nothing to rank");
  const auto matrix = decision_matrix(metrics, ok, r.criteria);
  const std::vector<double> scores = topsis_scores(matrix, topsis_criteria(r.criteria));
  for (std::size_t k : topsis_order(matrix, topsis_criteria(r.criteria))) {
    r.order.push_back(ok[k]);
    r.scores[ok[k]] = scores[k];
  }
  if (ok.size() >= 3 && distinct_rows(matrix) >= 2) {
    r.clustering = cluster_kmeans(standardise(clustering_input(matrix, r.criteria)));
    r.clustered = ok;
    r.clusters = rank_clusters(metrics, r, matrix);
  }
  r.pareto = front_of(metrics, ok);
  return r;
}

}  // namespace scaletune::autotune
