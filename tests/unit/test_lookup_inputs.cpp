// Synthetic DLRM lookup inputs: the Zipf and uniform samplers
// against their exact laws, the reuse histogram of a Zipf sample against its expected value,
// and bag sizes around the pooling factor. Every check uses a fixed seed; tolerances are
// 4-5 standard errors of the statistic, so a correct sampler passes with near certainty and a
// wrong law (an exponent or row off by one) fails.

#include "kernels/host/lookup_inputs.hpp"
#include "kernels/host/reuse_histogram.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace sk = scaletune::kernels;

namespace {

constexpr std::int64_t k_samples = 1'000'000;

/// Generalised harmonic number H(rows, alpha) = sum_{k=1}^{rows} k^-alpha, summed from the
/// smallest term up.
double harmonic_exact(std::int64_t rows, double alpha) {
  double sum = 0.0;
  for (std::int64_t k = rows; k >= 1; --k) sum += std::pow(static_cast<double>(k), -alpha);
  return sum;
}

/// H(n, s) by the Euler-Maclaurin formula with f(x) = x^-s, summing the first m - 1 terms:
/// H = sum_{k<m} f(k) + int_m^n f + (f(m) + f(n))/2 + B2/2! (f'(n) - f'(m))
///     + B4/4! (f'''(n) - f'''(m)), B2 = 1/6, B4 = -1/30,
/// f'(x) = -s x^(-s-1), f'''(x) = -s (s+1) (s+2) x^(-s-3). The next term is of order
/// f^(5)(m) / 30240, below 1e-15 for m = 100.
double harmonic_euler_maclaurin(std::int64_t n_rows, double s) {
  constexpr std::int64_t m_rows = 100;
  const double m = m_rows;
  const double n = static_cast<double>(n_rows);
  double sum = 0.0;
  for (std::int64_t k = m_rows - 1; k >= 1; --k) sum += std::pow(static_cast<double>(k), -s);
  const double integral =
      s == 1.0 ? std::log(n / m) : (std::pow(n, 1.0 - s) - std::pow(m, 1.0 - s)) / (1.0 - s);
  const auto f1 = [s](double x) { return -s * std::pow(x, -s - 1.0); };
  const auto f3 = [s](double x) { return -s * (s + 1.0) * (s + 2.0) * std::pow(x, -s - 3.0); };
  return sum + integral + (std::pow(m, -s) + std::pow(n, -s)) / 2.0 + (f1(n) - f1(m)) / 12.0 -
         (f3(n) - f3(m)) / 720.0;
}

double harmonic(std::int64_t rows, double alpha) {
  return rows <= 100'000 ? harmonic_exact(rows, alpha) : harmonic_euler_maclaurin(rows, alpha);
}

/// Draws k_samples indices and checks each lies in [0, rows).
std::vector<std::int64_t> draw(const sk::IndexDistribution& law, std::int64_t rows,
                               std::uint64_t seed, std::int64_t count = k_samples) {
  const sk::IndexSampler sampler(law, rows);
  sk::InputRng rng(seed);
  std::vector<std::int64_t> out(static_cast<std::size_t>(count));
  for (auto& index : out) index = sampler(rng);
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end());
  EXPECT_GE(*lo, 0);
  EXPECT_LT(*hi, rows);
  return out;
}

}  // namespace

TEST(IndexSampler, RejectsBadArguments) {
  EXPECT_THROW(sk::IndexSampler({sk::IndexLaw::uniform, 0.0}, 0), std::invalid_argument);
  EXPECT_THROW(sk::IndexSampler({sk::IndexLaw::zipf, 0.0}, 10), std::invalid_argument);
  EXPECT_THROW(sk::IndexSampler({sk::IndexLaw::zipf, -1.0}, 10), std::invalid_argument);
}

TEST(Harmonic, EulerMaclaurinMatchesExactSum) {
  for (const double alpha : {0.8, 1.0, 1.05}) {
    for (const std::int64_t rows : {1'000, 100'000}) {
      const double exact = harmonic_exact(rows, alpha);
      EXPECT_NEAR(harmonic_euler_maclaurin(rows, alpha), exact, 1e-12 * exact) << alpha;
    }
  }
}

struct ZipfCase {
  double alpha;
  std::int64_t rows;
};

class ZipfSampling : public testing::TestWithParam<ZipfCase> {};

