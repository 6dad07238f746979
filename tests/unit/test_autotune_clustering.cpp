// k-means with the silhouette choice of k: silhouette_score against a naive pair-loop reference
// written here from Rousseeuw's definition and hand-computed examples, standardise against hand
// values, recovery of the true partition and k on generated well-separated Gaussian blobs,
// duplicate rows, the k range clamp, determinism and every rejected input.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "autotune/clustering.hpp"

namespace at = scaletune::autotune;

namespace {

double distance(const Eigen::MatrixXd& x, Eigen::Index i, Eigen::Index j) {
  double sq = 0.0;
  for (Eigen::Index c = 0; c < x.cols(); ++c) sq += (x(i, c) - x(j, c)) * (x(i, c) - x(j, c));
  return std::sqrt(sq);
}

// Rousseeuw (1987), sample by sample: a(i) is the mean distance to the other members of its
// cluster, b(i) the smallest mean distance to another cluster's members; s(i) = 0 for a singleton.
double naive_silhouette(const Eigen::MatrixXd& x, const std::vector<int>& labels) {
  const Eigen::Index n = x.rows();
  const int max_label = *std::max_element(labels.begin(), labels.end());
  double total = 0.0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const int own = labels[static_cast<std::size_t>(i)];
    double a_sum = 0.0, a_count = 0.0;
    double b = std::numeric_limits<double>::infinity();
    for (int c = 0; c <= max_label; ++c) {
      double sum = 0.0, count = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (j == i || labels[static_cast<std::size_t>(j)] != c) continue;
        sum += distance(x, i, j);
        count += 1.0;
      }
      if (c == own) {
        a_sum = sum;
        a_count = count;
      } else if (count > 0.0) {
        b = std::min(b, sum / count);
      }
    }
    if (a_count == 0.0) continue;
    const double a = a_sum / a_count;
    total += (b - a) / std::max(a, b);
  }
  return total / static_cast<double>(n);
}

// Same partition up to a renaming of labels: every pair of rows is together in both or apart in
// both (Rand index 1).
bool same_partition(const std::vector<int>& truth, const std::vector<int>& found) {
  if (truth.size() != found.size()) return false;
  for (std::size_t i = 0; i < truth.size(); ++i)
    for (std::size_t j = i + 1; j < truth.size(); ++j)
      if ((truth[i] == truth[j]) != (found[i] == found[j])) return false;
  return true;
}

struct Blobs {
  Eigen::MatrixXd x;
  std::vector<int> labels;
};

// per_blob points around each centre with independent N(0, sd^2) noise per coordinate; round p
// holds one point of every blob, starting at blob p mod k, so no cluster is a contiguous block.
Blobs make_blobs(const Eigen::MatrixXd& centres, int per_blob, double sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, sd);
  const auto k = static_cast<int>(centres.rows());
  Blobs b{Eigen::MatrixXd(k * per_blob, centres.cols()), {}};
  for (int p = 0; p < per_blob; ++p)
    for (int c = 0; c < k; ++c) {
      const int blob = (c + p) % k;
      for (Eigen::Index j = 0; j < centres.cols(); ++j)
        b.x(p * k + c, j) = centres(blob, j) + noise(rng);
      b.labels.push_back(blob);
    }
  return b;
}

Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  Eigen::MatrixXd x(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) x(i, j) = u(rng);
  return x;
}

void expect_first_appearance_order(const std::vector<int>& labels) {
  int next = 0;
  for (int label : labels) {
    ASSERT_LE(label, next);
    if (label == next) ++next;
  }
}

// Centres are the member means of the reported labels.
void expect_member_mean_centres(const Eigen::MatrixXd& x, const at::Clustering& c) {
  ASSERT_EQ(c.centres.rows(), c.k);
  ASSERT_EQ(c.centres.cols(), x.cols());
  for (int cluster = 0; cluster < c.k; ++cluster) {
    Eigen::RowVectorXd sum = Eigen::RowVectorXd::Zero(x.cols());
    int members = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i)
      if (c.labels[static_cast<std::size_t>(i)] == cluster) {
        sum += x.row(i);
        ++members;
      }
    ASSERT_GT(members, 0) << "cluster " << cluster << " is empty";
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      EXPECT_NEAR(c.centres(cluster, j), sum(j) / members, 1e-12);
  }
}

}  // namespace

TEST(Standardise, MatchesHandValuesWithPopulationSd) {
  Eigen::MatrixXd x(4, 3);
  x << 1, 2, 7.5, 2, 4, 7.5, 3, 6, 7.5, 4, 8, 7.5;
  // Column 0: mean 2.5, population variance (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25.
  // Column 1 is twice column 0, so it standardises to the same values; column 2 is constant.
  const double sd = std::sqrt(1.25);
  const double expected[4] = {-1.5 / sd, -0.5 / sd, 0.5 / sd, 1.5 / sd};
  const Eigen::MatrixXd z = at::standardise(x);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(z(i, 0), expected[i], 1e-15);
    EXPECT_NEAR(z(i, 1), expected[i], 1e-15);
    EXPECT_EQ(z(i, 2), 0.0);
  }
}

