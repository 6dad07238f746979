// Permutation feature importance with dlib random forests (Breiman 2001; Fisher, Rudin &
// Dominici 2019): generated data whose structure is known (a linear target, a categorical target,
// pure noise), where the reference is the population value of the importance of a perfect model,
// 2 * Var(contribution of the feature) / Var(y); the one-hot encoding against a hand-written
// matrix; determinism; every rejected input; and the shared MLPerf Training ResNet-50 CSV, where
// the accelerator must explain per-device throughput best.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "autotune/detail/feature_matrix.hpp"
#include "autotune/feature_importance.hpp"
#include "autotune/mlperf_import.hpp"

namespace at = scaletune::autotune;

namespace {

const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";

std::vector<double> uniform(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

/// Data with y = 10 a + 4 b + N(0, 0.1^2) and c independent of y, a, b, c ~ U(0, 1).
struct LinearData {
  std::vector<at::Feature> features;
  std::vector<double> y;
};

LinearData linear_data(std::size_t n) {
  std::mt19937_64 rng(7);
  LinearData d;
  for (const char* name : {"a", "b", "c"}) d.features.push_back({name, false, uniform(n, rng)});
  std::normal_distribution<double> noise(0.0, 0.1);
  for (std::size_t i = 0; i < n; ++i)
    d.y.push_back(10.0 * d.features[0].values[i] + 4.0 * d.features[1].values[i] + noise(rng));
  return d;
}

/// Permutation importance of a perfect model f(x) = sum_j g_j(x_j) of independent features:
/// permuting x_j adds E[(g_j(x) - g_j(x'))^2] = 2 Var(g_j) to the MSE; divided by Var(y).
double perfect_model_score(double var_contribution, double var_y) {
  return 2.0 * var_contribution / var_y;
}

const at::FeatureImportance& find(const at::ImportanceResult& r, const std::string& name) {
  for (const auto& f : r.features)
    if (f.feature == name) return f;
  throw std::out_of_range("no feature " + name);
}

std::string error_of(const std::vector<at::Feature>& features, const std::vector<double>& y,
                     const at::ImportanceOptions& options = {}) {
  try {
    at::permutation_importance(features, y, options);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

void print(const std::string& title, const at::ImportanceResult& r) {
  std::cout << title << " (" << r.samples << " samples, r2_cv " << std::setprecision(3) << r.r2_cv
            << ")\n";
  for (const auto& f : r.features)
    std::cout << "  " << std::setw(16) << f.feature << "  score " << std::setw(8) << f.score
              << "  spread " << f.spread << '\n';
}

}  // namespace

TEST(FeatureImportance, LinearTargetRanksByContribution) {
  const LinearData d = linear_data(300);
  const double var_y = 100.0 / 12 + 16.0 / 12 + 0.01;  // Var U(0,1) = 1/12
  const at::ImportanceResult r = at::permutation_importance(d.features, d.y);
  print("y = 10a + 4b + noise", r);

  ASSERT_EQ(r.features.size(), 3u);
  EXPECT_EQ(r.samples, 300);
  EXPECT_EQ(r.features[0].feature, "a");
  EXPECT_EQ(r.features[1].feature, "b");
  EXPECT_EQ(r.features[2].feature, "c");
  // A forest only approximates the plane, so its importance lies below the perfect model's.
  const double a_perfect = perfect_model_score(100.0 / 12, var_y);
  EXPECT_GT(find(r, "a").score, 0.5 * a_perfect);
  EXPECT_LT(find(r, "a").score, 1.1 * a_perfect);
  EXPECT_GT(find(r, "b").score, 0.02);
  EXPECT_LT(find(r, "b").score, 1.1 * perfect_model_score(16.0 / 12, var_y));
  EXPECT_LT(std::abs(find(r, "c").score), 0.05);
  EXPECT_GT(find(r, "a").spread, 0.0);
  EXPECT_GT(r.r2_cv, 0.8);
  EXPECT_LT(r.r2_cv, 1.0);
}

TEST(FeatureImportance, ScoresAreFractionsOfVarianceWhateverTheTargetUnit) {
  const LinearData d = linear_data(120);
  std::vector<double> y_ms;
  for (const double y : d.y) y_ms.push_back(1000.0 * y + 5.0);
  const at::ImportanceOptions o{.trees = 50, .folds = 4, .repeats = 3, .seed = 3};
  const at::ImportanceResult r = at::permutation_importance(d.features, d.y, o);
  const at::ImportanceResult r_ms = at::permutation_importance(d.features, y_ms, o);
  EXPECT_NEAR(r_ms.r2_cv, r.r2_cv, 1e-4);
  for (std::size_t j = 0; j < r.features.size(); ++j) {
    EXPECT_EQ(r_ms.features[j].feature, r.features[j].feature);
    EXPECT_NEAR(r_ms.features[j].score, r.features[j].score, 1e-4);
  }
}

TEST(FeatureImportance, DecidingCategoricalFeatureRanksFirst) {
  // y = mean of the category + N(0, 0.2^2); "load" is an unrelated number listed first.
  const std::vector<double> means = {1.0, 5.0, 2.0, 8.0};
  const std::size_t n = 200;
  std::mt19937_64 rng(11);
  at::Feature load{"load", false, uniform(n, rng)};
  at::Feature kind{"kind", true, {}};
  std::normal_distribution<double> noise(0.0, 0.2);
  std::vector<double> y;
  for (std::size_t i = 0; i < n; ++i) {
    kind.values.push_back(static_cast<double>(i % means.size()));
    y.push_back(means[i % means.size()] + noise(rng));
  }
  const double mean = (1.0 + 5.0 + 2.0 + 8.0) / 4;
  double var_means = 0;
  for (const double m : means) var_means += (m - mean) * (m - mean) / 4;

  const std::vector<at::Feature> features = {load, kind};
  const at::ImportanceResult r = at::permutation_importance(features, y);
  print("y = category mean + noise", r);
  EXPECT_EQ(r.features[0].feature, "kind");
  EXPECT_GT(r.features[0].score, 0.5 * perfect_model_score(var_means, var_means + 0.04));
  EXPECT_LT(std::abs(find(r, "load").score), 0.05);
  EXPECT_GT(r.r2_cv, 0.9);
}

TEST(FeatureImportance, PureNoiseTargetHasNoCrossValidatedFit) {
  const std::size_t n = 150;
  std::mt19937_64 rng(5);
  const std::vector<at::Feature> features = {{"x", false, uniform(n, rng)},
                                             {"z", false, uniform(n, rng)}};
  const std::vector<double> y = uniform(n, rng);
  const at::ImportanceResult r = at::permutation_importance(features, y, {.trees = 100});
  print("y independent of x and z", r);
  EXPECT_LT(r.r2_cv, 0.1);
  for (const auto& f : r.features) EXPECT_LT(std::abs(f.score), 0.1) << f.feature;
}

TEST(FeatureImportance, SameSeedSameResultOtherSeedOtherResult) {
  const LinearData d = linear_data(80);
  const at::ImportanceOptions o{.trees = 30, .folds = 4, .repeats = 2, .seed = 42};
  const at::ImportanceResult r1 = at::permutation_importance(d.features, d.y, o);
  const at::ImportanceResult r2 = at::permutation_importance(d.features, d.y, o);
  ASSERT_EQ(r1.features.size(), r2.features.size());
  EXPECT_EQ(r1.r2_cv, r2.r2_cv);
  for (std::size_t j = 0; j < r1.features.size(); ++j) {
    EXPECT_EQ(r1.features[j].feature, r2.features[j].feature);
    EXPECT_EQ(r1.features[j].score, r2.features[j].score);
    EXPECT_EQ(r1.features[j].spread, r2.features[j].spread);
  }
  at::ImportanceOptions other = o;
  other.seed = 43;
  EXPECT_NE(at::permutation_importance(d.features, d.y, other).r2_cv, r1.r2_cv);
}

TEST(FeatureImportance, CategoricalFeatureCodesFollowFirstAppearance) {
  const std::vector<std::string> labels = {"V100", "A100", "V100", "H100", "A100"};
  const at::Feature f = at::categorical_feature("accelerator", labels);
  EXPECT_EQ(f.name, "accelerator");
  EXPECT_TRUE(f.categorical);
  EXPECT_EQ(f.values, (std::vector<double>{0, 1, 0, 2, 1}));
}

TEST(FeatureImportance, CategoricalFeaturesAreOneHotBlocks) {
  const std::vector<at::Feature> features = {{"n", false, {0.5, 2.0, 7.0}}, {"k", true, {2, 0, 2}}};
  const auto m = at::detail::encode_features(features, 3);
  ASSERT_EQ(m.blocks.size(), 2u);
  EXPECT_EQ(m.blocks[0].first, 0u);
  EXPECT_EQ(m.blocks[0].width, 1u);
  EXPECT_EQ(m.blocks[1].first, 1u);
  EXPECT_EQ(m.blocks[1].width, 3u);
  const std::vector<std::vector<double>> expected = {
      {0.5, 0, 0, 1}, {2.0, 1, 0, 0}, {7.0, 0, 0, 1}};
  EXPECT_EQ(m.rows, expected);
}

TEST(FeatureImportance, RejectsBadInputNamingTheFeature) {
  const LinearData d = linear_data(20);
  EXPECT_NE(error_of({}, d.y).find("no features"), std::string::npos);

  auto short_b = d.features;
  short_b[1].values.pop_back();
  EXPECT_NE(error_of(short_b, d.y).find("feature 'b' has 19 values, expected 20"),
            std::string::npos);

  auto nan_c = d.features;
  nan_c[2].values[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of(nan_c, d.y).find("feature 'c' value 4"), std::string::npos);
  EXPECT_NE(error_of(nan_c, d.y).find("not finite"), std::string::npos);

  auto bad_code = d.features;
  bad_code[0].categorical = true;
  EXPECT_NE(error_of(bad_code, d.y).find("feature 'a' value 0"), std::string::npos);
  EXPECT_NE(error_of(bad_code, d.y).find("expected a whole number >= 0"), std::string::npos);

  auto y_inf = d.y;
  y_inf[3] = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of(d.features, y_inf).find("target value 3 is not finite"), std::string::npos);

  EXPECT_NE(error_of(d.features, std::vector<double>(20, 3.0)).find("target is constant"),
            std::string::npos);
  EXPECT_NE(error_of(d.features, d.y, {.folds = 11}).find("20 samples, expected at least 22"),
            std::string::npos);
  EXPECT_NE(error_of(d.features, d.y, {.trees = 0}).find("trees is 0"), std::string::npos);
  EXPECT_NE(error_of(d.features, d.y, {.folds = 1}).find("folds is 1"), std::string::npos);
  EXPECT_NE(error_of(d.features, d.y, {.repeats = 0}).find("repeats is 0"), std::string::npos);
}

TEST(FeatureImportance, AcceleratorExplainsMlperfPerDeviceThroughput) {
  const auto configs = at::read_mlperf_csv(kCsv).configs;
  std::vector<std::string> accelerator, host, framework;
  at::Feature ranks{"accelerators", false, {}}, nodes{"nodes", false, {}},
      batch{"global_batch", false, {}};
  std::vector<double> per_device;
  for (const auto& c : configs) {
    accelerator.push_back(c.text_attrs.at("accelerator"));
    host.push_back(c.text_attrs.at("host_processor"));
    framework.push_back(c.text_attrs.at("framework"));
    ranks.values.push_back(c.ranks);
    nodes.values.push_back(c.number_attrs.at("nodes"));
    batch.values.push_back(c.global_batch);
    per_device.push_back(c.throughput / c.ranks);
  }
  const std::vector<at::Feature> features = {ranks,
                                             nodes,
                                             batch,
                                             at::categorical_feature("host_processor", host),
                                             at::categorical_feature("framework", framework),
                                             at::categorical_feature("accelerator", accelerator)};
  const at::ImportanceResult r =
      at::permutation_importance(features, per_device, {.trees = 100, .repeats = 3});
  print("MLPerf ResNet-50 per-device throughput", r);
  EXPECT_EQ(r.samples, static_cast<int>(configs.size()));
  EXPECT_EQ(r.features[0].feature, "accelerator");
  EXPECT_GT(r.r2_cv, 0.5);
}