// Row 0 is drawn with probability 1 / H(rows, alpha); the count is binomial.
TEST_P(ZipfSampling, TopRowFrequencyMatchesExactProbability) {
  const auto [alpha, rows] = GetParam();
  const auto indices = draw({sk::IndexLaw::zipf, alpha}, rows, 42);
  const double p0 = 1.0 / harmonic(rows, alpha);
  const double frequency =
      static_cast<double>(std::count(indices.begin(), indices.end(), 0)) / k_samples;
  EXPECT_NEAR(frequency, p0, 4.0 * std::sqrt(p0 * (1.0 - p0) / k_samples));
}

// Pearson chi-square over rows 0..9 and "all others": 10 degrees of freedom; 29.588 is the
// upper 0.1% critical value (NIST/SEMATECH e-Handbook of Statistical Methods, table 1.3.6.7.4).
TEST_P(ZipfSampling, FirstTenRowsPassChiSquare) {
  const auto [alpha, rows] = GetParam();
  const auto indices = draw({sk::IndexLaw::zipf, alpha}, rows, 7);
  const double h = harmonic(rows, alpha);
  std::vector<double> observed(11, 0.0);
  for (const std::int64_t index : indices)
    observed[static_cast<std::size_t>(std::min<std::int64_t>(index, 10))] += 1.0;
  double chi_square = 0.0;
  double head_probability = 0.0;
  for (int r = 0; r < 10; ++r) {
    const double p = std::pow(r + 1.0, -alpha) / h;
    head_probability += p;
    chi_square += std::pow(observed[r] - k_samples * p, 2) / (k_samples * p);
  }
  const double tail = k_samples * (1.0 - head_probability);
  chi_square += std::pow(observed[10] - tail, 2) / tail;
  EXPECT_LT(chi_square, 29.588);
}

INSTANTIATE_TEST_SUITE_P(AlphasAndRows, ZipfSampling,
                         testing::Values(ZipfCase{1.05, 1'000}, ZipfCase{0.8, 1'000},
                                         ZipfCase{1.05, 10'000'000}, ZipfCase{0.8, 10'000'000}),
                         [](const testing::TestParamInfo<ZipfCase>& param_info) {
                           return "alpha" +
                                  std::to_string(std::lround(param_info.param.alpha * 100)) +
                                  "_rows" + std::to_string(param_info.param.rows);
                         });