TEST(Standardise, ConstantColumnWithInexactMeanIsExactlyZero) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Constant(7, 1, 0.1);  // sum / 7 is not exactly 0.1
  EXPECT_TRUE(at::standardise(x).isZero(0.0));
}

TEST(Standardise, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(at::standardise(Eigen::MatrixXd(0, 2)), std::invalid_argument);
  Eigen::MatrixXd x = Eigen::MatrixXd::Ones(3, 2);
  x(2, 1) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(at::standardise(x), std::invalid_argument);
}

TEST(Silhouette, HandComputedOneDimensional) {
  // Points 0, 1 (cluster 0) and 10, 11 (cluster 1); every a(i) = 1.
  //   x=0:  b = (10 + 11) / 2 = 10.5, s = (10.5 - 1) / 10.5 = 9.5 / 10.5
  //   x=1:  b = (9 + 10) / 2 = 9.5,   s = 8.5 / 9.5
  //   x=10: b = (10 + 9) / 2 = 9.5,   s = 8.5 / 9.5
  //   x=11: b = (11 + 10) / 2 = 10.5, s = 9.5 / 10.5
  Eigen::MatrixXd x(4, 1);
  x << 0, 1, 10, 11;
  const std::vector<int> labels = {0, 0, 1, 1};
  EXPECT_NEAR(at::silhouette_score(x, labels), (9.5 / 10.5 + 8.5 / 9.5) / 2.0, 1e-15);
}

TEST(Silhouette, SingletonClusterScoresZero) {
  // 0, 1 in cluster 0, 10 alone: s(0) = (10 - 1) / 10 = 0.9, s(1) = (9 - 1) / 9, s(10) = 0.
  Eigen::MatrixXd x(3, 1);
  x << 0, 1, 10;
  const std::vector<int> labels = {0, 0, 1};
  EXPECT_NEAR(at::silhouette_score(x, labels), (0.9 + 8.0 / 9.0 + 0.0) / 3.0, 1e-15);
}

TEST(Silhouette, MatchesNaiveReferenceOnRandomData) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const Eigen::MatrixXd x = random_matrix(37, 4, seed);
    std::mt19937 rng(seed + 100);
    std::uniform_int_distribution<int> pick(0, 3);
    std::vector<int> labels(37);
    for (std::size_t i = 0; i < labels.size(); ++i)
      labels[i] = i < 4 ? static_cast<int>(i) : pick(rng);
    EXPECT_NEAR(at::silhouette_score(x, labels), naive_silhouette(x, labels), 1e-12)
        << "seed " << seed;
  }
}

TEST(Silhouette, LabelValuesNeedNotBeContiguous) {
  const Eigen::MatrixXd x = random_matrix(12, 2, 9);
  const std::vector<int> sparse = {5, 5, 9, 0, 9, 0, 5, 9, 0, 0, 5, 9};
  std::vector<int> dense(sparse.size());
  for (std::size_t i = 0; i < sparse.size(); ++i)
    dense[i] = sparse[i] == 0 ? 0 : sparse[i] == 5 ? 1 : 2;
  EXPECT_NEAR(at::silhouette_score(x, sparse), naive_silhouette(x, dense), 1e-12);
}

TEST(Silhouette, RejectsBadLabels) {
  const Eigen::MatrixXd x = random_matrix(4, 2, 3);
  EXPECT_THROW(at::silhouette_score(x, std::vector<int>{0, 1, 0}), std::invalid_argument);
  EXPECT_THROW(at::silhouette_score(x, std::vector<int>{0, 1, -1, 0}), std::invalid_argument);
  EXPECT_THROW(at::silhouette_score(x, std::vector<int>{2, 2, 2, 2}), std::invalid_argument);
  Eigen::MatrixXd bad = x;
  bad(1, 0) = std::nan("");
  EXPECT_THROW(at::silhouette_score(bad, std::vector<int>{0, 1, 0, 1}), std::invalid_argument);
}

TEST(ClusterKmeans, RecoversThreeBlobsIn2D) {
  Eigen::MatrixXd centres(3, 2);
  centres << 0, 0, 10, 0, 5, 9;
  const Blobs b = make_blobs(centres, 20, 0.5, 42);
  const Eigen::MatrixXd z = at::standardise(b.x);
  const at::Clustering c = at::cluster_kmeans(z);
  EXPECT_EQ(c.k, 3);
  EXPECT_TRUE(same_partition(b.labels, c.labels));
  expect_first_appearance_order(c.labels);
  expect_member_mean_centres(z, c);
}

