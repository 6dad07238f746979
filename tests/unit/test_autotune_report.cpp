// The Markdown report, the inspect table and the recommendation lines on a hand-built sweep.
// Series a (resnet50, global batch 256): per step, fwd = 80 ms / p, allreduce = 10 ms·(1 + log2 p)
// and 10 ms no phase covers, so p = 1, 2, 4, 8 take 100, 70, 60, 60 ms: 2,560, 3,657.1, 4,266.7
// and 4,266.7 samples/s; E(2) = 3,657.1 / (2·2,560) = 0.714; a-r2 shares: compute 40/70 = 57.1 %,
// comm 20/70 = 28.6 %, wait 0 %, other 10/70 = 14.3 %. a-r16 ran out of memory. Series b
// (global batch 64) has one configuration, too few for a fit.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>
#include <string>

#include "autotune/autotune.hpp"
#include "tests/unit/test_autotune_fixtures.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;

namespace {

rs::ConfigResult config(const std::string& series, int ranks, int global_batch) {
  const auto phase_s = [ranks](int, int, int p) {
    return p == 0 ? 0.080 / ranks : 0.010 * (1.0 + std::log2(ranks));
  };
  return at::testing::make_ok_config(series + "-r" + std::to_string(ranks), ranks, global_batch, 5,
                                     {"fwd", "allreduce"}, phase_s, 0.010);
}

rs::ConfigResult series_a(int ranks) {
  return config("a", ranks, 256);
}

rs::ResultSet sweep() {
  rs::ResultSet set;
  set.path = "results/resnet50-scaling.h5";
  set.provenance.scaletune_version = "0.1.0";
  set.provenance.git_sha = "abc1234";
  set.provenance.created_utc = "2026-11-30T03:00:00Z";
  set.provenance.job_toml =
      "[job]\nname = \"resnet50-scaling\"\n\n[workload]\nkind = \"resnet50\"\n";
  set.system = rs::SystemInfo{};
  set.system->world_size = 8;
  set.system->blas = "OpenBLAS 0.3.21 (Haswell)";
  set.configs = {
      series_a(1),
      series_a(2),
      series_a(4),
      series_a(8),
      at::testing::make_failed_config("a-r16", 16, 256, rs::Status::oom, "out of memory on rank 3"),
      config("b", 2, 64)};
  return set;
}

struct Outputs {
  std::string markdown, inspect, text;
};

Outputs run(const rs::ResultSet& set) {
  const auto metrics = at::compute_metrics(set);
  const auto fits = at::fit_series(metrics);
  const auto choice = at::recommend(metrics, at::Objective::efficiency_floor);
  return {at::markdown_report(set, metrics, fits, choice), at::inspect_table(set, metrics),
          at::recommendation_text(choice)};
}

bool matches(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern));
}

const std::string kSentence =
    "a-r2 gives 3,657 samples/s at scaling efficiency 0.71 \\(>= 0.70\\); a-r4 is faster "
    "\\(4,267 samples/s\\) but only 0.42 efficient\\.";

}  // namespace

TEST(AutotuneReport, MarkdownHasTitleProvenanceAndConfigurationRows) {
  const std::string md = run(sweep()).markdown;
  EXPECT_TRUE(matches(md, "^# scaletune report: resnet50-scaling\n")) << md;
  EXPECT_TRUE(matches(md,
                      "`results/resnet50-scaling\\.h5`: scaletune 0\\.1\\.0, git abc1234, "
                      "created 2026-11-30T03:00:00Z, world size 8, BLAS OpenBLAS 0\\.3\\.21 "
                      "\\(Haswell\\)"))
      << md;
  EXPECT_TRUE(matches(md,
                      "\\| id \\| ranks \\| global batch \\(samples\\) \\| .*\\| throughput "
                      "\\(samples/s\\) \\| step median \\(ms\\) \\| step p95 \\(ms\\) \\|"))
      << md;
  EXPECT_TRUE(matches(md,
                      "\n\\| a-r1 \\| 1 \\| 256 \\| 256 \\| ok \\| 2,560\\.0 \\| 100\\.000 \\| "
                      "100\\.000 \\| 1\\.000 \\| 80\\.0 \\| 10\\.0 \\| 0\\.0 \\| 10\\.0 \\|\n"))
      << md;
  EXPECT_TRUE(matches(md,
                      "\n\\| a-r2 \\| 2 \\| 256 \\| 128 \\| ok \\| 3,657\\.1 \\| 70\\.000 \\| "
                      "70\\.000 \\| 0\\.714 \\| 57\\.1 \\| 28\\.6 \\| 0\\.0 \\| 14\\.3 \\|\n"))
      << md;
  EXPECT_TRUE(matches(md, "\n\\| a-r16 \\| 16 \\| 256 \\| 16 \\| oom \\| - \\| - \\| - \\| - \\|"))
      << md;
}

