// The alpha-beta model across rank counts: it recovers the coefficients it was sampled from, and
// on the vTrain A100 all-reduce tables of ../shared/data/collectives (one node, 2 to 8 GPUs, 1 MiB
// to 1 GiB), fitted on 2, 4 and 8 GPUs, predicts 3, 5, 6 and 7 GPUs it never saw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/rank_count_model.hpp"
#include "tests/support/collective_rows.hpp"

namespace scaletune::autotune {
namespace {

/// An all-reduce row.
CollectiveRow row(int ranks, std::int64_t bytes, double time_us) {
  return testing_support::collective_row("all_reduce", ranks, bytes, time_us);
}

TEST(RankCountModel, RecoversTheCoefficientsItWasSampledFrom) {
  const RankCountModel truth{.op = "all_reduce",
                             .alpha0 = 8.0,
                             .alpha1 = 1.5,
                             .beta0 = 4e-6,
                             .beta1 = 3e-6,
                             .min_ranks = 0,
                             .max_ranks = 0};
  std::vector<CollectiveRow> rows;
  for (const int n : {2, 3, 6})
    for (int e = 10; e <= 30; e += 2)
      rows.push_back(row(n, std::int64_t{1} << e, truth.time_us(n, std::exp2(e))));
  const RankCountModel fit = fit_rank_count_model(rows);
  EXPECT_NEAR(fit.alpha0, 8.0, 1e-6);
  EXPECT_NEAR(fit.alpha1, 1.5, 1e-6);
  EXPECT_NEAR(fit.beta0, 4e-6, 1e-12);
  EXPECT_NEAR(fit.beta1, 3e-6, 1e-12);
  EXPECT_EQ(fit.min_ranks, 2);
  EXPECT_EQ(fit.max_ranks, 6);
  // 2 (n - 1) / n of the bytes cross the bus: 7/4 of them on 8 ranks.
  EXPECT_NEAR(fit.time_us(8, 1 << 20), 8.0 + 1.5 * 7 + (1 << 20) * 1.75 * (4e-6 + 3e-6 / 8), 1e-6);
}

TEST(RankCountModel, RefusesRowsOfOneRankCountOrWithoutABusFactor) {
  const std::vector<CollectiveRow> one_count = {row(4, 1024, 10), row(4, 2048, 12)};
  EXPECT_THROW(fit_rank_count_model(one_count), std::invalid_argument);
  std::vector<CollectiveRow> unknown_op = {row(2, 1024, 10), row(4, 2048, 12)};
  for (CollectiveRow& r : unknown_op) r.op = "unknown";
  EXPECT_THROW(fit_rank_count_model(unknown_op), std::invalid_argument);
}

/// The out-of-place rows of a vTrain table: bytes, count, type, time (ns), busbw, ...
std::vector<CollectiveRow> vtrain_rows(int gpus) {
  const std::filesystem::path path =
      std::filesystem::path(SCALETUNE_SHARED_DIR) /
      ("data/collectives/vtrain_a100_allreduce_" + std::to_string(gpus) + "gpu.csv");
  std::ifstream in(path);
  std::vector<CollectiveRow> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("size", 0) == 0) continue;
    std::stringstream fields(line);
    std::string bytes, count, type, time_ns;
    std::getline(fields, bytes, ',');
    std::getline(fields, count, ',');
    std::getline(fields, type, ',');
    std::getline(fields, time_ns, ',');
    rows.push_back(row(gpus, std::stoll(bytes), std::stod(time_ns) / 1e3));
  }
  EXPECT_EQ(rows.size(), 1024u) << path;
  return rows;
}

TEST(RankCountModel, PredictsA100RankCountsItNeverSaw) {
  std::vector<CollectiveRow> seen;
  for (const int n : {2, 4, 8})
    for (const CollectiveRow& r : vtrain_rows(n)) seen.push_back(r);
  const RankCountModel model = fit_rank_count_model(seen);
  std::printf("alpha %.2f + %.2f (n - 1) us, beta %.3g + %.3g / n us per bus byte\n", model.alpha0,
              model.alpha1, model.beta0, model.beta1);
  double worst = 0.0;
  for (const int n : {3, 5, 6, 7}) {
    double sum = 0.0;
    const std::vector<CollectiveRow> rows = vtrain_rows(n);
    for (const CollectiveRow& r : rows)
      sum += std::abs(model.time_us(n, static_cast<double>(r.bytes)) - r.time_us) / r.time_us;
    const double mape = sum / static_cast<double>(rows.size());
    std::printf("%d GPUs, never seen: MAPE %.2f%%\n", n, 100 * mape);
    worst = std::max(worst, mape);
  }
  EXPECT_LE(worst, 0.05);
}

}  // namespace
}  // namespace scaletune::autotune
