// `scaletune fit` on nccl-tests logs that span nodes: the real H100 logs of
// ../shared/data/nccl-tests (8 GPUs on one node, 16 on two, as their "# Rank ... on HOST" lines
// say) give an all_reduce model across rank counts with intra- and inter-node terms; the
// performance model places predicted ranks as those logs were, or as the job says, and names
// the layout it extrapolates to.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/collective_log.hpp"
#include "autotune/model_fitting.hpp"
#include "autotune/performance_model.hpp"
#include "harness/results/model_file.hpp"
#include "tests/support/fit_helpers.hpp"
#include "tests/unit/test_results_data.hpp"

namespace at = scaletune::autotune;
namespace results = scaletune::results;
namespace trace = scaletune::trace;

namespace {

using scaletune::testing_support::all_reduce;
using scaletune::testing_support::report_line;

/// A result set of the rows of the nccl-tests log `name`.
results::ResultSet imported(const std::string& name) {
  const std::filesystem::path path =
      std::filesystem::path(SCALETUNE_SHARED_DIR) / "data/nccl-tests" / name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  results::ResultSet set;
  set.path = name + ".h5";
  set.collectives = at::parse_nccl_tests_log(text.str(), name);
  return set;
}

std::vector<results::ResultSet> h100_logs() {
  return {imported("nccl_h100_1node_8gpu_multi_collective.log"),
          imported("nccl_h100_2node_16gpu_a3mega_allreduce.log")};
}

const results::CollectiveModelRecord* rank_count_record(const results::ModelSet& models) {
  for (const results::CollectiveModelRecord& r : models.collectives)
    if (r.op == "all_reduce" && r.form == "rank_count") return &r;
  return nullptr;
}

}  // namespace

TEST(InterNodeFit, TheH100LogsGiveIntraAndInterNodeTerms) {
  const at::FitResult fit = at::fit_models(h100_logs());
  const at::FitLine* line = report_line(fit, "all_reduce across ranks");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ(line->model, "rank_count");
  EXPECT_NE(line->note.find("intra- and inter-node terms (8 ranks per node, up to 2 nodes)"),
            std::string::npos)
      << line->note;
  const results::CollectiveModelRecord* record = rank_count_record(fit.models);
  ASSERT_NE(record, nullptr);
  ASSERT_EQ(record->parameters.size(), 8u);
  const at::RankCountModel m = at::rank_count_model_of(*record);
  EXPECT_EQ(m.ranks_per_node, 8);
  EXPECT_EQ(m.max_nodes, 2);
  EXPECT_GT(m.beta_inter, 0.0);
}

TEST(InterNodeFit, PredictionsPlaceRanksAsTheLogsOrTheJobSay) {
  at::PerformanceModel model(at::fit_models(h100_logs()).models);
  const trace::Collective big = all_reduce(std::int64_t{1} << 28, 64);
  EXPECT_EQ(model.nodes_for("all_reduce", 64), 8);
  const std::string basis = model.collective_basis(big).text();
  EXPECT_EQ(basis.rfind("all_reduce across 8..16 ranks (8 per node, up to 2 nodes), extrapolated "
                        "to 64 ranks on 8 nodes (from nccl-tests:",
                        0),
            0u)
      << basis;
  const double eight_per_node = model.collective_time_s(big);
  const double alpha_steps = model.collective_time_s(all_reduce(8, 64));
  // Four ranks per node: 16 nodes, more inter-node ring steps at the same bus bandwidth.
  model.set_ranks_per_node(4);
  EXPECT_EQ(model.nodes_for("all_reduce", 64), 16);
  EXPECT_GT(model.collective_time_s(all_reduce(8, 64)), alpha_steps);
  EXPECT_GT(model.collective_time_s(big), 0.0);
  EXPECT_NE(eight_per_node, model.collective_time_s(big));
  EXPECT_NE(model.collective_basis(big).text().find(
                "extrapolated to 64 ranks on 16 nodes, extrapolated to 4 ranks per node"),
            std::string::npos)
      << model.collective_basis(big).text();
  EXPECT_THROW(model.set_ranks_per_node(-1), std::invalid_argument);
}

TEST(InterNodeFit, TheBasisNamesUnevenAndOverfullNodes) {
  at::PerformanceModel model(at::fit_models(h100_logs()).models);
  const trace::Collective big = all_reduce(std::int64_t{1} << 28, 64);
  // Three per node, as sbatch spreads 64 tasks: 22 nodes, the fullest holding 3.
  model.set_ranks_per_node(3);
  EXPECT_EQ(model.nodes_for("all_reduce", 64), 22);
  EXPECT_NE(
      model.collective_basis(big).text().find("extrapolated to 64 ranks on 22 nodes of up to 3 "
                                              "ranks ("),
      std::string::npos)
      << model.collective_basis(big).text();
  // All 64 on one node: within the 2 nodes measured, but 64 on a node where 8 were measured.
  model.set_ranks_per_node(64);
  EXPECT_EQ(model.nodes_for("all_reduce", 64), 1);
  EXPECT_NE(model.collective_basis(big).text().find(", extrapolated to 64 ranks on 1 node ("),
            std::string::npos)
      << model.collective_basis(big).text();
}

