// TOPSIS (Hwang & Yoon 1981): the textbook's aircraft example, closeness against a naive
// double-loop reference written here from the published definition, hand-derived one-criterion
// values, the benefit/cost flip, the equal weights default and every rejected input.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "autotune/topsis.hpp"

namespace at = scaletune::autotune;
using Matrix = std::vector<std::vector<double>>;

namespace {

// Naive TOPSIS, loop by loop: normalise each column by its Euclidean norm, weight by w_j / sum w,
// take per-column ideal and anti-ideal, then C_i = S-_i / (S+_i + S-_i).
std::vector<double> naive_topsis(const Matrix& x, const std::vector<at::Criterion>& crit) {
  const std::size_t m = x.size(), n = crit.size();
  double w_sum = 0;
  for (const auto& c : crit) w_sum += c.weight;
  Matrix v(m, std::vector<double>(n));
  for (std::size_t j = 0; j < n; ++j) {
    double sq = 0;
    for (std::size_t i = 0; i < m; ++i) sq += x[i][j] * x[i][j];
    for (std::size_t i = 0; i < m; ++i) v[i][j] = crit[j].weight / w_sum * x[i][j] / std::sqrt(sq);
  }
  std::vector<double> closeness(m);
  for (std::size_t i = 0; i < m; ++i) {
    double d_best = 0, d_worst = 0;
    for (std::size_t j = 0; j < n; ++j) {
      double hi = v[0][j], lo = v[0][j];
      for (std::size_t k = 1; k < m; ++k) {
        hi = std::max(hi, v[k][j]);
        lo = std::min(lo, v[k][j]);
      }
      const double best = crit[j].benefit ? hi : lo;
      const double worst = crit[j].benefit ? lo : hi;
      d_best += (v[i][j] - best) * (v[i][j] - best);
      d_worst += (v[i][j] - worst) * (v[i][j] - worst);
    }
    closeness[i] = std::sqrt(d_worst) / (std::sqrt(d_best) + std::sqrt(d_worst));
  }
  return closeness;
}

// Four cars by price (cost), fuel economy km/l (benefit), power kW (benefit), comfort 1-10
// (benefit), weights 0.3 / 0.3 / 0.2 / 0.2: the shape of the textbook car-selection example.
const Matrix kCars = {
    {25000, 15.0, 110, 7}, {32000, 12.5, 150, 8}, {19000, 18.0, 80, 5}, {28000, 14.0, 120, 9}};
const std::vector<at::Criterion> kCarCriteria = {
    {0.3, false}, {0.3, true}, {0.2, true}, {0.2, true}};

}  // namespace

// The textbook example: Hwang & Yoon, "Multiple Attribute Decision Making" (Springer 1981),
// choosing among four fighter aircraft on maximum speed (Mach), ferry range (NM), maximum
// payload (lb), acquisition cost ($10^6, a cost), reliability and manoeuvrability (both rated on
// a 1-9 scale), weights 0.2, 0.1, 0.1, 0.1, 0.2, 0.3. The book's relative closeness: A1 0.643,
// A2 0.268, A3 0.613, A4 0.312 (from intermediate values rounded to 4 digits, hence the 1e-3
// tolerance), so the order A1, A3, A4, A2.
TEST(Topsis, TextbookAircraftExample) {
  const std::vector<std::vector<double>> aircraft = {{2.0, 1500, 20000, 5.5, 5, 9},
                                                     {2.5, 2700, 18000, 6.5, 3, 5},
                                                     {1.8, 2000, 21000, 4.5, 7, 7},
                                                     {2.2, 1800, 20000, 5.0, 5, 5}};
  const std::vector<at::Criterion> criteria = {{0.2, true},  {0.1, true}, {0.1, true},
                                               {0.1, false}, {0.2, true}, {0.3, true}};
  const std::vector<double> book = {0.643, 0.268, 0.613, 0.312};
  const std::vector<double> scores = at::topsis_scores(aircraft, criteria);
  for (std::size_t i = 0; i < book.size(); ++i) EXPECT_NEAR(scores[i], book[i], 1e-3) << i;
  EXPECT_EQ(at::topsis_order(aircraft, criteria), (std::vector<std::size_t>{0, 2, 3, 1}));
}

