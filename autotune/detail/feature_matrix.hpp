#pragma once
// Features checked and encoded as the numeric columns a forest reads (internal to
// permutation_importance).

#include <cstddef>
#include <span>
#include <vector>

#include "autotune/feature_importance.hpp"

namespace scaletune::autotune::detail {

/// The columns [first, first + width) of a FeatureMatrix that hold one feature.
struct ColumnBlock {
  std::size_t first = 0;
  std::size_t width = 0;  ///< 1 for a numeric feature, max code + 1 for a categorical one
};

/// Features as a dense matrix: a numeric feature is one column, a categorical one a one-hot
/// group (1 in the column of the sample's code, 0 elsewhere).
struct FeatureMatrix {
  std::vector<std::vector<double>> rows;  ///< [samples][columns]
  std::vector<ColumnBlock> blocks;        ///< [features], in input order
};

/// Checks `features` against `samples` and encodes them. Throws std::invalid_argument
/// "permutation_importance: ..." for no features, a feature (named) whose length differs from
/// `samples`, a non-finite value, or a categorical code that is not a whole number >= 0 (the
/// message names the feature and the sample index).
FeatureMatrix encode_features(std::span<const Feature> features, std::size_t samples);

}  // namespace scaletune::autotune::detail