// Mean (R-1)/2 with variance (R^2-1)/12; the maximum of n draws misses the top 30R/n rows with
// probability about e^-30.
TEST(UniformSampling, MeanAndExtremesMatchTheLaw) {
  for (const std::int64_t rows : {1'000, 10'000'000}) {
    const auto indices = draw({sk::IndexLaw::uniform, 0.0}, rows, 3);
    const double r = static_cast<double>(rows);
    const double mean =
        std::accumulate(indices.begin(), indices.end(), 0.0) / static_cast<double>(k_samples);
    EXPECT_NEAR(mean, (r - 1.0) / 2.0, 4.0 * std::sqrt((r * r - 1.0) / 12.0 / k_samples));
    const auto [lo, hi] = std::minmax_element(indices.begin(), indices.end());
    EXPECT_LE(*lo, 30.0 * r / k_samples);
    EXPECT_GE(*hi, r - 1.0 - 30.0 * r / k_samples);
  }
}

// Ten buckets of 100 rows each, 9 degrees of freedom; 27.877 is the upper 0.1% critical value
// (NIST/SEMATECH table 1.3.6.7.4).
TEST(UniformSampling, BucketsPassChiSquare) {
  const auto indices = draw({sk::IndexLaw::uniform, 0.0}, 1'000, 11);
  std::vector<double> observed(10, 0.0);
  for (const std::int64_t index : indices) observed[static_cast<std::size_t>(index / 100)] += 1.0;
  const double expected = k_samples / 10.0;
  double chi_square = 0.0;
  for (const double o : observed) chi_square += (o - expected) * (o - expected) / expected;
  EXPECT_LT(chi_square, 27.877);
}

namespace {

/// Expected reuse histogram of n draws from probabilities p: the count of row r is
/// Binomial(n, p_r), so E[unique rows in bin b] = sum_r P(count_r in bin b) and
/// E[unique rows] = sum_r (1 - (1 - p_r)^n). Terms beyond 12 standard deviations of each
/// row's count (below 1e-30) are left out. Also returns, per bin, the standard deviation of
/// the number of rows in it, taking rows as independent: sqrt(sum_r q_rb (1 - q_rb)).
struct ExpectedReuse {
  std::vector<double> rows_in_bin;
  std::vector<double> rows_in_bin_sd;
  double unique_rows = 0.0;
  double unique_rows_sd = 0.0;
};

ExpectedReuse expected_reuse(const std::vector<double>& p, std::int64_t n) {
  ExpectedReuse out{std::vector<double>(sk::reuse_bin_count, 0.0),
                    std::vector<double>(sk::reuse_bin_count, 0.0)};
  const double nd = static_cast<double>(n);
  double unique_var = 0.0;
  for (const double pr : p) {
    std::vector<double> q(sk::reuse_bin_count, 0.0);
    const double mean = nd * pr;
    const double sd = std::sqrt(nd * pr * (1.0 - pr));
    const auto k_lo = std::max<std::int64_t>(1, static_cast<std::int64_t>(mean - 12.0 * sd));
    const auto k_hi = std::min<std::int64_t>(n, static_cast<std::int64_t>(mean + 12.0 * sd) + 12);
    for (std::int64_t k = k_lo; k <= k_hi; ++k) {
      const double kd = static_cast<double>(k);
      const double log_pmf = std::lgamma(nd + 1.0) - std::lgamma(kd + 1.0) -
                             std::lgamma(nd - kd + 1.0) + kd * std::log(pr) +
                             (nd - kd) * std::log1p(-pr);
      // Bin of count k by the definition: (0,1], then (2^(b-1), 2^b], then (2^15, inf).
      std::size_t bin = 0;
      while (bin < 16 && kd > std::ldexp(1.0, static_cast<int>(bin))) ++bin;
      q[bin] += std::exp(log_pmf);
    }
    for (std::size_t b = 0; b < q.size(); ++b) {
      out.rows_in_bin[b] += q[b];
      out.rows_in_bin_sd[b] += q[b] * (1.0 - q[b]);
    }
    const double hit = -std::expm1(nd * std::log1p(-pr));
    out.unique_rows += hit;
    unique_var += hit * (1.0 - hit);
  }
  for (double& v : out.rows_in_bin_sd) v = std::sqrt(v);
  out.unique_rows_sd = std::sqrt(unique_var);
  return out;
}

}  // namespace

// share_b = U_b / U; its sampling error is taken as (sd(U_b) + share_b sd(U)) / E[U].
TEST(ZipfReuseHistogram, MatchesExpectedBinomialShares) {
  constexpr std::int64_t rows = 1'000;
  constexpr std::int64_t n = 100'000;
  for (const double alpha : {1.05, 0.8}) {
    const double h = harmonic_exact(rows, alpha);
    std::vector<double> p(rows);
    for (std::int64_t r = 0; r < rows; ++r) p[r] = std::pow(r + 1.0, -alpha) / h;
    const ExpectedReuse expected = expected_reuse(p, n);
    const auto indices = draw({sk::IndexLaw::zipf, alpha}, rows, 2024, n);
    const sk::ReuseHistogram shares = sk::reuse_histogram(indices);
    double total_expected = 0.0;
    for (std::size_t b = 0; b < sk::reuse_bin_count; ++b) {
      const double share = expected.rows_in_bin[b] / expected.unique_rows;
      total_expected += share;
      const double tolerance = 5.0 *
                                   (expected.rows_in_bin_sd[b] + share * expected.unique_rows_sd) /
                                   expected.unique_rows +
                               1e-9;
      EXPECT_NEAR(shares[b], share, tolerance) << "alpha " << alpha << " bin " << b;
    }
    EXPECT_NEAR(total_expected, 1.0, 1e-9);
  }
}

namespace {

sk::LookupBatchSpec spec_with(double pooling, sk::BagSizeLaw law, std::uint64_t seed) {
  sk::LookupBatchSpec spec;
  spec.batch = 100'000;
  spec.pooling = pooling;
  spec.bag_law = law;
  spec.distribution = {sk::IndexLaw::zipf, 1.05};
  spec.rows = 1'000'000;
  spec.seed = seed;
  return spec;
}

std::vector<std::int64_t> bag_sizes(const sk::LookupBatch& batch) {
  std::vector<std::int64_t> sizes(batch.offsets.size() - 1);
  for (std::size_t b = 0; b < sizes.size(); ++b) sizes[b] = batch.offsets[b + 1] - batch.offsets[b];
  return sizes;
}

void expect_valid_csr(const sk::LookupBatch& batch, const sk::LookupBatchSpec& spec) {
  ASSERT_EQ(batch.offsets.size(), static_cast<std::size_t>(spec.batch) + 1);
  EXPECT_EQ(batch.offsets.front(), 0);
  EXPECT_EQ(batch.offsets.back(), static_cast<std::int64_t>(batch.indices.size()));
  EXPECT_TRUE(std::is_sorted(batch.offsets.begin(), batch.offsets.end()));
  const auto [lo, hi] = std::minmax_element(batch.indices.begin(), batch.indices.end());
  EXPECT_GE(*lo, 0);
  EXPECT_LT(*hi, spec.rows);
}

}  // namespace

// Bag size 1 + Poisson(pooling - 1): mean pooling, variance pooling - 1; the sample variance
// of B Poisson(l) draws has variance about (l + 2 l^2) / B (fourth central moment l (1 + 3 l)).
TEST(BagSizes, PoissonLawHasMeanPoolingAndPoissonVariance) {
  for (const double pooling : {1.5, 20.5, 150.25}) {
    const auto spec = spec_with(pooling, sk::BagSizeLaw::poisson, 5);
    const auto batch = sk::generate_lookup_batch(spec);
    expect_valid_csr(batch, spec);
    const auto sizes = bag_sizes(batch);
    const double b = static_cast<double>(sizes.size());
    const double mean = std::accumulate(sizes.begin(), sizes.end(), 0.0) / b;
    double var = 0.0;
    for (const auto s : sizes) var += (s - mean) * (s - mean);
    var /= b - 1.0;
    const double l = pooling - 1.0;
    EXPECT_NEAR(mean, pooling, 4.0 * std::sqrt(l / b)) << pooling;
    EXPECT_NEAR(var, l, 5.0 * std::sqrt((l + 2.0 * l * l) / b)) << pooling;
    EXPECT_GE(*std::min_element(sizes.begin(), sizes.end()), 1);
  }
}

TEST(BagSizes, PoolingOneGivesSingleLookups) {
  const auto batch = sk::generate_lookup_batch(spec_with(1.0, sk::BagSizeLaw::poisson, 9));
  for (const auto s : bag_sizes(batch)) ASSERT_EQ(s, 1);
}

TEST(BagSizes, FixedLawGivesExactlyPooling) {
  const auto spec = spec_with(8.0, sk::BagSizeLaw::fixed, 9);
  const auto batch = sk::generate_lookup_batch(spec);
  expect_valid_csr(batch, spec);
  for (const auto s : bag_sizes(batch)) ASSERT_EQ(s, 8);
}

TEST(LookupBatch, SameSeedSameBatchOtherSeedOtherBatch) {
  auto spec = spec_with(4.5, sk::BagSizeLaw::poisson, 17);
  spec.batch = 1'000;
  const auto first = sk::generate_lookup_batch(spec);
  const auto again = sk::generate_lookup_batch(spec);
  EXPECT_EQ(first.offsets, again.offsets);
  EXPECT_EQ(first.indices, again.indices);
  spec.seed = 18;
  EXPECT_NE(sk::generate_lookup_batch(spec).indices, first.indices);
}

TEST(LookupBatch, RejectsBadSpecs) {
  const auto expect_error = [](sk::LookupBatchSpec spec, const std::string& field) {
    try {
      sk::generate_lookup_batch(spec);
      ADD_FAILURE() << "no error for bad " << field;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  auto spec = spec_with(4.0, sk::BagSizeLaw::poisson, 1);
  spec.batch = 0;
  expect_error(spec, "batch");
  spec = spec_with(0.5, sk::BagSizeLaw::poisson, 1);
  expect_error(spec, "pooling");
  spec = spec_with(std::nan(""), sk::BagSizeLaw::poisson, 1);
  expect_error(spec, "pooling");
  spec = spec_with(8.5, sk::BagSizeLaw::fixed, 1);
  expect_error(spec, "integer");
  spec = spec_with(4.0, sk::BagSizeLaw::poisson, 1);
  spec.rows = 0;
  expect_error(spec, "rows");
}
