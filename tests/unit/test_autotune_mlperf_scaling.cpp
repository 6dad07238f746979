// Scaling fits on real data: MLPerf Training v1.0-v3.1 ResNet-50 (closed division) results of
// NVIDIA H100-SXM5-80GB systems at global batch 3,200 (a strong-scaling series: the same global
// batch on 4 to 64 accelerators), accelerator count as ranks, approx_throughput_img_s as
// throughput. Rows whose logs repeat an earlier round's are dropped (data/README.md).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autotune/mlperf_csv_line.hpp"
#include "autotune/scaling_model.hpp"

namespace at = scaletune::autotune;

namespace {

const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";

/// The rows of the file as column name -> text.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = at::split_csv_line(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = at::split_csv_line(line);
    EXPECT_EQ(fields.size(), header.size()) << line;
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < header.size() && k < fields.size(); ++k) row[header[k]] = fields[k];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<at::ScalingPoint> h100_strong_scaling() {
  std::vector<at::ScalingPoint> pts;
  for (auto& row : read_csv(kCsv))
    if (row["accelerator"] == "NVIDIA H100-SXM5-80GB" && row["logs_identical_to_round"].empty() &&
        row["global_batch_size"] == "3200")
      pts.push_back(
          {std::stod(row["total_accelerators"]), std::stod(row["approx_throughput_img_s"])});
  return pts;
}

/// MAPE of predicting each point by the mean throughput at its rank count: the spread between
/// systems with the same accelerator count, which no function of the count alone removes.
double same_count_spread(const std::vector<at::ScalingPoint>& pts) {
  std::map<double, std::pair<double, int>> sums;
  for (const auto& pt : pts) {
    sums[pt.ranks].first += pt.throughput;
    ++sums[pt.ranks].second;
  }
  double mape = 0.0;
  for (const auto& pt : pts) {
    const double mean = sums[pt.ranks].first / sums[pt.ranks].second;
    mape += std::fabs(mean - pt.throughput) / pt.throughput;
  }
  return mape / static_cast<double>(pts.size());
}

}  // namespace

TEST(AutotuneMlperfScaling, TheSubsetIsAStrongScalingSeries) {
  const auto pts = h100_strong_scaling();
  std::set<double> counts;
  for (const auto& pt : pts) counts.insert(pt.ranks);
  EXPECT_EQ(pts.size(), 20u);
  EXPECT_EQ(counts, (std::set<double>{4, 8, 16, 32, 64}));
}

TEST(AutotuneMlperfScaling, UslFitsSubLinearScaling) {
  const auto pts = h100_strong_scaling();
  const at::FitAttempt usl = at::fit_usl(pts);
  ASSERT_TRUE(usl.fit.has_value()) << usl.reason;
  EXPECT_GT(usl.fit->param("X1"), 0.0);
  EXPECT_GT(usl.fit->param("sigma"), 0.0);  // sub-linear: per-accelerator throughput falls
  EXPECT_LT(usl.fit->param("sigma"), 1.0);
  EXPECT_GE(usl.fit->param("kappa"), 0.0);
  EXPECT_EQ(usl.fit->points, 20);
  // Bound: the same-count spread (about 1.6 %: e.g. 50,916 vs 56,021 img/s on 8 accelerators)
  // plus 3 points for the curve's shape over the 16x range of counts.
  EXPECT_LT(usl.fit->mape, same_count_spread(pts) + 0.03) << "spread " << same_count_spread(pts);
}

TEST(AutotuneMlperfScaling, AmdahlFitsSubLinearScaling) {
  const auto pts = h100_strong_scaling();
  const at::FitAttempt amdahl = at::fit_amdahl(pts);
  ASSERT_TRUE(amdahl.fit.has_value()) << amdahl.reason;
  EXPECT_GT(amdahl.fit->param("X1"), 0.0);
  EXPECT_GT(amdahl.fit->param("s"), 0.0);
  EXPECT_LE(amdahl.fit->param("s"), 1.0);
  EXPECT_LT(amdahl.fit->mape, same_count_spread(pts) + 0.03) << "spread " << same_count_spread(pts);
}
