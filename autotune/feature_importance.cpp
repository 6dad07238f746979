#include "autotune/feature_importance.hpp"

#include <dlib/random_forest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "autotune/detail/feature_matrix.hpp"

namespace scaletune::autotune {

namespace {

using Sample = dlib::matrix<double, 0, 1>;
using Forest = dlib::random_forest_regression_function<dlib::dense_feature_extractor>;

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("permutation_importance: " + what);
}

void check_options(const ImportanceOptions& o) {
  if (o.trees < 1) fail("trees is " + std::to_string(o.trees) + ", expected >= 1");
  if (o.folds < 2) fail("folds is " + std::to_string(o.folds) + ", expected >= 2");
  if (o.repeats < 1) fail("repeats is " + std::to_string(o.repeats) + ", expected >= 1");
}

/// The target standardised to mean 0 and population variance 1, so that an MSE on it is a
/// fraction of the original variance (and the forest's float leaves keep their precision).
std::vector<double> standardised(std::span<const double> target, std::size_t min_samples) {
  if (target.size() < min_samples)
    fail(std::to_string(target.size()) + " samples, expected at least " +
         std::to_string(min_samples) + " (2 per fold)");
  for (std::size_t i = 0; i < target.size(); ++i)
    if (!std::isfinite(target[i]))
      fail("target value " + std::to_string(i) + " is not finite, expected a finite number");
  const double n = static_cast<double>(target.size());
  const double mean = std::accumulate(target.begin(), target.end(), 0.0) / n;
  double ss = 0;
  for (const double y : target) ss += (y - mean) * (y - mean);
  const double sd = std::sqrt(ss / n);
  if (!(sd > 0.0)) fail("the target is constant, expected a target that varies");
  std::vector<double> z;
  for (const double y : target) z.push_back((y - mean) / sd);
  return z;
}

std::vector<Sample> to_samples(const std::vector<std::vector<double>>& rows) {
  std::vector<Sample> samples;
  for (const auto& row : rows) {
    Sample s(static_cast<long>(row.size()));
    for (std::size_t c = 0; c < row.size(); ++c) s(static_cast<long>(c)) = row[c];
    samples.push_back(s);
  }
  return samples;
}

/// Fold of each sample: a seeded shuffle of 0..n-1 dealt round-robin, so fold sizes differ by
/// at most one.
std::vector<int> fold_assignment(std::size_t n, int folds, std::mt19937_64& rng) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> fold(n);
  for (std::size_t i = 0; i < n; ++i) fold[order[i]] = static_cast<int>(i % folds);
  return fold;
}

struct Split {
  std::vector<Sample> train_x, test_x;
  std::vector<double> train_y, test_y;
};

Split split(const std::vector<Sample>& x, const std::vector<double>& y,
            const std::vector<int>& fold, int held_out) {
  Split s;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto& xs = fold[i] == held_out ? s.test_x : s.train_x;
    auto& ys = fold[i] == held_out ? s.test_y : s.train_y;
    xs.push_back(x[i]);
    ys.push_back(y[i]);
  }
  return s;
}

Forest train(const Split& s, const ImportanceOptions& o, int fold) {
  dlib::random_forest_regression_trainer<dlib::dense_feature_extractor> trainer;
  trainer.set_num_trees(static_cast<std::size_t>(o.trees));
  trainer.set_seed(std::to_string(o.seed) + "/" + std::to_string(fold));
  return trainer.train(s.train_x, s.train_y);
}

double mse(const Forest& forest, const std::vector<Sample>& x, const std::vector<double>& y) {
  double sse = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double error = forest(x[i]) - y[i];
    sse += error * error;
  }
  return sse / static_cast<double>(x.size());
}

/// `x` with the columns of `block` moved together between samples by a seeded shuffle.
std::vector<Sample> permuted(const std::vector<Sample>& x, const detail::ColumnBlock& block,
                             std::mt19937_64& rng) {
  std::vector<std::size_t> from(x.size());
  std::iota(from.begin(), from.end(), std::size_t{0});
  std::shuffle(from.begin(), from.end(), rng);
  std::vector<Sample> out = x;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t c = block.first; c < block.first + block.width; ++c)
      out[i](static_cast<long>(c)) = x[from[i]](static_cast<long>(c));
  return out;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

/// Sample standard deviation (divides by count - 1); 0 for a single value.
double sd_of(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean_of(v);
  double ss = 0;
  for (const double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

std::vector<FeatureImportance> ranked(std::span<const Feature> features,
                                      const std::vector<std::vector<double>>& increases) {
  std::vector<FeatureImportance> out;
  for (std::size_t j = 0; j < features.size(); ++j)
    out.push_back({features[j].name, mean_of(increases[j]), sd_of(increases[j])});
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.score > b.score; });
  return out;
}

}  // namespace

Feature categorical_feature(std::string name, std::span<const std::string> labels) {
  Feature f{std::move(name), true, {}};
  std::unordered_map<std::string, double> code;
  for (const auto& label : labels) {
    const auto it = code.try_emplace(label, static_cast<double>(code.size())).first;
    f.values.push_back(it->second);
  }
  return f;
}

ImportanceResult permutation_importance(std::span<const Feature> features,
                                        std::span<const double> target,
                                        const ImportanceOptions& options) {
  check_options(options);
  const std::vector<double> y = standardised(target, 2 * static_cast<std::size_t>(options.folds));
  const detail::FeatureMatrix matrix = detail::encode_features(features, y.size());
  const std::vector<Sample> x = to_samples(matrix.rows);

  std::mt19937_64 rng(options.seed);
  const std::vector<int> fold = fold_assignment(y.size(), options.folds, rng);
  std::vector<std::vector<double>> increases(features.size());
  double held_out_sse = 0;
  for (int k = 0; k < options.folds; ++k) {
    const Split s = split(x, y, fold, k);
    const Forest forest = train(s, options, k);
    const double base = mse(forest, s.test_x, s.test_y);
    held_out_sse += base * static_cast<double>(s.test_y.size());
    for (std::size_t j = 0; j < features.size(); ++j)
      for (int r = 0; r < options.repeats; ++r)
        increases[j].push_back(mse(forest, permuted(s.test_x, matrix.blocks[j], rng), s.test_y) -
                               base);
  }
  return {ranked(features, increases), 1.0 - held_out_sse / static_cast<double>(y.size()),
          static_cast<int>(y.size())};
}

}  // namespace scaletune::autotune
