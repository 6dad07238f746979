#pragma once
// Which features (accelerator, device count, nodes, host CPU, framework, global batch, swept
// settings) explain a metric such as per-device throughput: permutation importance of a random
// forest under k-fold cross-validation.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace scaletune::autotune {

/// One explanatory variable, one value per sample.
struct Feature {
  std::string name;            ///< "accelerator", "ranks", ...
  bool categorical = false;    ///< values are category codes 0, 1, 2, ... (whole numbers >= 0)
  std::vector<double> values;  ///< [samples]; a number in its own unit, or a category code
};

/// A categorical Feature named `name` from text labels ([samples]): each distinct label gets the
/// code of its first appearance (the first label 0, the next new one 1, ...).
Feature categorical_feature(std::string name, std::span<const std::string> labels);

/// Settings of permutation_importance().
struct ImportanceOptions {
  int trees = 200;         ///< trees per forest, >= 1
  int folds = 5;           ///< cross-validation folds, >= 2
  int repeats = 5;         ///< permutations per feature and fold, >= 1
  std::uint64_t seed = 1;  ///< fold assignment, permutations and forests all follow from it
};

/// The importance of one feature, in fractions of the target's variance.
struct FeatureImportance {
  std::string feature;  ///< Feature::name
  double score = 0;     ///< mean increase of the held-out MSE when the feature is permuted,
                        ///< divided by the target's variance
  double spread = 0;    ///< sample standard deviation of that increase over folds x repeats,
                        ///< same unit
};

/// What permutation_importance() found.
struct ImportanceResult {
  std::vector<FeatureImportance> features;  ///< highest score first (ties: input order)
  double r2_cv = 0;  ///< cross-validated R^2: 1 - (held-out squared error summed over all folds
                     ///< / samples) / variance of the target
  int samples = 0;   ///< samples used (the target's length)
};

/// Permutation feature importance of a random-forest regression of `target` on `features`
/// (Breiman, "Random Forests", Machine Learning 45, 2001, section 10; Fisher, Rudin & Dominici,
/// "All Models are Wrong, but Many are Useful", JMLR 20, 2019 (model reliance); as in
/// scikit-learn's sklearn.inspection.permutation_importance, here on held-out folds):
///   - the samples are dealt into `folds` folds by a shuffle seeded with options.seed;
///   - for each fold a forest (dlib random_forest_regression_trainer, options.trees trees, dlib's
///     defaults otherwise) is trained on the other folds and its held-out MSE measured;
///   - for each feature and repeat, that feature's values are shuffled among the held-out
///     samples (std::mt19937_64 + std::shuffle) and the increase of the held-out MSE recorded.
/// A categorical feature enters the forest one-hot (one column per code 0..max) and is permuted
/// as a whole. Variances and MSEs are population ones (divide by the count). Same inputs and seed
/// give the same result.
/// features: [features], each with values [samples]; target: [samples], any unit.
/// Throws std::invalid_argument naming the feature (or option) for: no features, a feature whose
/// length differs from the target's, a non-finite value, a categorical code that is not a whole
/// number >= 0, fewer than 2 * folds samples, a constant target, or options out of range.
ImportanceResult permutation_importance(std::span<const Feature> features,
                                        std::span<const double> target,
                                        const ImportanceOptions& options = {});

}  // namespace scaletune::autotune
