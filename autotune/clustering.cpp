#include "autotune/clustering.hpp"

#include <dlib/clustering.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace scaletune::autotune {

namespace {

using Sample = dlib::matrix<double, 0, 1>;

/// Starts per k: the k-means++ seeding begins at this many evenly spaced rows (fewer if fewer
/// rows).
constexpr Eigen::Index kMaxStarts = 10;

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("clustering: " + what);
}

void check_finite(const Eigen::MatrixXd& x, const std::string& caller) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      if (!std::isfinite(x(i, j)))
        fail(caller + ": value at row " + std::to_string(i) + ", column " + std::to_string(j) +
             " is not finite, expected a finite number");
}

/// [n, n] Euclidean distances between the rows of x.
Eigen::MatrixXd pairwise_distances(const Eigen::MatrixXd& x) {
  const Eigen::Index n = x.rows();
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = i + 1; j < n; ++j) d(i, j) = d(j, i) = (x.row(i) - x.row(j)).norm();
  return d;
}

/// Mean silhouette from a distance matrix; cluster[i] in 0..n_clusters-1, every cluster used.
double mean_silhouette(const Eigen::MatrixXd& dist, const std::vector<int>& cluster,
                       int n_clusters) {
  const Eigen::Index n = dist.rows();
  std::vector<double> size(static_cast<std::size_t>(n_clusters), 0.0);
  for (int c : cluster) size[static_cast<std::size_t>(c)] += 1.0;
  double total = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    std::vector<double> sum(static_cast<std::size_t>(n_clusters), 0.0);
    for (Eigen::Index j = 0; j < n; ++j)
      sum[static_cast<std::size_t>(cluster[static_cast<std::size_t>(j)])] += dist(i, j);
    const auto own = static_cast<std::size_t>(cluster[static_cast<std::size_t>(i)]);
    if (size[own] < 2.0) continue;  // alone in its cluster: s(i) = 0
    const double a = sum[own] / (size[own] - 1.0);
    double b = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < size.size(); ++c)
      if (c != own) b = std::min(b, sum[c] / size[c]);
    const double scale = std::max(a, b);
    if (scale > 0.0) total += (b - a) / scale;
  }
  return total / static_cast<double>(n);
}

/// Labels mapped to 0..m-1 by first appearance in row order.
std::vector<int> relabel_by_first_appearance(std::span<const int> labels) {
  std::vector<int> seen;
  std::vector<int> out;
  out.reserve(labels.size());
  for (int label : labels) {
    const auto it = std::find(seen.begin(), seen.end(), label);
    out.push_back(static_cast<int>(it - seen.begin()));
    if (it == seen.end()) seen.push_back(label);
  }
  return out;
}

Eigen::Index count_distinct_rows(const Eigen::MatrixXd& x) {
  Eigen::Index distinct = 0;
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    bool repeat = false;
    for (Eigen::Index j = 0; j < i && !repeat; ++j)
      repeat = (x.row(i).array() == x.row(j).array()).all();
    if (!repeat) ++distinct;
  }
  return distinct;
}

/// Rows of x as dlib column vectors, starting at row `first` and wrapping around.
std::vector<Sample> to_samples(const Eigen::MatrixXd& x, Eigen::Index first) {
  std::vector<Sample> samples;
  samples.reserve(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const Eigen::Index i = (first + r) % x.rows();
    Sample s(x.cols());
    for (Eigen::Index j = 0; j < x.cols(); ++j) s(j) = x(i, j);
    samples.push_back(s);
  }
  return samples;
}

/// One k-means result: labels by first appearance, member-mean centres, within-cluster SS.
struct Partition {
  std::vector<int> labels;
  Eigen::MatrixXd centres;
  double wcss = 0.0;
};

/// Each row to its nearest centre (ties to the lower index, as dlib does); std::nullopt when a
/// centre gets no row.
std::optional<Partition> assign_to_centres(const Eigen::MatrixXd& x,
                                           const std::vector<Sample>& centres) {
  const auto k = static_cast<Eigen::Index>(centres.size());
  Eigen::MatrixXd c(k, x.cols());
  for (Eigen::Index r = 0; r < k; ++r)
    for (Eigen::Index j = 0; j < x.cols(); ++j) c(r, j) = centres[static_cast<std::size_t>(r)](j);
  std::vector<int> nearest(static_cast<std::size_t>(x.rows()));
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    Eigen::Index best = 0;
    (c.rowwise() - x.row(i)).rowwise().squaredNorm().minCoeff(&best);
    nearest[static_cast<std::size_t>(i)] = static_cast<int>(best);
  }
  Partition p;
  p.labels = relabel_by_first_appearance(nearest);
  if (*std::max_element(p.labels.begin(), p.labels.end()) + 1 < k) return std::nullopt;
  p.centres = Eigen::MatrixXd::Zero(k, x.cols());
  Eigen::VectorXd members = Eigen::VectorXd::Zero(k);
  for (Eigen::Index i = 0; i < x.rows(); ++i) {
    p.centres.row(p.labels[static_cast<std::size_t>(i)]) += x.row(i);
    members(p.labels[static_cast<std::size_t>(i)]) += 1.0;
  }
  p.centres.array().colwise() /= members.array();
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    p.wcss += (x.row(i) - p.centres.row(p.labels[static_cast<std::size_t>(i)])).squaredNorm();
  return p;
}