TEST(InterNodeFit, ModelsWithinOneNodeSayWhenAJobSpansNodes) {
  std::vector<results::ResultSet> one_node = {
      imported("nccl_h100_1node_8gpu_multi_collective.log"),
      imported("nccl_rtx2080ti_pcie_2gpu_noP2P_5collectives.log")};
  at::PerformanceModel model(at::fit_models(one_node).models);
  EXPECT_EQ(model.nodes_for("all_reduce", 32), 1);
  model.set_ranks_per_node(8);
  const std::string basis = model.collective_basis(all_reduce(1 << 20, 32)).text();
  EXPECT_NE(basis.find("extrapolated as one node for 32 ranks on 4 nodes (its rows never spanned "
                       "nodes)"),
            std::string::npos)
      << basis;
}

TEST(InterNodeFit, CurvesOfOneRankCountOnOtherNodesStayApart) {
  // The 8-GPU all_gather rows again, as if 4 + 4 ranks on two nodes had run them 1.5 times
  // slower (all_gather was measured on 8 ranks only: no model across rank counts).
  std::vector<results::ResultSet> logs = h100_logs();
  results::ResultSet two_nodes;
  two_nodes.path = "two_nodes.h5";
  for (results::CollectiveResult row : logs.front().collectives)
    if (row.op == "all_gather") {
      row.nodes = 2;
      row.time_us *= 1.5;
      row.source += ":4x2";
      two_nodes.collectives.push_back(row);
    }
  logs.push_back(two_nodes);
  const at::FitResult fit = at::fit_models(logs);
  ASSERT_NE(report_line(fit, "all_gather on 8 ranks"), nullptr);
  ASSERT_NE(report_line(fit, "all_gather on 8 ranks of 2 nodes"), nullptr);
  EXPECT_LT(report_line(fit, "all_gather on 8 ranks of 2 nodes")->error.value_or(1.0), 0.05);
  EXPECT_EQ(report_line(fit, "all_gather across ranks"), nullptr);
  at::PerformanceModel model(fit.models);
  trace::Collective big = all_reduce(std::int64_t{1} << 28, 8);
  big.op = "all_gather";
  const double one_node = model.collective_time_s(big);
  model.set_ranks_per_node(4);  // the job places 8 ranks on 2 nodes: the 2-node curve
  const double two_node_time = model.collective_time_s(big);
  EXPECT_NEAR(two_node_time / one_node, 1.5, 0.05);
  EXPECT_EQ(model.collective_basis(big).text().rfind("all_gather curve at 8 ranks (from", 0), 0u)
      << model.collective_basis(big).text();
  // 8 on one node each where a curve exists on 1 node only: that curve, and the basis says so.
  model.set_ranks_per_node(2);
  EXPECT_DOUBLE_EQ(model.collective_time_s(big), one_node);
  EXPECT_NE(model.collective_basis(big).text().find("measured on 1 node, extrapolated to 4 nodes"),
            std::string::npos)
      << model.collective_basis(big).text();
  // 16 all_reduce ranks on one node, where 16 were measured on 2 nodes only: not that curve but
  // the model across rank counts, which says so.
  model.set_ranks_per_node(16);
  const std::string basis = model.collective_basis(all_reduce(1 << 20, 16)).text();
  EXPECT_EQ(basis.rfind("all_reduce across 8..16 ranks", 0), 0u) << basis;
  EXPECT_NE(basis.find("extrapolated to 16 ranks per node"), std::string::npos) << basis;
  // Both 8-rank curves survive the model file under their own names.
  const results::test::TempDir dir;
  results::ModelSet models = fit.models;
  models.provenance = results::test::sample_provenance();
  results::write_model_file(dir.file("model.h5"), models);
  at::PerformanceModel read(results::read_model_file(dir.file("model.h5")));
  read.set_ranks_per_node(4);
  EXPECT_DOUBLE_EQ(read.collective_time_s(big), two_node_time);
  read.set_ranks_per_node(8);
  EXPECT_DOUBLE_EQ(read.collective_time_s(big), one_node);
}