TEST(Topsis, MatchesNaiveReferenceOnCarSelection) {
  const std::vector<double> got = at::topsis_scores(kCars, kCarCriteria);
  const std::vector<double> want = naive_topsis(kCars, kCarCriteria);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << i;
}

TEST(Topsis, OrderIsDecreasingReferenceCloseness) {
  const std::vector<double> want = naive_topsis(kCars, kCarCriteria);
  const std::vector<std::size_t> order = at::topsis_order(kCars, kCarCriteria);
  ASSERT_EQ(order.size(), kCars.size());
  for (std::size_t k = 1; k < order.size(); ++k) EXPECT_GT(want[order[k - 1]], want[order[k]]);
}

TEST(Topsis, OneBenefitCriterionGivesLinearCloseness) {
  // One column [1, 2, 3]: r = x / sqrt(14); A+ = 3/sqrt(14), A- = 1/sqrt(14), so
  // C = (x - 1) / 2 = 0, 0.5, 1 whatever the weight.
  const std::vector<double> c = at::topsis_scores({{1}, {2}, {3}}, {{5.0, true}});
  EXPECT_NEAR(c[0], 0.0, 1e-15);
  EXPECT_NEAR(c[1], 0.5, 1e-15);
  EXPECT_NEAR(c[2], 1.0, 1e-15);
  EXPECT_EQ(at::topsis_order({{1}, {2}, {3}}, {{5.0, true}}), (std::vector<std::size_t>{2, 1, 0}));
}

TEST(Topsis, BenefitCostFlipReversesTwoAlternatives) {
  const Matrix x = {{2.0, 10.0}, {4.0, 30.0}};
  EXPECT_EQ(at::topsis_order(x, {{1, true}, {1, true}}), (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(at::topsis_order(x, {{1, false}, {1, false}}), (std::vector<std::size_t>{0, 1}));
  const std::vector<double> benefit = at::topsis_scores(x, {{1, true}, {1, true}});
  EXPECT_NEAR(benefit[0], 0.0, 1e-15);
  EXPECT_NEAR(benefit[1], 1.0, 1e-15);
}

TEST(Topsis, DefaultWeightsAreEqualAndScaleFree) {
  const std::vector<at::Criterion> defaults(4);
  const std::vector<at::Criterion> threes = {{3, true}, {3, true}, {3, true}, {3, true}};
  const std::vector<double> got = at::topsis_scores(kCars, defaults);
  const std::vector<double> scaled = at::topsis_scores(kCars, threes);
  const std::vector<double> want = naive_topsis(kCars, threes);
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-12) << i;
    EXPECT_NEAR(scaled[i], want[i], 1e-12) << i;
  }
}

TEST(Topsis, ZeroWeightIgnoresCriterionAndTiesGoToLowerIndex) {
  // Column 0 equal for both, column 1 zero-weighted: every criterion that counts is constant,
  // so all closeness values are 0.5 and the order keeps the input order.
  const Matrix x = {{3.0, 1.0}, {3.0, 9.0}, {3.0, 5.0}};
  const std::vector<at::Criterion> crit = {{1, true}, {0, true}};
  for (double c : at::topsis_scores(x, crit)) EXPECT_DOUBLE_EQ(c, 0.5);
  EXPECT_EQ(at::topsis_order(x, crit), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(Topsis, RejectsBadInput) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<at::Criterion> two(2);
  EXPECT_THROW(at::topsis_scores({}, two), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{}}, {}), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {3}}, two), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {3, 4}}, std::vector<at::Criterion>(3)),
               std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {3, 4}}, {{-1, true}, {1, true}}), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {3, 4}}, {{0, true}, {0, true}}), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {3, 4}}, {{nan, true}, {1, true}}),
               std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, nan}, {3, 4}}, two), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{1, 2}, {inf, 4}}, two), std::invalid_argument);
  EXPECT_THROW(at::topsis_scores({{0, 2}, {0, 4}}, two), std::invalid_argument);
  EXPECT_THROW(at::topsis_order({{0, 2}, {0, 4}}, two), std::invalid_argument);
}

TEST(Topsis, ErrorNamesTheProblem) {
  try {
    at::topsis_scores({{1, 2}, {3}}, std::vector<at::Criterion>(2));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
  }
}