/// dlib's seeding and Lloyd iteration from several starting rows; the least-WCSS partition with k
/// non-empty clusters, or std::nullopt when every start leaves a cluster empty.
std::optional<Partition> best_kmeans(const Eigen::MatrixXd& x, int k) {
  const Eigen::Index starts = std::min(kMaxStarts, x.rows());
  std::optional<Partition> best;
  for (Eigen::Index s = 0; s < starts; ++s) {
    const std::vector<Sample> samples = to_samples(x, s * x.rows() / starts);
    std::vector<Sample> centres;
    dlib::pick_initial_centers(k, centres, samples);
    dlib::find_clusters_using_kmeans(samples, centres);
    std::optional<Partition> p = assign_to_centres(x, centres);
    if (p && (!best || p->wcss < best->wcss)) best = std::move(p);
  }
  return best;
}

}  // namespace

Eigen::MatrixXd standardise(const Eigen::MatrixXd& x) {
  if (x.rows() == 0 || x.cols() == 0)
    fail("standardise: empty matrix, expected at least one row and one column");
  check_finite(x, "standardise");
  Eigen::MatrixXd z = x.rowwise() - x.colwise().mean();
  for (Eigen::Index j = 0; j < z.cols(); ++j) {
    if (x.col(j).maxCoeff() == x.col(j).minCoeff()) {
      z.col(j).setZero();  // constant column: exact 0, not rounding noise over a zero sd
      continue;
    }
    z.col(j) /= std::sqrt(z.col(j).squaredNorm() / static_cast<double>(z.rows()));
  }
  return z;
}

double silhouette_score(const Eigen::MatrixXd& x, std::span<const int> labels) {
  if (static_cast<Eigen::Index>(labels.size()) != x.rows())
    fail("silhouette_score: " + std::to_string(labels.size()) + " labels for " +
         std::to_string(x.rows()) + " rows, expected one label per row");
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] < 0)
      fail("silhouette_score: label of row " + std::to_string(i) + " is " +
           std::to_string(labels[i]) + ", expected a cluster id >= 0");
  check_finite(x, "silhouette_score");
  const std::vector<int> cluster = relabel_by_first_appearance(labels);
  const int n_clusters = labels.empty() ? 0 : *std::max_element(cluster.begin(), cluster.end()) + 1;
  if (n_clusters < 2)
    fail("silhouette_score: " + std::to_string(n_clusters) +
         " cluster(s) used, expected at least 2");
  return mean_silhouette(pairwise_distances(x), cluster, n_clusters);
}

Clustering cluster_kmeans(const Eigen::MatrixXd& x, int k_min, int k_max) {
  if (x.rows() < 3)
    fail("cluster_kmeans: " + std::to_string(x.rows()) + " rows, expected at least 3");
  if (x.cols() == 0) fail("cluster_kmeans: no columns, expected at least one feature");
  if (k_min < 2) fail("cluster_kmeans: k_min = " + std::to_string(k_min) + ", expected >= 2");
  const int k_hi = static_cast<int>(std::min<Eigen::Index>(k_max, x.rows() - 1));
  if (k_min > k_hi)
    fail("cluster_kmeans: k_min = " + std::to_string(k_min) +
         " exceeds min(k_max = " + std::to_string(k_max) +
         ", rows - 1 = " + std::to_string(x.rows() - 1) + "), expected k_min <= both");
  check_finite(x, "cluster_kmeans");
  const Eigen::MatrixXd dist = pairwise_distances(x);
  const Eigen::Index distinct = count_distinct_rows(x);
  Clustering best;
  double best_score = -std::numeric_limits<double>::infinity();
  for (int k = k_min; k <= std::min<Eigen::Index>(k_hi, distinct); ++k) {
    std::optional<Partition> p = best_kmeans(x, k);
    if (!p) continue;
    const double score = mean_silhouette(dist, p->labels, k);
    best.silhouette_by_k.emplace_back(k, score);
    if (score > best_score) {
      best_score = score;
      best.k = k;
      best.labels = std::move(p->labels);
      best.centres = std::move(p->centres);
    }
  }
  if (best.k == 0)
    fail("cluster_kmeans: " + std::to_string(distinct) + " distinct row(s) of " +
         std::to_string(x.rows()) + " give no k in [" + std::to_string(k_min) + ", " +
         std::to_string(k_hi) + "] with k non-empty clusters, expected at least 2 distinct rows");
  return best;
}

}  // namespace scaletune::autotune