TEST(AutotuneReport, MarkdownListsFailuresFitsAndTheRecommendation) {
  const std::string md = run(sweep()).markdown;
  EXPECT_TRUE(matches(md,
                      "## Configurations that did not finish\n\n"
                      "- a-r16 \\(16 ranks\\): oom: out of memory on rank 3\n"))
      << md;
  // Series a has 4 rank counts: both laws fit; predictions at p = 2·8 = 16.
  const std::string series = "resnet50, global batch 256, even, fp32";
  EXPECT_TRUE(matches(md, "\\| " + series +
                              " \\| amdahl \\| X1 = [0-9,.]+ samples/s, s = [0-9.e-]+ "
                              "\\| [0-9,.]+ \\| [0-9.]+ \\| 4 \\| 16 \\| [0-9,.]+ \\|"))
      << md;
  EXPECT_TRUE(matches(md, "\\| " + series +
                              " \\| usl \\| X1 = [0-9,.]+ samples/s, sigma = "
                              "[0-9.e-]+, kappa = [0-9.e-]+, (peak at p\\* = [0-9,.]+|no peak)"))
      << md;
  EXPECT_TRUE(matches(md,
                      "- usl, resnet50, global batch 64, even, fp32: no fit \\(needs >= 3 "
                      "distinct rank counts, got 1\\)"))
      << md;
  EXPECT_TRUE(matches(md,
                      "## Recommendation\n\nObjective: efficiency_floor \\(the highest "
                      "throughput with scaling efficiency >= 0\\.70\\)\\.\n\nRecommended: "
                      "`a-r2`\\. " +
                          kSentence + "\n$"))
      << md;
}

TEST(AutotuneReport, TitleFallsBackToTheFileName) {
  rs::ResultSet set = sweep();
  set.provenance.job_toml.clear();
  set.system.reset();
  const std::string md = run(set).markdown;
  EXPECT_TRUE(matches(md, "^# scaletune report: resnet50-scaling\\.h5\n")) << md;
  EXPECT_TRUE(matches(md, "world size -, BLAS -\\.")) << md;
}

TEST(AutotuneReport, InspectTableHasAUnitsRowAndAlignedRows) {
  const std::string table = run(sweep()).inspect;
  EXPECT_TRUE(matches(table, "^results/resnet50-scaling\\.h5: 6 configurations\n")) << table;
  EXPECT_TRUE(
      matches(table, "\n\\s+samples\\s+samples\\s+samples/s\\s+ms\\s+ms\\s+%\\s+%\\s+%\\s+%\n"))
      << table;
  EXPECT_TRUE(matches(table,
                      "\na-r2\\s+2\\s+256\\s+128\\s+ok\\s+3,657\\.1\\s+70\\.000\\s+70\\.000\\s+"
                      "0\\.714\\s+57\\.1\\s+28\\.6\\s+0\\.0\\s+14\\.3\n"))
      << table;
  EXPECT_TRUE(matches(table, "\na-r16 \\(16 ranks\\): oom: out of memory on rank 3\n$")) << table;
  // Header, units, rule and the six rows are padded to one width.
  std::istringstream lines(table);
  std::string line, first;
  std::getline(lines, line);  // file line
  std::getline(lines, line);  // blank
  std::getline(lines, first);
  for (int k = 0; k < 8 && std::getline(lines, line); ++k)
    EXPECT_EQ(line.size(), first.size()) << line;
}

TEST(AutotuneReport, RecommendationTextNamesObjectiveChoiceAndReason) {
  const std::string text = run(sweep()).text;
  EXPECT_TRUE(matches(text,
                      "^objective: efficiency_floor \\(the highest throughput with scaling "
                      "efficiency >= 0\\.70\\)\nrecommended: a-r2\nwhy: " +
                          kSentence + "\n$"))
      << text;
  rs::ResultSet set = sweep();
  set.configs = {set.configs[4]};
  EXPECT_TRUE(matches(run(set).text, "\nrecommended: none\nwhy: No configuration finished ok"));
}
