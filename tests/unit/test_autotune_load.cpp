// load_results reads a result file written by the result library, and the metrics of the file
// read back equal those of the configurations as written.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "autotune/load.hpp"
#include "autotune/metrics.hpp"
#include "harness/results/result_file.hpp"
#include "tests/unit/test_autotune_fixtures.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;
namespace rt = scaletune::results::test;

namespace {

rs::ConfigResult config(int ranks) {
  const auto phase_s = [ranks](int r, int i, int p) {
    return (p == 0 ? 0.05 / ranks : 0.004 * ranks) * (1.0 + 0.01 * (r + i));
  };
  return at::testing::make_ok_config("r" + std::to_string(ranks), ranks, 128, 4,
                                     {"fwd", "allreduce"}, phase_s, 0.002);
}

void expect_same_number(double got, double want) {
  if (std::isnan(want))
    EXPECT_TRUE(std::isnan(got));
  else
    EXPECT_DOUBLE_EQ(got, want);
}

}  // namespace

TEST(AutotuneLoad, MetricsOfTheFileEqualMetricsOfWhatWasWritten) {
  const rt::TempDir dir;
  rs::ResultSet written;
  written.path = dir.file("sweep.h5");
  written.configs = {config(1), config(2), config(4),
                     at::testing::make_failed_config("r8", 8, 128, rs::Status::oom, "no memory")};
  {
    auto writer =
        rs::ResultWriter::create(written.path, rt::sample_provenance(), rt::sample_system());
    for (const rs::ConfigResult& c : written.configs) writer.write_config(c);
  }
  const rs::ResultSet loaded = at::load_results(written.path);
  EXPECT_EQ(loaded.path, written.path);
  const auto want = at::compute_metrics(written);
  const auto got = at::compute_metrics(loaded);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k].id, want[k].id);
    EXPECT_EQ(got[k].series, want[k].series);
    EXPECT_EQ(got[k].status, want[k].status);
    expect_same_number(got[k].throughput, want[k].throughput);
    expect_same_number(got[k].scaling_efficiency, want[k].scaling_efficiency);
    expect_same_number(got[k].shares.communication, want[k].shares.communication);
  }
  EXPECT_LT(got[2].scaling_efficiency, 1.0);
}

TEST(AutotuneLoad, AMissingFileIsAnErrorNamingIt) {
  const rt::TempDir dir;
  const std::string path = dir.file("absent.h5");
  try {
    at::load_results(path);
    FAIL() << "expected ResultError";
  } catch (const rs::ResultError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}