TEST(InterNodeFit, ACurveOfOwnAndImportedRowsKeepsTheOwn) {
  // The 8-GPU all_gather rows as if scaletune had measured them 3 times slower on its devices.
  std::vector<results::ResultSet> logs = h100_logs();
  results::ResultSet own;
  own.path = "own.h5";
  std::size_t imported_rows = 0;
  for (results::CollectiveResult row : logs.front().collectives)
    if (row.op == "all_gather") {
      ++imported_rows;
      row.time_us *= 3.0;
      row.source = "scaletune:own.h5:" + std::to_string(row.bytes);
      own.collectives.push_back(row);
    }
  const at::PerformanceModel imported_only(at::fit_models(logs).models);
  logs.push_back(own);
  const at::FitResult fit = at::fit_models(logs);
  const at::FitLine* line = report_line(fit, "all_gather on 8 ranks");
  ASSERT_NE(line, nullptr);
  EXPECT_NE(line->note.find("the imported logs' " + std::to_string(imported_rows) +
                            " rows left out (own measurements and imported logs are not mixed)"),
            std::string::npos)
      << line->note;
  trace::Collective c = all_reduce(std::int64_t{1} << 26, 8);
  c.op = "all_gather";
  EXPECT_NEAR(
      at::PerformanceModel(fit.models).collective_time_s(c) / imported_only.collective_time_s(c),
      3.0, 0.15);
}

TEST(InterNodeFit, LogsOfTwoClustersFittedTogetherAreNamedSuspect) {
  // An RTX 2080 Ti pair over PCIe without P2P, 8 H100s and a 12-GPU V100 DGX-2: one line
  // through all three gives some of their own rows no time at all.
  const at::FitResult fit =
      at::fit_models({imported("nccl_rtx2080ti_pcie_2gpu_noP2P_5collectives.log"),
                      imported("nccl_h100_1node_8gpu_multi_collective.log"),
                      imported("nccl_v100_dgx2_12gpu_oldformat_5collectives.log")});
  const at::FitLine* line = report_line(fit, "all_reduce across ranks");
  ASSERT_NE(line, nullptr);
  EXPECT_NE(line->note.find("gives no positive time for "), std::string::npos) << line->note;
  EXPECT_NE(line->note.find("logs of different clusters? fit each cluster's logs apart"),
            std::string::npos);
  // One cluster's logs alone: no such note.
  const at::FitResult h100 = at::fit_models(h100_logs());
  EXPECT_EQ(report_line(h100, "all_reduce across ranks")->note.find("no positive time"),
            std::string::npos);
}

TEST(InterNodeFit, AModelAcrossRankCountsWithoutATimeIsRefused) {
  results::ModelSet models;
  results::CollectiveModelRecord r;
  r.op = "all_reduce";
  r.form = "rank_count";
  r.parameters = {-100.0, 1.0, 1e-6, 0.0};  // negative below ~100 ring steps
  r.min_ranks = 2;
  r.max_ranks = 12;
  models.collectives.push_back(r);
  const at::PerformanceModel model(models);
  try {
    model.collective_time_s(all_reduce(1 << 20, 4));
    ADD_FAILURE() << "a negative time was taken";
  } catch (const at::MissingCollectiveModel& e) {
    EXPECT_NE(std::string(e.what()).find("the all_reduce model across 2..12 ranks gives"),
              std::string::npos)
        << e.what();
  }
  EXPECT_GT(model.collective_time_s(all_reduce(1 << 30, 4)), 0.0);  // where it has one
}

TEST(InterNodeFit, TheTermsSurviveTheModelFile) {
  const results::test::TempDir dir;
  const at::FitResult fit = at::fit_models(h100_logs());
  results::ModelSet models = fit.models;
  models.provenance = results::test::sample_provenance();
  const std::string path = dir.file("model.h5");
  results::write_model_file(path, models);
  const at::PerformanceModel written(models);
  const at::PerformanceModel read(results::read_model_file(path));
  for (const int ranks : {4, 24, 64, 512})
    EXPECT_DOUBLE_EQ(read.collective_time_s(all_reduce(1 << 24, ranks)),
                     written.collective_time_s(all_reduce(1 << 24, ranks)))
        << ranks;
}

TEST(InterNodeFit, OneLevelRecordsOfEarlierModelFilesStillRead) {
  results::CollectiveModelRecord r;
  r.op = "all_reduce";
  r.form = "rank_count";
  r.parameters = {5.0, 1.0, 1e-5, 0.0};
  r.min_ranks = 2;
  r.max_ranks = 8;
  const at::RankCountModel m = at::rank_count_model_of(r);
  EXPECT_FALSE(m.spans_nodes());
  EXPECT_DOUBLE_EQ(m.time_us(4, 1000, 2), 5.0 + 3.0 + 1000 * 1.5 * 1e-5);
  r.parameters = {5.0, 1.0, 1e-5, 0.0, 1.0, 1e-5, 0.0, 3.0};  // nodes without a layout
  EXPECT_THROW(at::rank_count_model_of(r), std::invalid_argument);
  r.parameters = {5.0, 1.0, 1e-5};
  EXPECT_THROW(at::rank_count_model_of(r), std::invalid_argument);
}
