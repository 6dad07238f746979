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
#include <vector>

#include "autotune/autotune.hpp"
#include "autotune/collectives_table.hpp"
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

/// Ids of the configuration rows of a Markdown ("| id | 4 |") or plain ("id   4   ") table, in
/// order.
std::vector<std::string> row_ids(const std::string& text) {
  const std::regex row("^(?:\\| )?([a-z0-9-]+)(?: \\|)?\\s+[0-9]+ ");
  std::vector<std::string> ids;
  std::istringstream lines(text);
  std::smatch m;
  for (std::string line; std::getline(lines, line);)
    if (std::regex_search(line, m, row)) ids.push_back(m[1]);
  return ids;
}

}  // namespace

TEST(AutotuneReport, MarkdownHasTitleProvenanceAndConfigurationRows) {
  const std::string md = run(sweep()).markdown;
  EXPECT_TRUE(matches(md, "^# scaletune report: resnet50-scaling\n")) << md;
  EXPECT_TRUE(matches(md,
                      "`results/resnet50-scaling\\.h5`: scaletune 0\\.1\\.0, git abc1234, "
                      "created 2026-11-30T03:00:00Z, world size 8, BLAS OpenBLAS 0\\.3\\.21 "
                      "\\(Haswell\\)"))
      << md;
  EXPECT_TRUE(matches(
      md,
      "\\| id \\| ranks \\| global batch \\(samples\\) \\| batch split \\| .*\\| throughput "
      "\\(samples/s\\) \\| step median \\(ms\\) \\| step p95 \\(ms\\) \\|"))
      << md;
  EXPECT_TRUE(
      matches(md,
              "\n\\| a-r1 \\| 1 \\| 256 \\| even \\| 256 \\| ok \\| 2,560\\.0 \\| 100\\.000 \\| "
              "100\\.000 \\| 1\\.000 \\| 80\\.0 \\| 10\\.0 \\| 0\\.0 \\| 10\\.0 \\|\n"))
      << md;
  EXPECT_TRUE(
      matches(md,
              "\n\\| a-r2 \\| 2 \\| 256 \\| even \\| 128 \\| ok \\| 3,657\\.1 \\| 70\\.000 \\| "
              "70\\.000 \\| 0\\.714 \\| 57\\.1 \\| 28\\.6 \\| 0\\.0 \\| 14\\.3 \\|\n"))
      << md;
  EXPECT_TRUE(
      matches(md, "\n\\| a-r16 \\| 16 \\| 256 \\| even \\| 16 \\| oom \\| - \\| - \\| - \\| - \\|"))
      << md;
}

TEST(AutotuneReport, MarkdownListsFailuresFitsAndTheRecommendation) {
  const std::string md = run(sweep()).markdown;
  EXPECT_TRUE(matches(md,
                      "## Configurations that did not finish\n\n"
                      "- a-r16 \\(16 ranks\\): oom: out of memory on rank 3\n"))
      << md;
  // Series a has 4 rank counts: both laws fit; predictions at p = 2·8 = 16.
  const std::string series = "resnet50, global batch 256, fp32";
  EXPECT_TRUE(matches(md, "\\| " + series +
                              " \\| amdahl \\| X1 = [0-9,.]+ samples/s, s = [0-9.e-]+ "
                              "\\| [0-9,.]+ \\| [0-9.]+ \\| 4 \\| 16 \\| [0-9,.]+ \\|"))
      << md;
  EXPECT_TRUE(matches(md, "\\| " + series +
                              " \\| usl \\| X1 = [0-9,.]+ samples/s, sigma = "
                              "[0-9.e-]+, kappa = [0-9.e-]+, (peak at p\\* = [0-9,.]+|no peak)"))
      << md;
  EXPECT_TRUE(matches(md,
                      "- usl, resnet50, global batch 64, fp32: no fit \\(needs >= 3 "
                      "distinct rank counts, got 1\\)"))
      << md;
  EXPECT_TRUE(matches(md,
                      "## Recommendation\n\nObjective: efficiency_floor \\(the highest "
                      "throughput with scaling efficiency >= 0\\.70\\)\\.\n\nRecommended: "
                      "`a-r2`\\. " +
                          kSentence + "\n$"))
      << md;
}

