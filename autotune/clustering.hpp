#pragma once
// k-means clustering of configurations on standardised metrics, k chosen by mean silhouette.

#include <Eigen/Core>
#include <span>
#include <utility>
#include <vector>

namespace scaletune::autotune {

/// Columns scaled to mean 0 and standard deviation 1 (population sd, divisor n):
///   z_ij = (x_ij - mean_j) / sd_j.
/// A constant column (every value equal) becomes all 0.
/// x: [samples, features], any units per column. Returns [samples, features], dimensionless.
/// Throws std::invalid_argument on an empty matrix or a non-finite value (naming row and column).
Eigen::MatrixXd standardise(const Eigen::MatrixXd& x);

/// Mean silhouette width (Rousseeuw, "Silhouettes: a graphical aid to the interpretation and
/// validation of cluster analysis", J. Comput. Appl. Math. 20, 1987), Euclidean distance:
///   a(i) = mean distance from i to the other members of its own cluster,
///   b(i) = min over other clusters C of the mean distance from i to the members of C,
///   s(i) = (b(i) - a(i)) / max(a(i), b(i)),  result = mean over i of s(i), in [-1, 1].
/// A sample alone in its cluster has s(i) = 0 (Rousseeuw's convention); so has a sample with
/// a(i) = b(i) = 0 (duplicates of it on both sides), where the ratio is undefined.
/// x: [samples, features]; labels: [samples], cluster ids >= 0 (need not be contiguous).
/// Throws std::invalid_argument when labels.size() != rows, a label is negative, fewer than two
/// distinct labels are used, or x holds a non-finite value.
double silhouette_score(const Eigen::MatrixXd& x, std::span<const int> labels);

/// The chosen clustering of cluster_kmeans and the score of every k it tried.
struct Clustering {
  int k = 0;                ///< number of clusters chosen, each non-empty
  std::vector<int> labels;  ///< [samples], 0..k-1, numbered by first appearance in row order
  Eigen::MatrixXd centres;  ///< [k, features], member means in the input's (standardised) space
  std::vector<std::pair<int, double>> silhouette_by_k;  ///< (k, mean silhouette), increasing k
};

/// k-means (dlib's Lloyd iteration, seeded by dlib's deterministic k-means++ pick) for every k in
/// [k_min, min(k_max, rows - 1)]. Each k gets several deterministic starts (the seeding begins at
/// evenly spaced rows) and keeps the one with the least within-cluster sum of squares (ties: the
/// earlier start); the k with the highest mean silhouette (silhouette_score) is chosen, ties to
/// the smaller k. A k larger than the number of distinct rows, or whose every start leaves an
/// empty cluster, is skipped and absent from silhouette_by_k. Rows are used as given: call
/// standardise first to cluster on comparable scales. Same input, same output.
/// x: [samples, features]. Throws std::invalid_argument for fewer than 3 rows, no columns,
/// k_min < 2, k_min > min(k_max, rows - 1), a non-finite value, or when no k in range gives
/// k non-empty clusters (e.g. every row identical).
Clustering cluster_kmeans(const Eigen::MatrixXd& x, int k_min = 2, int k_max = 8);

}  // namespace scaletune::autotune