TEST(ClusterKmeans, RecoversFiveBlobsIn4DAndScoresEveryK) {
  Eigen::MatrixXd centres(5, 4);
  centres << 0, 0, 0, 0, 8, 0, 0, 0, 0, 8, 0, 0, 0, 0, 8, 0, 0, 0, 0, 8;
  const Blobs b = make_blobs(centres, 15, 0.6, 7);
  const Eigen::MatrixXd z = at::standardise(b.x);
  const at::Clustering c = at::cluster_kmeans(z);
  EXPECT_EQ(c.k, 5);
  EXPECT_TRUE(same_partition(b.labels, c.labels));
  expect_first_appearance_order(c.labels);
  expect_member_mean_centres(z, c);
  // Every k in 2..8 is tried; the chosen one has the strictly highest score, equal to the naive
  // silhouette of the reported labels.
  ASSERT_EQ(c.silhouette_by_k.size(), 7u);
  for (std::size_t i = 0; i < c.silhouette_by_k.size(); ++i) {
    const auto [k, score] = c.silhouette_by_k[i];
    EXPECT_EQ(k, static_cast<int>(i) + 2);
    if (k == c.k)
      EXPECT_NEAR(score, naive_silhouette(z, c.labels), 1e-12);
    else
      EXPECT_LT(score, naive_silhouette(z, c.labels));
  }
}

TEST(ClusterKmeans, SameInputSameOutput) {
  const Eigen::MatrixXd x = random_matrix(40, 3, 11);
  const at::Clustering first = at::cluster_kmeans(x);
  const at::Clustering second = at::cluster_kmeans(x);
  EXPECT_EQ(first.k, second.k);
  EXPECT_EQ(first.labels, second.labels);
  EXPECT_EQ(first.centres, second.centres);
  EXPECT_EQ(first.silhouette_by_k, second.silhouette_by_k);
}

TEST(ClusterKmeans, ClampsKMaxToRowsMinusOne) {
  Eigen::MatrixXd x(5, 1);
  x << 0, 0.2, 5, 5.3, 11;
  const at::Clustering c = at::cluster_kmeans(x, 2, 8);
  ASSERT_EQ(c.silhouette_by_k.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(c.silhouette_by_k[i].first, static_cast<int>(i) + 2);
  // k = 3 groups {0, 0.2}, {5, 5.3}, {11}.
  EXPECT_EQ(c.k, 3);
  EXPECT_EQ(c.labels, (std::vector<int>{0, 0, 1, 1, 2}));
}

TEST(ClusterKmeans, DuplicateRowsLimitKToDistinctPoints) {
  // Three distinct points, each twice: k = 4 and 5 (allowed by rows - 1) cannot give non-empty
  // clusters and are skipped. At k = 3 every a(i) = 0 and b(i) > 0, so every s(i) = 1.
  Eigen::MatrixXd x(6, 2);
  x << 0, 0, 4, 1, 0, 0, 9, 9, 4, 1, 9, 9;
  const at::Clustering c = at::cluster_kmeans(x);
  ASSERT_EQ(c.silhouette_by_k.size(), 2u);
  EXPECT_EQ(c.silhouette_by_k[0].first, 2);
  EXPECT_EQ(c.silhouette_by_k[1].first, 3);
  EXPECT_DOUBLE_EQ(c.silhouette_by_k[1].second, 1.0);
  EXPECT_EQ(c.k, 3);
  EXPECT_EQ(c.labels, (std::vector<int>{0, 1, 0, 2, 1, 2}));
  expect_member_mean_centres(x, c);
}

TEST(ClusterKmeans, RejectsBadInput) {
  EXPECT_THROW(at::cluster_kmeans(random_matrix(2, 2, 1)), std::invalid_argument);
  EXPECT_THROW(at::cluster_kmeans(Eigen::MatrixXd(5, 0)), std::invalid_argument);
  EXPECT_THROW(at::cluster_kmeans(random_matrix(6, 2, 1), 1, 4), std::invalid_argument);
  EXPECT_THROW(at::cluster_kmeans(random_matrix(6, 2, 1), 4, 3), std::invalid_argument);
  EXPECT_THROW(at::cluster_kmeans(random_matrix(4, 2, 1), 4, 8), std::invalid_argument);
  Eigen::MatrixXd nan = random_matrix(6, 2, 1);
  nan(3, 1) = std::nan("");
  EXPECT_THROW(at::cluster_kmeans(nan), std::invalid_argument);
  EXPECT_THROW(at::cluster_kmeans(Eigen::MatrixXd::Ones(6, 2)), std::invalid_argument);
}
