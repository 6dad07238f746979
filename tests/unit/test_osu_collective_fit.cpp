// `scaletune fit` on imported OSU collective rows, as on nccl-tests rows: the real
// osu_allreduce tables of tests/data/osu give all_reduce curves at their rank counts, under
// the op name the performance model looks up for a traced all-reduce; scaletune's own rows and
// imported logs are not mixed in one model across rank counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"
#include "autotune/model_fitting.hpp"
#include "autotune/performance_model.hpp"
#include "tests/support/fit_helpers.hpp"

namespace at = scaletune::autotune;
namespace results = scaletune::results;
namespace trace = scaletune::trace;

namespace {

using scaletune::testing_support::all_reduce;
using scaletune::testing_support::report_line;

const std::string k_data_dir = SCALETUNE_SOURCE_DIR "/tests/data/osu/";

/// A result set holding the /collectives rows of the OSU log `name` run on `ranks` ranks.
results::ResultSet imported(const std::string& name, int ranks) {
  std::ifstream in(k_data_dir + name);
  EXPECT_TRUE(in) << "cannot open " << k_data_dir + name;
  std::ostringstream text;
  text << in.rdbuf();
  results::ResultSet set;
  set.path = name + ".h5";
  set.collectives = at::parse_osu_log(text.str(), name, ranks);
  return set;
}

}  // namespace

TEST(OsuCollectiveFit, AllreduceTablesGiveCurvesThePerformanceModelUses) {
  const std::vector<results::ResultSet> inputs = {
      imported("osu_allreduce_c220g5_8ranks_v7.0_full.log", 8),
      imported("osu_allreduce_oci_x9_144ranks_int.log", 144)};
  const at::FitResult fit = at::fit_models(inputs);
  for (const auto& [what, points] : std::vector<std::pair<std::string, int>>{
           {"all_reduce on 8 ranks", 19}, {"all_reduce on 144 ranks", 27}}) {
    const at::FitLine* line = report_line(fit, what);
    ASSERT_NE(line, nullptr) << what;
    EXPECT_EQ(line->model, "curve") << what << ": " << line->note;
    EXPECT_EQ(line->points, points) << what;
  }
  const at::PerformanceModel model(fit.models);
  // At a fitted size the curve, corrected by its residual there, gives the measured time:
  // "1048576  4225.22 ..." (8 ranks), "268435456  496306.98" (144 ranks).
  EXPECT_NEAR(model.collective_time_s(all_reduce(1048576, 8)), 4225.22e-6, 1e-3 * 4225.22e-6);
  EXPECT_NEAR(model.collective_time_s(all_reduce(268435456, 144)), 496306.98e-6,
              1e-3 * 496306.98e-6);
  EXPECT_EQ(model.collective_basis(all_reduce(1048576, 8)).text(),
            "all_reduce curve at 8 ranks (from osu:osu_allreduce_c220g5_8ranks_v7.0_full.log)");
  // Two rank counts: the model across rank counts covers the others, from 8 to 144.
  EXPECT_NE(report_line(fit, "all_reduce across ranks"), nullptr);
  EXPECT_GT(model.collective_time_s(all_reduce(1048576, 32)), 0.0);
}

TEST(OsuCollectiveFit, OwnRowsAndImportedLogsAreNotMixedAcrossRankCounts) {
  // Imported logs on 8 and 144 ranks plus scaletune's own all-reduce rows on 2 ranks (a host
  // profile, 1000x slower per byte): the model across rank counts is the one the imported logs
  // alone give, and the report says the own rows were left out.
  std::vector<results::ResultSet> inputs = {
      imported("osu_allreduce_c220g5_8ranks_v7.0_full.log", 8),
      imported("osu_allreduce_oci_x9_144ranks_int.log", 144)};
  const at::PerformanceModel logs_only(at::fit_models(inputs).models);
  results::ResultSet own;
  own.path = "profile.h5";
  for (std::int64_t bytes = 8; bytes <= (1 << 20); bytes *= 4) {
    results::CollectiveResult r;
    r.op = "all_reduce";
    r.dtype = "fp32";
    r.bytes = bytes;
    r.ranks = 2;
    r.time_us = 50.0 + 1e-3 * static_cast<double>(bytes);
    r.source = "scaletune:collectives-r2-fp32";
    own.collectives.push_back(r);
  }
  inputs.push_back(own);
  const at::FitResult fit = at::fit_models(inputs);
  const at::FitLine* line = report_line(fit, "all_reduce across ranks");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->model, "rank_count");
  EXPECT_NE(line->note.find("scaletune's own rows on 1 rank count left out"), std::string::npos)
      << line->note;
  const at::PerformanceModel mixed(fit.models);
  for (const int ranks : {16, 32, 64})
    EXPECT_DOUBLE_EQ(mixed.collective_time_s(all_reduce(1048576, ranks)),
                     logs_only.collective_time_s(all_reduce(1048576, ranks)))
        << ranks;
  // the 2-rank curve of the own rows still times 2-rank all-reduces
  EXPECT_NE(report_line(fit, "all_reduce on 2 ranks"), nullptr);
}