TEST(AutotuneReport, TextFromTheFileCannotBreakTheMarkdown) {
  // A file edited with h5py: a failure message and a BLAS name holding a line break with a
  // heading after it, a pipe, a code span, an HTML tag and a link.
  const std::string evil = "a|b\n# Injected\n`x` <script>y</script> [z](http://e.vil)";
  rs::ResultSet set = sweep();
  set.system->blas = evil;
  set.configs[4].error = evil;
  const std::string md = run(set).markdown;
  const std::string escaped = R"(a\|b # Injected \`x\` \<script>y\</script> \[z](http://e.vil))";
  EXPECT_EQ(md.find("\n# Injected"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), md.find(R"(\<script>)") + 1) << md;
  EXPECT_NE(md.find("\n- a-r16 (16 ranks): oom: " + escaped + "\n"), std::string::npos) << md;
  EXPECT_NE(md.find("BLAS " + escaped + "."), std::string::npos) << md;
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
  EXPECT_TRUE(
      matches(table,
              "\na-r2\\s+2\\s+256\\s+even\\s+128\\s+ok\\s+3,657\\.1\\s+70\\.000\\s+70\\.000\\s+"
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
}

TEST(AutotuneReport, NothingFinishedOkSaysSoWithCountsAndSingularNouns) {
  rs::ResultSet set = sweep();
  set.configs = {at::testing::make_failed_config("a-r1", 1, 256, rs::Status::error, "bad input"),
                 at::testing::make_failed_config("a-r2", 2, 256, rs::Status::skipped,
                                                 "needs 2 ranks, the launch has 1")};
  const Outputs out = run(set);
  EXPECT_TRUE(matches(out.text,
                      "\nrecommended: none\nno recommendation: no configuration finished ok "
                      "\\(1 failed, 1 skipped\\)\n$"))
      << out.text;
  EXPECT_TRUE(matches(out.markdown,
                      "\n\nNo recommendation: no configuration finished ok \\(1 failed, 1 "
                      "skipped\\)\\.\n$"))
      << out.markdown;
  EXPECT_TRUE(matches(out.inspect, "\na-r1 \\(1 rank\\): error: bad input\n")) << out.inspect;
  EXPECT_TRUE(matches(out.markdown, "\n- a-r2 \\(2 ranks\\): skipped: ")) << out.markdown;
  set.configs.pop_back();
  EXPECT_TRUE(matches(run(set).inspect, "^results/resnet50-scaling\\.h5: 1 configuration\n"));
}

// Stored in id order (as the reader returns them): series b first, then a; a-r2-weighted
// divides a's global batch unevenly on 2 ranks, so it shares a-r2's place and follows it by id.
TEST(AutotuneReport, RowsGoBySeriesThenRanksThenGlobalBatchThenId) {
  rs::ResultSet set = sweep();
  rs::ConfigResult weighted = series_a(2);
  weighted.id = "a-r2-weighted";
  weighted.batch_split = "[0.75, 0.25]";
  weighted.per_rank_batch = {192, 64};
  set.configs = {config("b", 2, 64), set.configs[4], set.configs[0], weighted,
                 set.configs[3],     set.configs[1], set.configs[2]};
  ASSERT_EQ(set.configs[1].id, "a-r16");
  const std::vector<std::string> want = {"b-r2", "a-r1", "a-r2", "a-r2-weighted",
                                         "a-r4", "a-r8", "a-r16"};
  const Outputs out = run(set);
  EXPECT_EQ(row_ids(out.inspect), want) << out.inspect;
  EXPECT_EQ(row_ids(out.markdown.substr(0, out.markdown.find("## Scaling fits"))), want)
      << out.markdown;
  EXPECT_TRUE(matches(out.markdown,
                      "\n\\| a-r2-weighted \\| 2 \\| 256 \\| \\\\\\[0\\.75, 0\\.25\\] "
                      "\\| 192\\+64 \\| ok "))
      << out.markdown;
}

namespace {

rs::CollectiveResult collective(const std::string& op, int ranks, std::int64_t bytes,
                                double time_us, const std::string& source) {
  const double algbw = static_cast<double>(bytes) / time_us / 1e3;  // GB/s
  return {.op = op,
          .dtype = "float",
          .bytes = bytes,
          .ranks = ranks,
          .time_us = time_us,
          .algbw_gbps = algbw,
          .busbw_gbps = algbw,
          .wrong = 0,
          .source = source};
}

/// The source cells (last word) of the rows of a collectives table, in order.
std::vector<std::string> row_sources(const std::string& table) {
  std::vector<std::string> sources;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("all_") || line.starts_with("broadcast"))
      sources.push_back(line.substr(line.rfind(' ') + 1));
  return sources;
}

}  // namespace

TEST(AutotuneReport, CollectivesTableGoesByOpThenRanksThenBytesThenPlaceThenFileOrder) {
  std::vector<rs::CollectiveResult> rows = {
      collective("broadcast", 2, 8, 10.0, "s0"),     collective("all_reduce", 8, 1024, 20.0, "s1"),
      collective("all_reduce", 2, 4096, 30.0, "s2"), collective("all_reduce", 2, 1024, 40.0, "s3"),
      collective("all_gather", 16, 8, 50.0, "s4"),   collective("all_reduce", 2, 1024, 60.0, "s5"),
      collective("all_reduce", 2, 1024, 35.0, "s6"), collective("all_reduce", 2, 4096, 25.0, "s7")};
  rows[4].wrong = -1;
  rows[2].in_place = true;  // in place, before s7 out of place in the file: printed after it
  rows[3].in_place = true;  // likewise after s5 and s6
  const std::string table = at::collectives_table(rows);
  EXPECT_EQ(row_sources(table),
            (std::vector<std::string>{"s4", "s5", "s6", "s3", "s7", "s2", "s1", "s0"}))
      << table;
  EXPECT_TRUE(matches(table,
                      "^/collectives: 8 rows, by op, ranks, bytes and place\n\nop\\s+dtype\\s+"
                      "ranks\\s+bytes\\s+place\\s+time\\s+algbw\\s+busbw\\s+wrong\\s+source\n"))
      << table;
  EXPECT_TRUE(matches(table, "\n\\s+bytes\\s+us\\s+GB/s\\s+GB/s\n")) << table;
  // 4096 bytes in 30 us: 0.1365 GB/s; the gather's wrong count is unknown.
  EXPECT_TRUE(matches(table,
                      "\nall_reduce\\s+float\\s+2\\s+4,096\\s+in\\s+30\\.00\\s+0\\.14\\s+0\\.14"
                      "\\s+0\\s+s2\n"))
      << table;
  EXPECT_TRUE(matches(table,
                      "\nall_reduce\\s+float\\s+2\\s+4,096\\s+out\\s+25\\.00\\s+0\\.16\\s+0\\.16"
                      "\\s+0\\s+s7\n"))
      << table;
  EXPECT_TRUE(matches(table,
                      "\nall_gather\\s+float\\s+16\\s+8\\s+out\\s+50\\.00\\s+0\\.00\\s+0\\.00\\s+"
                      "-\\s+s4\n"))
      << table;
  const std::vector<rs::CollectiveResult> big = {
      collective("all_reduce", 16, 17179869184, 123456.78, "b")};
  EXPECT_TRUE(
      matches(at::collectives_table(big), "\\s17,179,869,184\\s+out\\s+123,456\\.78\\s+139\\.16"))
      << at::collectives_table(big);
  EXPECT_EQ(at::collectives_table({}), "");
}

TEST(AutotuneReport, InspectTableCountsCollectiveResultsAndListsBenchmarkConfigurations) {
  rs::ResultSet set = sweep();
  rs::ConfigResult bench = at::testing::even_config("collectives-r2", 2, 2);
  bench.workload = "collectives";
  rs::ConfigResult failed = at::testing::make_failed_config(
      "collectives-r4", 4, 4, rs::Status::timeout, "all_reduce did not finish");
  failed.workload = "collectives";
  set.configs.push_back(bench);
  set.configs.push_back(failed);
  set.collectives = {collective("all_reduce", 2, 1024, 40.0, "s")};
  const std::string table = run(set).inspect;
  EXPECT_TRUE(matches(table,
                      "^results/resnet50-scaling\\.h5: 6 configurations, 2 collective "
                      "benchmark configurations, 1 /collectives row\n\n"))
      << table;
  EXPECT_TRUE(matches(table,
                      "\n\ncollective benchmark collectives-r2 \\(2 ranks\\): ok\n"
                      "collective benchmark collectives-r4 \\(4 ranks\\): timeout: "
                      "all_reduce did not finish\n$"))
      << table;
  EXPECT_EQ(row_ids(table).size(), 6u) << table;
}

TEST(AutotuneReport, InspectTableOfCollectiveResultsAloneHasNoConfigurationTable) {
  rs::ResultSet set;
  set.path = "imported.h5";
  set.collectives = {collective("all_reduce", 2, 1024, 40.0, "s")};
  const std::string table = at::inspect_table(set, at::compute_metrics(set));
  EXPECT_EQ(table, "imported.h5: 0 configurations, 1 /collectives row\n");
}
